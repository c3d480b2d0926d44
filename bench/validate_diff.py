#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A check for speed work on the validator: two zeroforge builds must report the same findings.
# Mutates real configs (the golden ones, ../shared/peer-configs when present) with schema keys,
# "auto", wrong types, stages and offload blocks, and compares `zeroforge validate` (text and
# JSON, exit code) under several option sets, --hf, --strict and --against-args among them.
"""Usage: validate_diff.py OLD_ZEROFORGE NEW_ZEROFORGE [--n 6000] [--seed 1]"""
import argparse
import copy
import glob
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPTION_SETS = [
    [],
    ["--hf"],
    ["--world-size", "8"],
    ["--world-size", "1", "--strict"],
    ["--hf", "--world-size", "2", "--format", "text"],
    ["--hf", "--against-args",
     "deepspeed --num_gpus 4 train.py --per_device_train_batch_size 2 --gradient_accumulation_steps 4 "
     "--bf16 --warmup_steps 10 --learning_rate 1e-4 --max_grad_norm 1.0 --deepspeed other.json"],
    ["--against-args", "torchrun --nproc_per_node 2 train.py --fp16 --gradient_checkpointing --warmup_ratio 0.1"],
]

# Values that trip the rules: "auto", lax strings, floats where integers go, names of devices,
# optimizers and schedulers. Batch sizes stay small: without a world size the validator tries
# every world size up to train_batch_size.
SCALARS = ["auto", None, True, False, 0, 1, -1, 2, 3, 4, 8, 16, 1.5, 1000.0, 0.5, 2.0, "3", "yes", "off",
           "1e3", "12", "cpu", "nvme", "none", "sum", "mean", "fp16", "bf16", "WarmupLR", "WarmupDecayLR",
           "WarmupCosineLR", "OneCycle", "AdamW", "Adam", "lamb", "OneBitAdam", "SGD", "WARN", "x", "",
           "/local_nvme", 50257, 32000, 7, -0.5, 1e-8, 9.5e18, 1e20]


def schema_key_names():
    """Every key the schema data names (also removed and misplaced ones), plus some it does not."""
    with open(os.path.join(ROOT, "engine/src/deepspeed/deepspeed_schema.json")) as f:
        schema = json.load(f)
    names = {"_comment", "comms_config", "use_dynamic_tiling", "overlap_com", "tpye", "max_grad_norm",
             "lr", "betas", "warmup_num_steps", "total_num_steps", "warmup_max_lr", "a~b", "c/d"}

    def collect(node):
        if not isinstance(node, dict):
            return
        for key, child in node.get("keys", {}).items():
            names.add(key)
            collect(child)
        names.update(node.get("removed", {}))

    collect(schema["root"])
    for section in schema["sections"].values():
        collect(section)
    return sorted(names)


def random_value(rng, names, depth=0):
    x = rng.random()
    if depth < 3 and x < 0.12:
        return {rng.choice(names): random_value(rng, names, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 3 and x < 0.18:
        return [random_value(rng, names, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice(SCALARS)


def objects(node, out):
    if isinstance(node, dict):
        out.append(node)
        for value in node.values():
            objects(value, out)
    elif isinstance(node, list):
        for value in node:
            objects(value, out)
    return out


def mutate(rng, names, config):
    for _ in range(rng.randint(0, 6)):
        target = rng.choice(objects(config, []))
        op = rng.random()
        if op < 0.35:
            target[rng.choice(names)] = random_value(rng, names)
        elif op < 0.6 and target:
            target[rng.choice(list(target))] = random_value(rng, names)
        elif op < 0.7 and target:
            del target[rng.choice(list(target))]
        elif op < 0.8:
            config["zero_optimization"] = rng.choice(
                [True, False, {"stage": rng.choice([0, 1, 2, 3, "3", "auto", 1.0, 5, True])}])
        elif op < 0.9:
            section = config.setdefault(rng.choice(["fp16", "bf16", "bfloat16", "amp", "elasticity",
                                                    "progressive_layer_drop", "compile"]), {})
            if isinstance(section, dict):
                section["enabled"] = rng.choice([True, False, "auto"])
                for key in rng.sample(["loss_scale", "loss_scale_window", "min_loss_scale",
                                       "fp16_master_weights_and_grads", "bf16_master_weights_and_grads",
                                       "bf16_optimizer_states", "ignore_non_elastic_batch_info", "deepcompile"],
                                      rng.randint(0, 3)):
                    section[key] = rng.choice([True, False, 0, 1, -1, 0.0, "auto"])
        else:
            zero = config.setdefault("zero_optimization", {})
            if isinstance(zero, dict):
                block = zero[rng.choice(["offload_optimizer", "offload_param"])] = {
                    "device": rng.choice(["cpu", "nvme", "none", "auto"])}
                if rng.random() < 0.5:
                    block["nvme_path"] = rng.choice(["/nvme", "", None])
                if rng.random() < 0.3:
                    block["pin_memory"] = True
                if rng.random() < 0.3:
                    block["ratio"] = rng.choice([0.5, 1.0, 1])
                if rng.random() < 0.2:
                    zero[rng.choice(["cpu_offload", "cpu_offload_param", "cpu_offload_use_pin_memory"])] = True
    return config


def seed_configs():
    paths = (glob.glob(os.path.join(ROOT, "tests/golden/validate*/*/config.json"))
             + glob.glob(os.path.join(ROOT, "tests/golden/validate_valid/*.json"))
             + glob.glob(os.path.join(ROOT, "tests/golden/deepspeed/*/expected.json"))
             + glob.glob(os.path.join(ROOT, "../shared/peer-configs/**/*.json"), recursive=True))
    configs = []
    for path in sorted(paths):
        with open(path) as f:
            configs.append(json.load(f))
    return configs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--n", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names, seeds = schema_key_names(), seed_configs()
    with tempfile.TemporaryDirectory() as work:
        files = []
        for i in range(args.n):
            # Now and then a document that is not an object at all.
            if i % 97 == 0:
                config = rng.choice([[1], 3, "x", None])
            else:
                config = mutate(rng, names, copy.deepcopy(rng.choice(seeds)))
            files.append(os.path.join(work, f"c{i:05d}.json"))
            with open(files[-1], "w") as f:
                json.dump(config, f, indent=1)
        failed = False
        for options in OPTION_SETS:
            if "--format" not in options:
                options = ["--format", "json", *options]
            runs = [subprocess.run([binary, "validate", *files, *options], capture_output=True, text=True)
                    for binary in (args.old, args.new)]
            label = " ".join(options)
            old_out, new_out = (run.stdout.splitlines() + run.stderr.splitlines() for run in runs)
            if runs[0].returncode == runs[1].returncode and old_out == new_out:
                print(f"same: {label} ({len(old_out)} lines)")
                continue
            failed = True
            line = next((i for i, (a, b) in enumerate(zip(old_out, new_out)) if a != b),
                        min(len(old_out), len(new_out)))
            print(f"DIFFERENT: {label} (exit {runs[0].returncode} vs {runs[1].returncode}), line {line + 1}:\n"
                  f"  old: {old_out[line] if line < len(old_out) else '(end)'}\n"
                  f"  new: {new_out[line] if line < len(new_out) else '(end)'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
