#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The Python baseline of bench/render_bench.cpp: the same template, compiled once, rendered with
# Jinja2 (StrictUndefined) over the same N value sets; prints per-render microseconds.
"""Usage: jinja2_render.py [--data DIR] [--n N] [--runs R]

Prints `jinja2 per-render-us MEDIAN`, the runs, and `checksum` (FNV-1a 64 over every output of
one pass); render_bench.cpp prints the same checksum when both engines render identical text.
"""
import argparse
import json
import pathlib
import statistics
import sys
import time

import jinja2

PRECISIONS = ["bf16", "fp16", "fp32"]
OFFLOADS = ["none", "cpu", "nvme"]
GPUS = [1, 2, 4, 8]


def value_set(i):
    """Value set number i; render_bench.cpp's value_set() builds exactly the same one."""
    v = {
        "stage": i % 4,
        "precision": PRECISIONS[i // 4 % 3],
        "offload_optimizer": OFFLOADS[i // 12 % 3],
        "offload_param": OFFLOADS[i // 36 % 3],
        "nvme_path": f"/local_nvme/job{i}",
        "micro_batch_size": 1 << (i % 5),
        "gradient_accumulation": 1 + i % 8,
        "gpus_per_node": GPUS[i // 5 % 4],
        "nodes": 1 + i % 16,
        "hf_auto": i % 7 == 0,
        "activation_checkpointing": i % 5 == 0,
        "num_layers": 24 + i % 3 * 8,
        "comms_logger": i % 9 == 0,
        "flops_profiler": i % 11 == 0,
        "job_name": f"run-{i}",
    }
    if i % 2 == 1:
        v["gradient_clipping"] = 1.0
    if i % 3 != 0:
        v["optimizer"] = {"type": "AdamW", "lr": 1e-4 * (1 + i % 10), "weight_decay": 0.01}
    if i % 4 == 1:
        v["scheduler"] = {"type": "WarmupDecayLR", "total_num_steps": 1000 * (1 + i % 50),
                          "warmup_num_steps": 100}
    if i % 6 == 0:
        v["monitors"] = {"tensorboard": {"output_path": f"/logs/tb/{i}"}}
    return v


def fnv1a(data, h=0xCBF29CE484222325):
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(pathlib.Path(__file__).parent / "data"))
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(args.data),
                             undefined=jinja2.StrictUndefined)
    template = env.get_template("deepspeed.json.j2")
    value_sets = [value_set(i) for i in range(args.n)]

    checksum = 0xCBF29CE484222325
    for values in value_sets:  # warm-up pass, also checks every output is JSON
        text = template.render(values)
        json.loads(text)
        checksum = fnv1a(text.encode(), checksum)

    runs = []
    for _ in range(args.runs):
        start = time.perf_counter()
        for values in value_sets:
            template.render(values)
        runs.append((time.perf_counter() - start) / args.n * 1e6)
    print(f"jinja2 per-render-us {statistics.median(runs):.3f}")
    print("jinja2 runs-us " + " ".join(f"{r:.3f}" for r in runs))
    print(f"jinja2 checksum {checksum:016x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
