# SPDX-License-Identifier: MIT
# The ctest `package.pre_commit`: the hooks of .pre-commit-hooks.yaml run by Debian's pre-commit
# (./setup.sh --test installs it) in a temporary git repository, as a team would use them:
#   - a clean tree (the shipped family `example` generated into configs/, and a Trainer config
#     with "auto" values) passes both hooks, with the validate hook's args (--hf --strict
#     --deepspeed-version) passed through and configs/manifest.json skipped (validated with
#     --strict it fails: the pass means the hook left it out);
#   - a hand edit of a generated config fails zeroforge-generate-check, naming the file;
#   - a config with an error fails zeroforge-validate, naming the file and the rule.
# The hook repository is this checkout's hook files (.pre-commit-hooks.yaml and the script it
# names), committed to a temporary repository so that uncommitted changes are tested too. The
# hooks run the zeroforge on PATH: the build's (ZEROFORGE_BIN_DIR first on PATH).
# Skipped (77) without pre-commit or git, a failure under CI=true.
#   python3 check_pre_commit.py SOURCE_DIR ZEROFORGE_BIN_DIR
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HOOK_FILES = (".pre-commit-hooks.yaml", "packaging/pre-commit/generate-check")


def run(command, cwd, env, expect=0):
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if expect is not None and done.returncode != expect:
        raise SystemExit(f"{' '.join(map(str, command))} (in {cwd}) exited {done.returncode}, "
                         f"expected {expect}:\n{done.stdout}{done.stderr}")
    return done


def commit_all(repo, env, message):
    run(["git", "add", "-A"], repo, env)
    run(["git", "commit", "-q", "-m", message], repo, env)
    return run(["git", "rev-parse", "HEAD"], repo, env).stdout.strip()


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_pre_commit.py SOURCE_DIR ZEROFORGE_BIN_DIR", file=sys.stderr)
        return 2
    source, bin_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    missing = [tool for tool in ("pre-commit", "git") if not shutil.which(tool)]
    if missing:
        print(f"package.pre_commit: {', '.join(missing)} not installed (./setup.sh --test "
              "installs pre-commit)", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 77
    for name in HOOK_FILES[1:]:
        if not os.access(source / name, os.X_OK):
            raise SystemExit(f"{name} is not executable: a language: script hook must be")
    with tempfile.TemporaryDirectory() as temp:
        temp = Path(temp)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("GIT_", "PRE_COMMIT", "ZEROFORGE_"))}
        env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", HOME=str(temp),
                   PRE_COMMIT_HOME=str(temp / "cache"), GIT_AUTHOR_NAME="test",
                   GIT_AUTHOR_EMAIL="test@example.invalid", GIT_COMMITTER_NAME="test",
                   GIT_COMMITTER_EMAIL="test@example.invalid", GIT_CONFIG_NOSYSTEM="1")
        hooks = temp / "hooks"
        for name in HOOK_FILES:
            (hooks / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, hooks / name)
        run(["git", "init", "-q", "-b", "main"], hooks, env)
        rev = commit_all(hooks, env, "zeroforge hooks")

        project = temp / "project"
        project.mkdir()
        run(["git", "init", "-q", "-b", "main"], project, env)
        run(["zeroforge", "generate", "example", "-o", "configs"], project, env)
        (project / "trainer").mkdir()
        (project / "trainer" / "ds.json").write_text(
            '{"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",\n'
            ' "train_batch_size": "auto", "bf16": {"enabled": "auto"},\n'
            ' "zero_optimization": {"stage": 2}}\n')
        (project / ".pre-commit-config.yaml").write_text(f"""\
repos:
  - repo: {hooks}
    rev: {rev}
    hooks:
      - id: zeroforge-generate-check
        args: [example=configs]
      - id: zeroforge-validate
        files: ^(configs|trainer)/
        args: [--hf, --strict, --deepspeed-version, "0.14.5"]
""")
        commit_all(project, env, "configs")
        # The pass below means manifest.json was left out: validated it fails (--strict).
        run(["zeroforge", "validate", "--strict", "configs/manifest.json"], project, env, expect=1)
        # Without --hf the Trainer config fails: the pass means the args reached zeroforge.
        run(["zeroforge", "validate", "trainer/ds.json"], project, env, expect=1)

        clean = run(["pre-commit", "run", "--all-files", "--color", "never"], project, env)
        for hook in ("zeroforge generate --check", "zeroforge validate"):
            if not any(line.startswith(hook) and line.endswith("Passed")
                       for line in clean.stdout.splitlines()):
                raise SystemExit(f"the clean tree: hook '{hook}' did not pass:\n{clean.stdout}")

        edited = project / "configs" / "medium" / "zero3-bf16.json"
        text = edited.read_text()
        if '"steps_per_print": ' not in text:
            raise SystemExit(f"{edited} has no steps_per_print to edit:\n{text}")
        edited.write_text(text.replace('"steps_per_print": ', '"steps_per_print": 1', 1))
        run(["git", "add", "-A"], project, env)
        drift = run(["pre-commit", "run", "--all-files", "--color", "never"], project, env,
                    expect=1)
        if ("zeroforge generate --check" not in drift.stdout
                or "medium/zero3-bf16.json: changed" not in drift.stdout):
            raise SystemExit(f"the hand edit was not refused and named:\n{drift.stdout}")
        run(["git", "checkout", "--", "configs"], project, env)
        run(["git", "reset", "-q"], project, env)

        (project / "trainer" / "bad.json").write_text('{"train_batch_size": 3, '
                                                      '"train_micro_batch_size_per_gpu": 2}\n')
        run(["git", "add", "-A"], project, env)
        refused = run(["pre-commit", "run", "zeroforge-validate", "--all-files", "--color",
                       "never"], project, env, expect=1)
        if "trainer/bad.json: /" not in refused.stdout or "error [" not in refused.stdout:
            raise SystemExit(f"the bad config was not refused and named:\n{refused.stdout}")
        errors = [line for line in refused.stdout.splitlines() if ": error [" in line]
        if "manifest.json" in refused.stdout or not all(
                line.startswith("trainer/bad.json: ") for line in errors):
            raise SystemExit(f"the validate hook reported other files:\n{refused.stdout}")
    print("package.pre_commit: clean tree passes; a hand edit and a bad config are refused, named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
