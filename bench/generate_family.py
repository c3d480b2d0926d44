#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the generate benchmark's family: the built-in DeepSpeed template on the medium tier,
# stage x precision x micro batch x accumulation, N configs (N a multiple of 200). With
# --include, the same N configs as N explicit `include` entries (no axes), as pipelines that
# list one entry per experiment write them.
"""Usage: generate_family.py [--include] N OUT.json"""
import itertools
import json
import sys


def main():
    args = sys.argv[1:]
    explicit = args[:1] == ["--include"]
    if explicit:
        args = args[1:]
    n, out = int(args[0]), args[1]
    if n % 200 != 0 or n <= 0:
        sys.exit("generate_family.py: N must be a positive multiple of 200")
    family = {
        "name": f"bench-{n}",
        "description": f"{n} DeepSpeed configs for bench/generate_bench.sh",
        "template": "deepspeed/config.json.j2",
        "values": {"offload_optimizer": "none"},
        "axes": {
            "stage": [0, 1, 2, 3],
            "precision": ["bf16", "fp16"],
            "micro_batch_size": list(range(1, 26)),
            "gradient_accumulation": list(range(1, n // 200 + 1)),
        },
        "tiers": ["medium"],
        "output": "{{ tier }}/zero{{ stage }}/{{ precision }}/m{{ micro_batch_size }}-a{{ gradient_accumulation }}.json",
    }
    if explicit:
        keys = list(family["axes"])
        family["include"] = [dict(zip(keys, choice)) for choice in itertools.product(*family.pop("axes").values())]
        family["name"] = f"bench-include-{n}"
    with open(out, "w") as f:
        json.dump(family, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
