#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The reference side of the differential corpus: renders every case folder with Python's Jinja2
# (StrictUndefined, default settings plus the case's options.json) and prints one JSON document.
"""Render the differential corpus with Jinja2.

Usage:
    jinja2_oracle.py [CORPUS_DIR]          print {"case": {"ok": true, "output": "..."} |
                                                         {"ok": false, "error": "..."}, ...}
    jinja2_oracle.py --check [CORPUS_DIR]  check the corpus itself: every case without an
                                           `expect_error` file renders, every case with one fails

A case folder holds `template.j2` (text output) or `template.json.j2` (JSON output), and
optionally `values.json` (an object), `options.json` ({"trim_blocks": true,
"lstrip_blocks": true}), `expect_error`, and further templates for include/extends. The
folder is the template search path. For `.json.j2` cases the output must also parse as JSON
(duplicate keys rejected, as zeroforge does); otherwise the case counts as failed.
"""
import json
import pathlib
import sys

import jinja2

ENTRY_NAMES = ("template.j2", "template.json.j2")
ALLOWED_OPTIONS = {"trim_blocks", "lstrip_blocks"}


def entry_template(case_dir):
    for name in ENTRY_NAMES:
        if (case_dir / name).is_file():
            return name
    return None


def reject_duplicate_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen.add(key)
    return dict(pairs)


def render_case(case_dir):
    entry = entry_template(case_dir)
    if entry is None:
        return {"ok": False, "error": "corpus: no template.j2 or template.json.j2"}
    options = {}
    if (case_dir / "options.json").is_file():
        options = json.loads((case_dir / "options.json").read_text(encoding="utf-8"))
        unknown = set(options) - ALLOWED_OPTIONS
        if unknown:
            return {"ok": False, "error": f"corpus: unknown options {sorted(unknown)}"}
    values = {}
    if (case_dir / "values.json").is_file():
        values = json.loads((case_dir / "values.json").read_text(encoding="utf-8"))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(case_dir)),
        undefined=jinja2.StrictUndefined,
        **options,
    )
    try:
        output = env.get_template(entry).render(values)
    except Exception as error:  # every failure counts, RecursionError included
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}
    if entry.endswith(".json.j2"):
        try:
            json.loads(output, object_pairs_hook=reject_duplicate_keys)
        except ValueError as error:
            return {"ok": False, "error": f"invalid JSON output: {error}", "output": output}
    return {"ok": True, "output": output}


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = pathlib.Path(args[0]) if args else pathlib.Path(__file__).parent / "template"
    results = {}
    for case_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        results[case_dir.name] = render_case(case_dir)
    if not check:
        json.dump(results, sys.stdout, ensure_ascii=True, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    bad = 0
    for name, result in results.items():
        expect_error = (root / name / "expect_error").exists()
        if expect_error and result["ok"]:
            bad += 1
            print(f"{name}: expected an error, Jinja2 rendered {result['output']!r}")
        elif not expect_error and not result["ok"]:
            bad += 1
            print(f"{name}: Jinja2 failed: {result['error']}")
    errors = sum(1 for name in results if (root / name / "expect_error").exists())
    print(f"{len(results)} cases ({errors} error cases), {bad} inconsistent", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
