#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/measure_memory.py without a GPU: --help and --dry-run work with torch and transformers
unimportable, the plan is the cartesian product in measuring order, shapes.json comes out in
the accuracy tests' format, and bad shapes are refused (exit 2).
Usage: measure_memory_test.py SOURCE_DIR"""
import importlib.abc
import io
import json
import os
import subprocess
import sys
import tempfile
import contextlib

SOURCE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
SCRIPT = os.path.join(SOURCE, "bench", "measure_memory.py")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


class NoGpuStack(importlib.abc.MetaPathFinder):
    """Makes torch and transformers unimportable, as on CI, even where they are installed."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ImportError(f"{name} is not available in this test")
        return None


def run_in_process(argv):
    sys.meta_path.insert(0, NoGpuStack())
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import measure_memory
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = measure_memory.main(argv)
            except SystemExit as exit_:
                code = exit_.code
        return code, out.getvalue(), err.getvalue()
    finally:
        sys.meta_path.pop(0)
        sys.path.pop(0)


# --help names the options.
code, out, _ = run_in_process(["--help"])
check(code == 0 and "--dry-run" in out and "--model" in out, f"--help: {code} {out!r}")

# The plan: model x attention x checkpointing x seq x micro, in that order.
with tempfile.TemporaryDirectory() as tmp:
    shapes_file = os.path.join(tmp, "shapes.json")
    code, out, err = run_in_process([
        "--dry-run", "--model", "gpt2",
        "--model", "mini:mlp=swiglu,layers=2,hidden=256,heads=8,kv_heads=2,vocab=1000",
        "--seq", "256,128", "--micro", "2,1", "--attention", "eager,sdpa",
        "--checkpointing", "full", "--shapes-out", shapes_file])
    check(code == 0, f"--dry-run exited {code}: {err}")
    lines = [json.loads(line) for line in out.splitlines()]
    check(len(lines) == 2 * 2 * 1 * 2 * 2, f"{len(lines)} planned cases, expected 16")
    check(lines[0] == {"kind": "planned", "model": "gpt2", "attn": "eager", "ckpt": "full",
                       "seq": 128, "micro": 1, "shape": lines[0]["shape"]},
          f"first case: {lines[0]}")
    check([(l["model"], l["attn"], l["seq"], l["micro"]) for l in lines[:5]] ==
          [("gpt2", "eager", 128, 1), ("gpt2", "eager", 128, 2), ("gpt2", "eager", 256, 1),
           ("gpt2", "eager", 256, 2), ("gpt2", "sdpa", 128, 1)], "measuring order")
    mini = lines[-1]["shape"]
    check(mini["kv_heads"] == 2 and mini["intermediate_size"] == 1024 and
          mini["tied_embeddings"] is False, f"swiglu defaults: {mini}")
    check("16 cases planned over 2 model(s)" in err, f"summary: {err!r}")
    shapes = json.load(open(shapes_file))
    check(shapes["gpt2"] == {"layers": 12, "hidden": 768, "heads": 12, "kv_heads": 12,
                             "intermediate_size": 3072, "vocab": 50257, "positions": 4096,
                             "mlp": "gelu", "tied_embeddings": True, "seq_len": 128},
          f"shapes.json gpt2: {shapes['gpt2']}")
    # The built-in shapes are the recorded ones (tests/plugins/memory/gpu_memory/shapes.json).
    recorded = json.load(open(os.path.join(SOURCE, "tests/plugins/memory/gpu_memory/shapes.json")))
    for name in ("gpt2",):
        check({k: v for k, v in shapes[name].items() if k != "seq_len"} ==
              {k: v for k, v in recorded[name].items() if k not in ("seq_len", "kv_heads")}
              | {"kv_heads": 12}, f"{name} differs from the recorded shape")

# Bad shapes and options: exit 2 with the reason.
for argv, message in [
        (["--model", "x:mlp=gelu,layers=2,hidden=100,heads=3,vocab=5"],
         "hidden 100 is not a multiple of heads 3"),
        (["--model", "x:mlp=gelu,layers=2,hidden=96,heads=4,kv_heads=2,vocab=5"],
         "GPT-2's block has no GQA"),
        (["--model", "x:layers=2,hidden=64,heads=4"], "vocab is required"),
        (["--model", "x:layers=2,hidden=64,heads=4,vocab=9,bias=true"], "unknown key 'bias'"),
        (["--model", "nope"], "expected one of gpt2, llama-1b"),
        (["--model", "gpt2", "--micro", "0"], "--micro: expected positive integers"),
        (["--model", "gpt2", "--attention", "flash"], "'flash' is not one of eager, sdpa"),
        (["--model", "gpt2:layers=1,hidden=64,heads=4,vocab=9,positions=64", "--seq", "128"],
         "positions 64 is shorter than --seq 128")]:
    code, out, err = run_in_process(["--dry-run"] + argv)
    check(code == 2 and message in err, f"{argv}: exit {code}, {err!r}")

# As a program: the dry run runs where torch is missing.
result = subprocess.run([sys.executable, SCRIPT, "--dry-run", "--model", "llama-1b", "--seq",
                         "2048", "--micro", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
check(result.returncode == 0 and len(result.stdout.splitlines()) == 4,
      f"subprocess dry run: {result.returncode} {result.stdout!r} {result.stderr!r}")

# bench/measure_vit.py (docs/estimator.md's ViT steps) answers --help without torch too.
vit = subprocess.run([sys.executable, os.path.join(SOURCE, "bench", "measure_vit.py"), "--help"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(vit.returncode == 0 and "--micro" in vit.stdout,
      f"measure_vit.py --help: {vit.returncode} {vit.stdout!r} {vit.stderr!r}")

for failure in failures:
    print("FAIL:", failure)
print(f"measure_memory: {'failed' if failures else 'passed'}")
sys.exit(1 if failures else 0)
