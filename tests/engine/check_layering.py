#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks the engine's includes against the layer table of engine/src/README.md, so that a module
# never reads one above it (as value.cpp once read the template engine's text helpers).
"""Usage: check_layering.py SOURCE_DIR

Reads the table under "## Layers, bottom-up" in engine/src/README.md: one row per module, the
public headers it implements, and the includes that still go up the table. Every include in
engine/src, and in each public header (engine/include/zeroforge, on the row that lists it), must
then name a header of its own module, of an earlier row, of the plugin SDK, or one of its row's
listed exceptions. Every form the preprocessor reads counts: `#include "..."` and
`#include <...>`, indented or with spaces after the `#` (`#  include`), inside `#if` blocks or
not (the check reads every line, whatever the conditions); an include of a macro
(`#include SOME_HEADER`) is refused, since what it names cannot be checked. Also fails when a
folder of engine/src or a public header has no row, or when a listed exception is no longer used
(the list only shrinks).

The build links one static library per module (engine/cmake/layers.cmake, whose link check makes
a call up the table fail the build): its `zeroforge_module(NAME USES ...)` lines must name the
table's modules in the table's order, each using exactly the earlier modules whose headers it
includes, so that the table, the includes and the links cannot drift apart. Exit 0 or 1.
"""
import pathlib
import re
import sys

TABLE_HEADING = "## Layers, bottom-up"
# The modules as the build declares them, bottom-up: `zeroforge_module(generate USES core io)`.
MODULE_CALL = re.compile(r"^zeroforge_module\(([^)]*)\)", re.MULTILINE)


def read_table(readme):
    """[(module, public headers, exceptions)] in table order."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    start = lines.index(TABLE_HEADING)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        ticked = [re.findall(r"`([^`]+)`", cell) for cell in cells]
        rows.append((ticked[0][0], ticked[2], ticked[3]))
    return rows


# Any line whose first token is the directive, however spaced: `#include`, `  #  include`.
# Group 1 is what follows the directive: "name", <name>, or a macro.
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\b[ \t]*(.*)$', re.MULTILINE)
NAMED = re.compile(r'"([^"]+)"|<([^>]+)>')


def includes(text):
    """[(name, quoted, line)] for every include directive of a file; name None for a macro."""
    found = []
    for match in INCLUDE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        named = NAMED.match(match.group(1))
        if named is None:
            found.append((None, False, line))
        else:
            found.append((named.group(1) or named.group(2), named.group(1) is not None, line))
    return found


def module_of(include, quoted, source, src, modules, public):
    """The module an include belongs to, "?name" for an unknown zeroforge/ header, or None for a
    header outside the engine (or beside the including file: its own module). A quoted include
    is looked up beside the including file first, as the compiler does; an angle-bracket one
    only on the include path (engine/include, engine/src, the SDK)."""
    if include.startswith("zeroforge/"):
        name = include[len("zeroforge/"):]
        if name in public:
            return public[name]
        return "?" + include
    head = include.split("/")[0]
    if "/" in include and head in modules:
        return head
    if quoted and (source.parent / include).exists():
        return None  # beside the including file: its own module
    if "/" not in include and (src / include).exists():
        return "core"
    return None


def read_link_list(path):
    """[(module, [modules it USES])] in the order engine/cmake/layers.cmake declares them."""
    declared = []
    for call in MODULE_CALL.finditer(path.read_text(encoding="utf-8")):
        words = call.group(1).split()
        uses = words[2:] if len(words) > 1 and words[1] == "USES" else []
        declared.append((words[0], uses))
    return declared


def check_link_list(path, order, reads):
    """Problems of the build's module list against the table (order) and the includes (reads:
    module -> the modules below it whose headers it includes)."""
    name = "engine/cmake/layers.cmake"
    if not path.exists():
        return [f"{name} is missing: the build declares the modules there"]
    declared = read_link_list(path)
    problems = []
    if [module for module, _ in declared] != list(order):
        problems.append(f"{name} declares the modules {' '.join(m for m, _ in declared)}; the "
                        f"table of engine/src/README.md has {' '.join(order)}")
    for module, uses in declared:
        if module not in order:
            continue
        for used in uses:
            if used not in order or order[used] >= order[module]:
                problems.append(f"{name}: {module} USES {used}, which is not below it in the table")
            elif used not in reads[module]:
                problems.append(f"{name}: {module} USES {used} but includes none of its headers")
        for read in sorted(reads[module] - set(uses), key=order.get):
            problems.append(f"{name}: {module} includes headers of {read} but does not list it "
                            "in USES, so it does not link it")
    return problems


def main(argv):
    root = pathlib.Path(argv[1])
    src = root / "engine" / "src"
    sdk = root / "plugins" / "sdk" / "include"
    rows = read_table(src / "README.md")
    order = {module: i for i, (module, _, _) in enumerate(rows)}
    exceptions = {module: set(allowed) for module, _, allowed in rows}
    public = {header: module for module, headers, _ in rows for header in headers}
    modules = {path.name for path in src.iterdir() if path.is_dir()}
    problems = []
    for folder in sorted(modules - set(order)):
        problems.append(f"engine/src/{folder}/ has no row in engine/src/README.md")
    for header in sorted((root / "engine" / "include" / "zeroforge").glob("*.hpp")):
        if header.name not in public:
            problems.append(f"zeroforge/{header.name} is named in no row of engine/src/README.md")

    # (file, its module, the name problems give it): engine/src's files, then the public headers.
    files = []
    for source in sorted(src.rglob("*")):
        if source.suffix not in (".cpp", ".hpp", ".inc") or not source.is_file():
            continue
        relative = source.relative_to(src)
        files.append((source, relative.parts[0] if len(relative.parts) > 1 else "core",
                      f"engine/src/{relative}"))
    for header in sorted((root / "engine" / "include" / "zeroforge").glob("*.hpp")):
        if header.name in public:
            files.append((header, public[header.name], f"engine/include/zeroforge/{header.name}"))

    used = set()
    reads = {module: set() for module in order}
    checked = 0
    for source, module, relative in files:
        text = source.read_text(encoding="utf-8")
        for include, quoted, line in includes(text):
            if include is None:
                problems.append(f"{relative}:{line}: an include of a macro cannot be checked: "
                                "name the header")
                continue
            target = module_of(include, quoted, source, src, modules, public)
            if target is None or target == module:
                continue
            checked += 1
            if target.startswith("?"):
                if not (sdk / include).exists():
                    problems.append(f"{relative}: {include} is named in no row")
                continue
            if order[target] < order[module]:
                reads[module].add(target)
                continue
            if include in exceptions[module]:
                used.add((module, include))
                continue
            problems.append(f"{relative} includes {include}: {module} may not include "
                            f"{target}, which is above it (engine/src/README.md)")
    for module, allowed in exceptions.items():
        for include in sorted(allowed):
            if (module, include) not in used:
                problems.append(f"{module}'s exception {include} is no longer used: remove it "
                                "from engine/src/README.md")
    problems += check_link_list(root / "engine" / "cmake" / "layers.cmake", order, reads)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"ok: {checked} includes across modules follow the {len(rows)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
