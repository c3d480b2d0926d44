#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the generate benchmark's family: the built-in DeepSpeed template on the medium tier,
# stage x precision x micro batch x accumulation, N configs (N a multiple of 200).
"""Usage: generate_family.py N OUT.json"""
import json
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
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
    with open(out, "w") as f:
        json.dump(family, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
