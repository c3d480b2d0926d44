#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fits the step-time model's constants on the 'fit' points of published.json (docs/estimator.md,
"Step time", "The constants"): runs the built `zeroforge estimate --format json` per point with
`--step-constant KEY=VALUE` overrides, so the fit is of the real C++ model, and searches the
constants by coordinate descent over a grid, minimizing the sum of squared log errors of the fit
points. The 'held_out' points are never used by the search; it prints their error after it.

usage: tests/data/step-time/fit.py [--zeroforge build/bin/zeroforge] [--data published.json]
                                   [--evaluate]   (only print each point's error, no search)
                                   [--record]     (write each point's error, with the shipped
                                                   constants, into the data file's
                                                   model_error_percent: what the test holds)
Python 3 standard library only.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# The constants searched, each over a grid (the shipped default is where the search starts).
SEARCH = {
    "matmul_efficiency_at_ref": [x / 1000 for x in range(120, 401, 5)],
    "matmul_work_exponent": [x / 100 for x in range(10, 61, 1)],
    "matmul_efficiency_max": [x / 100 for x in range(40, 91, 1)],
    "cpu_adam_params_per_core_second": [x * 1e6 for x in range(10, 201, 5)],
}


COARSE = {
    "matmul_efficiency_at_ref": [0.15, 0.2, 0.25, 0.3, 0.35, 0.4],
    "matmul_work_exponent": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
    "matmul_efficiency_max": [0.5, 0.6, 0.7, 0.8, 0.9],
    "cpu_adam_params_per_core_second": [2.5e7, 5e7, 1e8],
}


def point_args(point):
    m, c, t = point["model"], point["config"], point["tier"]
    args = ["--layers", m["layers"], "--hidden", m["hidden"], "--heads", m["heads"],
            "--vocab", m["vocab"], "--seq-len", m["seq_len"],
            "--stage", c["stage"], "--offload-optimizer", c["offload_optimizer"],
            "--offload-param", c["offload_param"], "--precision", c["precision"],
            "--micro-batch-size", c["micro_batch_size"],
            "--gradient-accumulation-steps", c["gradient_accumulation_steps"],
            "--activation-checkpointing", c["activation_checkpointing"],
            "--gpus-per-node", t["gpus_per_node"], "--nodes", t["nodes"], "--gpu", t["gpu"]]
    for key in ("inter_node_gbs", "cpu_cores"):
        if key in t:
            args += ["--" + key.replace("_", "-"), t[key]]
    return [str(a) for a in args]


def error_percent(zeroforge, point, constants):
    """(predicted / measured - 1) x 100 of the point's published figure."""
    args = [zeroforge, "estimate", "--format", "json"] + point_args(point)
    for key, value in sorted(constants.items()):
        args += ["--step-constant", f"{key}={value!r}"]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"{point['name']}: zeroforge estimate failed: {run.stderr.strip()}")
    record = json.loads(run.stdout)
    step, inputs = record["step"], record["inputs"]
    if "measured_tflops_per_gpu" in point:
        return (step["tflops_per_gpu"] / point["measured_tflops_per_gpu"] - 1) * 100
    # From the step's seconds (printed to the microsecond), not the rounded samples_per_second.
    samples = (inputs["gradient_accumulation_steps"] * inputs["micro_batch_size"]
               * inputs["world_size"])
    return (samples / step["seconds"] / point["measured_samples_per_second"] - 1) * 100


def one_decimal(x):
    """Rounds half away from zero, as std::round in StepTimePublishedTest does."""
    return math.copysign(math.floor(abs(x) * 10 + 0.5) / 10, x)


def errors(pool, zeroforge, points, constants):
    return list(pool.map(lambda p: error_percent(zeroforge, p, constants), points))


def loss(errs):
    return sum(math.log(1 + e / 100) ** 2 for e in errs)


def report(title, points, errs):
    print(title)
    for point, err in zip(points, errs):
        print(f"  {point['name']:42s} {err:+7.1f}%")
    within = sum(abs(e) <= 25 for e in errs)
    worst = max(errs, key=abs)
    print(f"  within 25%: {within} of {len(errs)}; worst {worst:+.1f}%;"
          f" beyond 2x: {sum(e >= 100 or e <= -50 for e in errs)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zeroforge", default=os.path.join(ROOT, "build", "bin", "zeroforge"))
    parser.add_argument("--data", default=os.path.join(HERE, "published.json"))
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = json.load(open(args.data))
    points = data["points"]
    fit = [p for p in points if p["set"] == "fit"]
    held = [p for p in points if p["set"] == "held_out"]
    constants = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        if not args.evaluate:
            # A coarse grid over all four first (so the result does not depend on a starting
            # guess), then each round walks every constant over its fine grid, downhill.
            best = math.inf
            for a in COARSE["matmul_efficiency_at_ref"]:
                for b in COARSE["matmul_work_exponent"]:
                    for c in COARSE["matmul_efficiency_max"]:
                        for d in COARSE["cpu_adam_params_per_core_second"]:
                            trial = {"matmul_efficiency_at_ref": a, "matmul_work_exponent": b,
                                     "matmul_efficiency_max": c,
                                     "cpu_adam_params_per_core_second": d}
                            value = loss(errors(pool, args.zeroforge, fit, trial))
                            if value < best:
                                best, constants = value, trial
            for _ in range(args.rounds):
                for key, grid in SEARCH.items():
                    i = min(range(len(grid)), key=lambda j: abs(grid[j] - constants[key]))
                    for step in (1, -1):
                        j = i + step
                        while 0 <= j < len(grid):
                            trial = dict(constants, **{key: grid[j]})
                            value = loss(errors(pool, args.zeroforge, fit, trial))
                            if value >= best:
                                break
                            best, constants, i = value, trial, j
                            j += step
            print("fitted constants (sum of squared log errors on the fit set "
                  f"{best:.4f}):")
            for key, value in constants.items():
                print(f"  {key} = {value:g}")
        report("fit set:", fit, errors(pool, args.zeroforge, fit, constants))
        report("held-out set (not used by the fit):", held,
               errors(pool, args.zeroforge, held, constants))
        if args.record:
            # The shipped constants (no override), one decimal as StepTimePublishedTest rounds.
            for point, err in zip(points, errors(pool, args.zeroforge, points, {})):
                point["model_error_percent"] = one_decimal(err)
            with open(args.data, "w") as out:
                json.dump(data, out, indent=2)
                out.write("\n")
            print(f"recorded model_error_percent in {args.data}")


if __name__ == "__main__":
    main()
