#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the examples of README.md and docs/*.md (the way rustdoc runs examples and cram checks
transcripts) in a fresh temporary directory per page, with the built zeroforge first on PATH.

What runs (tests/docs/README.md has the rules):
- a ```sh block: its commands, in order, as one bash script that must exit 0;
- a ```python block: a script run by the interpreter the zeroforge module was built for
  (ZF_PYTHON, with ZF_PYTHONPATH on its path; ctest sets both), which must exit 0; without
  ZF_PYTHON (a build without the module, or the ThreadSanitizer build) it is only compiled,
  and so are the shell blocks after it on its page (they may use what it made);
- a block whose lines start with "$ " (sh, console, text or unlabeled): a transcript: each
  command runs and its output (stdout and stderr) must be exactly the lines shown under it;
- directives in an HTML comment on the lines just above a block:
    <!-- doc-test: file PATH -->      the block is a file the page's reader writes: save it
    <!-- doc-test: setup COMMAND -->  run COMMAND first (files the page assumes the reader has)
    <!-- doc-test: exit N -->         the block's last command (or every transcript command)
                                      exits N
    <!-- doc-test: skip REASON -->    needs what CI lacks (a GPU, deepspeed, transformers):
                                      syntax only
    <!-- doc-test: contains -->       transcript output: each shown line must appear, in order
    <!-- doc-test: output -->         the block is what the ```python block above it printed
                                      (stdout and stderr), exactly
Usage: doc_examples.py SOURCE_DIR BIN_DIR [PAGE.md...]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"^<!--\s*doc-test:\s*(\w[\w-]*)\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
RUNNABLE = {"sh", "bash", "shell", "console"}


class Block:
    def __init__(self, page, line, info, text, directives):
        self.page, self.line, self.info, self.text = page, line, info, text
        self.directives = directives  # list of (name, argument)

    def where(self):
        return f"{self.page}:{self.line}"

    def directive(self, name):
        return [arg for key, arg in self.directives if key == name]

    def is_transcript(self):
        lines = [l for l in self.text.splitlines() if l.strip()]
        return bool(lines) and lines[0].startswith("$ ")


def blocks(page, text):
    """The fenced blocks of a markdown page with the directives just above each."""
    lines = text.splitlines()
    out, pending, i = [], [], 0
    while i < len(lines):
        match = DIRECTIVE.match(lines[i])
        if match:
            pending.append((match.group(1), match.group(2)))
            i += 1
            continue
        fence = FENCE.match(lines[i])
        if fence:
            start, body, i = i + 1, [], i + 1
            while i < len(lines) and not lines[i].startswith(fence.group(1)):
                body.append(lines[i])
                i += 1
            out.append(Block(page, start, fence.group(2), "\n".join(body) + "\n", pending))
            pending = []
        elif lines[i].strip():
            if pending:
                raise SystemExit(f"{page}:{i + 1}: a doc-test directive must sit right above a "
                                 "fenced block")
        i += 1
    return out


def run(command, cwd, env):
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)


def normalise(output, workdir):
    # Paths under the page's temporary directory are shown relative to it in the docs.
    output = output.replace(os.path.realpath(workdir) + "/", "").replace(workdir + "/", "")
    return [line.rstrip() for line in output.rstrip("\n").splitlines()]


def check_transcript(block, workdir, env, failures):
    expected_exit = int((block.directive("exit") or ["0"])[0])
    contains = bool(block.directive("contains"))
    steps, current = [], None
    for line in block.text.rstrip("\n").splitlines():
        if line.startswith("$ "):
            current = [line[2:], []]
            steps.append(current)
        else:
            current[1].append(line.rstrip())
    for command, expected in steps:
        result = run(command, workdir, env)
        got = normalise(result.stdout, workdir)
        if result.returncode != expected_exit:
            failures.append(f"{block.where()}: `{command}` exited {result.returncode}, the page "
                            f"says {expected_exit}:\n" + "\n".join(got[-20:]))
            continue
        while expected and not expected[-1]:
            expected.pop()
        if contains:
            position = 0
            for want in expected:
                try:
                    position = got.index(want, position) + 1
                except ValueError:
                    failures.append(f"{block.where()}: `{command}` did not print the line:\n"
                                    f"  {want}\nit printed:\n" + "\n".join(got[-30:]))
                    break
        elif got != expected:
            for n, (g, e) in enumerate(zip(got + [""] * len(expected), expected + [""] * len(got))):
                if g != e:
                    failures.append(f"{block.where()}: `{command}` output differs at line "
                                    f"{n + 1}:\n  page: {e}\n  got:  {g}")
                    break


def check_python(block, workdir, env, failures):
    """A ```python block: compiled always; run (in the page's directory) unless skipped or
    there is no module to run it with. Returns what it printed, or None when it did not run."""
    try:
        compile(block.text, block.where(), "exec")
    except SyntaxError as error:
        failures.append(f"{block.where()}: not valid Python: {error}")
        return None
    python = env.get("ZF_PYTHON")
    if block.directive("skip") or not python:
        return None
    expected_exit = int((block.directive("exit") or ["0"])[0])
    run_env = dict(env)
    run_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("ZF_PYTHONPATH"), env.get("PYTHONPATH")) if p)
    result = subprocess.run([python, "-"], input=block.text, cwd=workdir, env=run_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=300)
    if result.returncode != expected_exit:
        failures.append(f"{block.where()}: exited {result.returncode}, the page says "
                        f"{expected_exit}:\n{block.text}--- output:\n"
                        + "\n".join(normalise(result.stdout, workdir)[-25:]))
    return normalise(result.stdout, workdir)


def check_page(source, page, bindir, failures):
    path = os.path.join(source, page)
    workdir = tempfile.mkdtemp(prefix="zf-doc-")
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["ZF_SOURCE_DIR"] = source  # for setup commands that copy a shipped file
    count = 0
    printed = None  # what the last ```python block printed
    python_not_run = False  # a ```python block of this page was only compiled (no module)
    try:
        for block in blocks(page, open(path, encoding="utf-8").read()):
            if block.directive("output"):
                count += 1
                shown = [line.rstrip() for line in block.text.rstrip("\n").splitlines()]
                if printed is not None and printed != shown:
                    failures.append(f"{block.where()}: the Python block above printed:\n"
                                    + "\n".join(printed) + "\nthe page shows:\n"
                                    + "\n".join(shown))
                continue
            for command in block.directive("setup"):
                result = run(command, workdir, env)
                if result.returncode != 0:
                    failures.append(f"{block.where()}: setup `{command}` failed:\n"
                                    + result.stdout)
            for target in block.directive("file"):
                target_path = os.path.join(workdir, target)
                os.makedirs(os.path.dirname(target_path) or workdir, exist_ok=True)
                with open(target_path, "w", encoding="utf-8") as out:
                    out.write(block.text)
                count += 1
            if block.directive("file"):
                continue
            if block.info == "python":
                count += 1
                printed = check_python(block, workdir, env, failures)
                python_not_run |= printed is None and not block.directive("skip")
                continue
            runnable = block.info in RUNNABLE or (block.info in ("", "text")
                                                  and block.is_transcript())
            if not runnable:
                continue
            count += 1
            script = block.text
            if block.is_transcript():
                script = "\n".join(l[2:] for l in block.text.splitlines() if l.startswith("$ "))
            if block.directive("skip") or python_not_run:
                result = subprocess.run(["bash", "-n"], input=script, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if result.returncode != 0:
                    failures.append(f"{block.where()}: not valid shell:\n{result.stdout}")
                continue
            if block.is_transcript():
                check_transcript(block, workdir, env, failures)
                continue
            expected_exit = int((block.directive("exit") or ["0"])[0])
            lines = [l for l in script.splitlines() if l.strip() and not l.lstrip().startswith("#")]
            body = "\n".join(lines[:-1])
            last = lines[-1] if lines else "true"
            result = run(("set -e\n" + body + "\n" if body else "") + last, workdir, env)
            if result.returncode != expected_exit:
                failures.append(f"{block.where()}: exited {result.returncode}, the page says "
                                f"{expected_exit}:\n{script}--- output:\n"
                                + "\n".join(normalise(result.stdout, workdir)[-25:]))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return count


def main():
    source, bindir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    pages = sys.argv[3:] or ["README.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir(os.path.join(source, "docs"))
        if name.endswith(".md"))
    failures, total = [], 0
    for page in pages:
        total += check_page(source, page, bindir, failures)
    for failure in failures:
        print(failure + "\n")
    print(f"doc examples: {total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
