#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks that the checked-in Unicode and HTML tables (engine/src/template/generated/*.inc) are
# what their generators write from this Python's data, so a regenerated table cannot drift.
"""Usage: check_generated_tables.py SOURCE_DIR

Exit 0 when every table matches, 1 when one differs, 77 (skipped) when this Python's Unicode
database is not 14.0.0 (Python 3.11's, which the tables and the Jinja2 oracle use) or
NameAliases.txt (Debian's unicode-data package) is missing.
"""
import pathlib
import subprocess
import sys
import unicodedata

NAME_ALIASES = "/usr/share/unicode/NameAliases.txt"


def main(argv):
    generated = pathlib.Path(argv[1]) / "engine" / "src" / "template" / "generated"
    if unicodedata.unidata_version != "14.0.0":
        print(f"skipped: this Python has Unicode {unicodedata.unidata_version}, the tables 14.0.0")
        return 77
    if not pathlib.Path(NAME_ALIASES).is_file():
        print(f"skipped: {NAME_ALIASES} is missing (Debian package unicode-data)")
        return 77
    tables = {
        "html_entities.inc": ["generate_html_entities.py"],
        "unicode_case.inc": ["generate_unicode_case.py"],
        "unicode_classes.inc": ["generate_unicode_classes.py"],
        "unicode_names.inc": ["generate_unicode_names.py", NAME_ALIASES],
    }
    stale = 0
    for table, command in tables.items():
        fresh = subprocess.run([sys.executable, str(generated / command[0]), *command[1:]],
                               capture_output=True, text=True, check=True).stdout
        if fresh != (generated / table).read_text(encoding="utf-8"):
            print(f"{table}: differs from what {command[0]} writes now; regenerate it")
            stale += 1
    print(f"{len(tables)} tables, {stale} stale")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
