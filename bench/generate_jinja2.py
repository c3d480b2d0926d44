#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The Python Jinja2 side of bench/generate_bench.sh: produces the same configs as
# `zeroforge generate FAMILY -o DIR` the straightforward way: expand the axes, layer the values
# (template defaults < tier < family < variant), render the output path and the template with
# Jinja2 (StrictUndefined, compiled once), parse the JSON, re-dump it (indent 2) and write it.
"""Usage: generate_jinja2.py FAMILY.json TEMPLATES_DIR PRESETS_DIR OUT_DIR"""
import copy
import itertools
import json
import os
import sys

import jinja2


def merge(target, patch):
    for key, value in patch.items():
        if isinstance(value, dict) and value and isinstance(target.get(key), dict):
            merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target


def main():
    family_file, templates, presets, out = sys.argv[1:5]
    family = json.load(open(family_file))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), undefined=jinja2.StrictUndefined)
    template = env.get_template(family["template"])
    output_path = env.from_string(family["output"])
    directory = os.path.dirname(family["template"])
    defaults = json.load(open(os.path.join(templates, directory, "defaults.json")))
    base_values = merge(copy.deepcopy(defaults["values"]), defaults["templates"].get(family["template"], {}))
    axes = list(family["axes"].items())
    count = 0
    made = set()
    for tier in family["tiers"]:
        base = merge(merge(copy.deepcopy(base_values), json.load(open(os.path.join(presets, "tiers", tier + ".json")))),
                     family["values"])
        for choice in itertools.product(*(values for _, values in axes)):
            values = copy.deepcopy(base)
            for (key, _), value in zip(axes, choice):
                values[key] = value
            scope = dict(values, tier=tier, family=family["name"])
            path = os.path.join(out, output_path.render(scope))
            config = json.loads(template.render(values))
            parent = os.path.dirname(path)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            with open(path, "w") as f:
                f.write(json.dumps(config, indent=2) + "\n")
            count += 1
    print(f"jinja2 wrote {count} configs")


if __name__ == "__main__":
    main()
