#!/usr/bin/env python3
"""Holds `zeroforge validate` to DeepSpeed's own verdicts, recorded by measure.py.

For each release in verdicts.json, validates every config recorded for it with
`--deepspeed-version R --world-size 1 --format json` (what DeepSpeedConfig saw: world size 1, the
file as written), and with `--hf` added where the Trainer's path was recorded, and requires the
same verdict: no error finding where the consumer accepted the config, at least one where it
raised. Prints each disagreement with the consumer's message and zeroforge's findings, then a
count per release and path; exit 1 if any disagree.

  compare.py --zeroforge build/bin/zeroforge --data tests/data [--verdicts FILE]
"""
import argparse
import json
import os
import subprocess
import sys


PATHS = {"deepspeed": ([], "DeepSpeedConfig"), "trainer": (["--hf"], "the Trainer's path")}


def zeroforge_errors(binary, release, flags, files):
    """Maps each file to the error findings zeroforge reports for it at this release."""
    run = subprocess.run([binary, "validate", "--deepspeed-version", release, "--world-size", "1",
                          *flags, "--format", "json", *files], capture_output=True, text=True, check=False)
    if run.returncode not in (0, 1):
        sys.exit(f"compare.py: zeroforge validate at {release} exited {run.returncode}:\n{run.stderr}")
    errors = {f: [] for f in files}
    for finding in json.loads(run.stdout or "[]"):
        if finding["severity"] == "error":
            errors[finding["file"]].append(f'{finding["pointer"] or "/"} [{finding["rule"]}]')
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zeroforge", required=True)
    parser.add_argument("--data", required=True, help="the tests/data folder")
    parser.add_argument("--verdicts", help="default: DATA/deepspeed-verdicts/verdicts.json")
    args = parser.parse_args()
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
            found = zeroforge_errors(args.zeroforge, release, flags, [os.path.join(args.data, r) for r in judged])
            agree = 0
            for rel in judged:
                verdict = measured["configs"][rel][path]
                errors = found[os.path.join(args.data, rel)]
                if verdict["accepted"] == (not errors):
                    agree += 1
                    continue
                disagreements += 1
                said = "accepts it" if verdict["accepted"] else "raises " + verdict["error"]
                ours = "; ".join(errors) if errors else "no error"
                print(f"DISAGREE {release} {path} {rel}: {consumer} {said}; zeroforge {' '.join(flags)}: {ours}")
            print(f"{release}: zeroforge agrees with {consumer} on {agree} of {len(judged)}")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
