#!/usr/bin/env python3
"""Holds `zeroforge validate` to DeepSpeed's own verdicts, recorded by measure.py.

For each release in verdicts.json, validates every config recorded for it with
`--deepspeed-version R --world-size 1 --format json` (what DeepSpeedConfig saw: world size 1, the
file as written), and with `--hf` added where the Trainer's path was recorded, and requires the
same verdict: no error finding where the consumer accepted the config, at least one where it
raised. Prints each disagreement with the consumer's message and zeroforge's findings, then a
count per release and path; exit 1 if any disagree.

Then `zeroforge migrate` of every config to each recorded release: where measure.py recorded
DeepSpeedConfig's verdict on that output (its sha256 with it), today's output must be the same
bytes (else the record is stale: measure again) and the target must have accepted it.
`--write-migrated DIR` writes the outputs as DIR/RELEASE/<config's path> for measure.py instead.

  compare.py --zeroforge build/bin/zeroforge --data tests/data [--verdicts FILE]
  compare.py --zeroforge build/bin/zeroforge --data tests/data --write-migrated DIR
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import corpus  # noqa: E402  (the same configs, found the same way)


PATHS = {"deepspeed": ([], "DeepSpeedConfig"), "trainer": (["--hf"], "the Trainer's path")}


def world_size(path):
    """The world DeepSpeedConfig judged: one process, or with sequence parallelism (which needs
    that many GPUs) one data-parallel rank of sequence_parallel_size GPUs, as world size 1 is."""
    try:
        with open(path) as f:
            sp = json.load(f).get("sequence_parallel_size", 1)
    except (ValueError, AttributeError):
        return 1
    return sp if isinstance(sp, int) and not isinstance(sp, bool) and sp > 1 else 1


def zeroforge_errors(binary, release, flags, files):
    """Maps each file to the error findings zeroforge reports for it at this release, and each
    to its warnings, in the same form."""
    errors = {f: [] for f in files}
    warnings = {f: [] for f in files}
    worlds = {}
    for f in files:
        worlds.setdefault(world_size(f), []).append(f)
    for world, group in sorted(worlds.items()):
        run = subprocess.run([binary, "validate", "--deepspeed-version", release, "--world-size", str(world),
                              *flags, "--format", "json", *group], capture_output=True, text=True, check=False)
        if run.returncode not in (0, 1):
            sys.exit(f"compare.py: zeroforge validate at {release} exited {run.returncode}:\n{run.stderr}")
        for finding in json.loads(run.stdout or "[]"):
            said = f'{finding["pointer"] or "/"} [{finding["rule"]}]'
            if finding["severity"] == "error":
                errors[finding["file"]].append(said)
            elif finding["severity"] == "warning":
                warnings[finding["file"]].append(said)
    return errors, warnings


def explained(path, verdict, errors, file, release, warnings=()):
    """Why a disagreement is zeroforge's on purpose or the measurement's, or None. Four classes,
    each checked exactly:
    - raw DeepSpeed keeps a string "auto" outside its pydantic sections, and it fails where it is
      first used, after what measure.py runs (gradient_clipping: the first step compares it with
      0.0); zeroforge reports that failure now. (Where a pydantic section drops "auto" and runs
      with the default, zeroforge warns [auto-dropped] and agrees.)
    - sequence parallelism on a release without sequence_parallel_size, where no world size gives
      both one run (DeepSpeedConfig judged one process; zeroforge the GPUs the config needs).
    - the measurement's own accelerator: measure.py runs DeepSpeed on the CPU accelerator, where
      an NVMe offload through GPUDirect Storage (use_gds) is refused; the GPUs a config is for
      are CUDA's, which take it.
    - the Trainer's arguments: measure.py runs the Trainer's path with TrainingArguments'
      defaults, whose warmup is 0, and 0.19.3's schedulers refuse warmup_num_steps 0; zeroforge
      without the launch's arguments warns [hf-warmup-auto] (a launch may pass --warmup_steps),
      and with a launch that sets none (--against-args) it is an error [hf-warmup-zero]."""
    if path == "deepspeed" and verdict["accepted"] and errors and all(
            e.endswith("[auto-without-hf]") for e in errors):
        return ("DeepSpeedConfig keeps the string \"auto\", which fails where it is first used, "
                "after what was measured; zeroforge reports it now")
    if (verdict["accepted"] and world_size(file) > 1 and errors
            and all(e.endswith(("[batch-mismatch]", "[auto-without-hf]")) for e in errors)
            and tuple(int(p) for p in release.split(".")) < (0, 17, 0)):
        return "sequence_parallel_size needs DeepSpeed 0.17.0; before it no world size is one run for both"
    if (not verdict["accepted"] and not errors
            and verdict["error"] == "AssertionError: GDS currently only supported for CUDA accelerator"):
        return "measured on the CPU accelerator, which refuses GDS; a CUDA GPU takes it"
    if (path == "trainer" and not verdict["accepted"] and not errors
            and verdict["error"] == "ValueError: warmup_num_steps must be a positive integer, got 0"
            and "/scheduler/params/warmup_num_steps [hf-warmup-auto]" in warnings):
        return "the Trainer's default warmup is 0, which DeepSpeed refuses; zeroforge warns without the launch"
    return None


def migrate_all(binary, data, releases, out):
    """Migrates every config of the corpus to each release into OUT/RELEASE/<its path>; returns
    {release: {path: sha256 of the output}} for the ones migrate wrote (it refuses, exit 2, what
    no release accepts or what has no equivalent at the target)."""
    written = {}
    for release in releases:
        written[release] = {}
        for rel, path in corpus(data):
            target = os.path.join(out, release, os.path.dirname(rel))
            os.makedirs(target, exist_ok=True)
            run = subprocess.run([binary, "migrate", path, "--to", release, "-o", target],
                                 capture_output=True, text=True, check=False)
            if run.returncode not in (0, 2):
                sys.exit(f"compare.py: zeroforge migrate {rel} --to {release} exited {run.returncode}:\n{run.stderr}")
            output = os.path.join(out, release, rel)
            if run.returncode == 0:
                with open(output, "rb") as f:
                    written[release][rel] = hashlib.sha256(f.read()).hexdigest()
    return written


def check_migrated(binary, data, record):
    """How many recorded migrations no longer hold (changed bytes or refused by the target)."""
    releases = sorted(r for r, m in record["releases"].items() if "migrated" in m)
    if not releases:
        return 0
    # Only what some release's DeepSpeedConfig accepts has to be accepted at every target: a
    # Trainer's config with "auto" stays one after migrate, and raw DeepSpeed refuses it anywhere.
    accepted_somewhere = {rel for m in record["releases"].values()
                          for rel, c in m["configs"].items() if c["deepspeed"]["accepted"]}
    failures = 0
    with tempfile.TemporaryDirectory() as out:
        today = migrate_all(binary, data, releases, out)
        for release in releases:
            recorded = record["releases"][release]["migrated"]
            accepted = required = 0
            for rel, verdict in sorted(recorded.items()):
                required += rel in accepted_somewhere
                sha = today[release].get(rel)
                if sha != verdict["sha256"]:
                    failures += 1
                    print(f"STALE {release} migrated {rel}: zeroforge migrate now writes "
                          f"{'nothing' if sha is None else 'other bytes'}; measure it again (measure.py --migrated)")
                elif not verdict["accepted"] and rel in accepted_somewhere:
                    failures += 1
                    print(f"REFUSED {release} migrated {rel}: DeepSpeedConfig {release} raises {verdict['error']}")
                elif verdict["accepted"] and rel in accepted_somewhere:
                    accepted += 1
            unmeasured = sorted(set(today[release]) - set(recorded))
            for rel in unmeasured:
                print(f"UNMEASURED {release} migrated {rel}: measure it (measure.py --migrated)")
            failures += len(unmeasured)
            print(f"{release}: DeepSpeedConfig accepts zeroforge migrate's output on {accepted} of the {required} "
                  f"configs some release accepts ({len(recorded)} migrated)")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zeroforge", required=True)
    parser.add_argument("--data", required=True, help="the tests/data folder")
    parser.add_argument("--verdicts", help="default: DATA/deepspeed-verdicts/verdicts.json")
    parser.add_argument("--write-migrated", metavar="DIR", help="write migrate's outputs for measure.py")
    parser.add_argument("--releases", default="0.12.6,0.14.5,0.15.4,0.16.9,0.17.6,0.18.9,0.19.6",
                        help="with --write-migrated: the targets")
    args = parser.parse_args()
    if args.write_migrated:
        written = migrate_all(args.zeroforge, args.data, args.releases.split(","), args.write_migrated)
        for release, outputs in written.items():
            print(f"{release}: {len(outputs)} configs migrated into {args.write_migrated}/{release}")
        return
    path = args.verdicts or os.path.join(args.data, "deepspeed-verdicts", "verdicts.json")
    with open(path) as f:
        record = json.load(f)
    disagreements = 0
    for release, measured in sorted(record["releases"].items()):
        rels = sorted(measured["configs"])
        missing = [r for r in rels if not os.path.isfile(os.path.join(args.data, r))]
        if missing:
            sys.exit(f"compare.py: {path} records configs that are not in {args.data}: {missing[:5]}")
        for path, (flags, consumer) in PATHS.items():
            judged = [r for r in rels if path in measured["configs"][r]]
            if not judged:
                continue
            found, warned = zeroforge_errors(args.zeroforge, release, flags,
                                             [os.path.join(args.data, r) for r in judged])
            agree = explained_count = 0
            for rel in judged:
                verdict = measured["configs"][rel][path]
                errors = found[os.path.join(args.data, rel)]
                if verdict["accepted"] == (not errors):
                    agree += 1
                    continue
                why = explained(path, verdict, errors, os.path.join(args.data, rel), release,
                                warned[os.path.join(args.data, rel)])
                if why:
                    print(f"EXPLAINED {release} {path} {rel}: {why}")
                    explained_count += 1
                    continue
                disagreements += 1
                said = "accepts it" if verdict["accepted"] else "raises " + verdict["error"]
                ours = "; ".join(errors) if errors else "no error"
                print(f"DISAGREE {release} {path} {rel}: {consumer} {said}; zeroforge {' '.join(flags)}: {ours}")
            print(f"{release}: zeroforge agrees with {consumer} on {agree} of {len(judged)}"
                  + (f" ({explained_count} explained, above)" if explained_count else ""))
    disagreements += check_migrated(args.zeroforge, args.data, record)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
