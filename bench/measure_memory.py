#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measures the GPU memory of real training steps, for checking zeroforge's memory model.

Each case builds a GPT-2- or Llama-style causal LM from a transformers config with random
weights (nothing is downloaded) in bf16 on one GPU, trains it with mixed-precision AdamW the
way the ZeRO paper counts it (bf16 weights and gradients, an fp32 master copy with AdamW's fp32
momentum and variance: 16 bytes per parameter; ZeRO stage 0, world size 1) and records one step
at a given sequence length and micro batch. The output is JSON lines in the format of
tests/plugins/memory/gpu_memory/*.jsonl: a "device" line, then one "case" line per step.

Micro batches of one shape are tried in increasing order; the first that runs out of memory is
recorded with "oom": true and the larger ones are skipped.

--help and --dry-run need only the Python standard library: torch and transformers are imported
when a measurement starts.

    python3 bench/measure_memory.py --dry-run --model gpt2 --seq 1024 --micro 1,2,4
    python3 bench/measure_memory.py --model gpt2 --model llama-1b --out h100.jsonl \\
        --shapes-out shapes.json
    python3 bench/measure_memory.py --out mine.jsonl \\
        --model 'mini:mlp=swiglu,layers=4,hidden=512,heads=8,kv_heads=2,intermediate_size=1408,vocab=32000'
"""
import argparse
import json
import os
import sys

# Shape keys, as in presets/models/*.json and tests/plugins/memory/gpu_memory/shapes.json.
INTEGER_KEYS = ("layers", "hidden", "heads", "kv_heads", "intermediate_size", "vocab",
                "positions")
SHAPE_KEYS = INTEGER_KEYS + ("mlp", "tied_embeddings")

# The two shapes of the recorded H100 steps (shapes.json), by name.
BUILTIN_SHAPES = {
    "gpt2": {"mlp": "gelu", "layers": 12, "hidden": 768, "heads": 12, "vocab": 50257,
             "intermediate_size": 3072, "tied_embeddings": True, "positions": 4096},
    "llama-1b": {"mlp": "swiglu", "layers": 22, "hidden": 2048, "heads": 32, "kv_heads": 4,
                 "vocab": 32000, "intermediate_size": 5632, "tied_embeddings": False},
}

ATTENTIONS = ("eager", "sdpa")
CHECKPOINTING = ("none", "full")


class UsageError(Exception):
    """A command line or shape that cannot be measured; main() prints it and exits 2."""


def parse_bool(text, where):
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise UsageError(f"{where}: expected true or false, got {text!r}")


def complete_shape(name, shape):
    """Checks a shape and fills the defaults of zeroforge estimate (docs/estimator.md)."""
    shape = dict(shape)
    unknown = sorted(set(shape) - set(SHAPE_KEYS))
    if unknown:
        raise UsageError(f"model {name}: unknown key {unknown[0]!r} (known: "
                         f"{', '.join(SHAPE_KEYS)})")
    shape.setdefault("mlp", "gelu")
    if shape["mlp"] not in ("gelu", "swiglu"):
        raise UsageError(f"model {name}: mlp must be gelu or swiglu, got {shape['mlp']!r}")
    for key in ("layers", "hidden", "heads", "vocab"):
        if key not in shape:
            raise UsageError(f"model {name}: {key} is required")
    shape.setdefault("kv_heads", shape["heads"])
    shape.setdefault("intermediate_size", 4 * shape["hidden"])
    shape.setdefault("tied_embeddings", shape["mlp"] == "gelu")
    for key in INTEGER_KEYS:
        value = shape.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < (0 if key == "positions" else 1)):
            raise UsageError(f"model {name}: {key} must be a positive integer, got {value!r}")
    if shape["hidden"] % shape["heads"]:
        raise UsageError(f"model {name}: hidden {shape['hidden']} is not a multiple of heads "
                         f"{shape['heads']}")
    if shape["heads"] % shape["kv_heads"]:
        raise UsageError(f"model {name}: heads {shape['heads']} is not a multiple of kv_heads "
                         f"{shape['kv_heads']}")
    if shape["mlp"] == "gelu" and shape["kv_heads"] != shape["heads"]:
        raise UsageError(f"model {name}: GPT-2's block has no GQA (kv_heads must equal heads)")
    if shape["mlp"] == "swiglu" and shape.get("positions"):
        raise UsageError(f"model {name}: a Llama-style block has no learned positions (RoPE)")
    return shape


def parse_model(spec):
    """NAME (a built-in shape), FILE.json (a presets/models file) or NAME:KEY=VALUE,..."""
    if spec in BUILTIN_SHAPES:
        return spec, complete_shape(spec, BUILTIN_SHAPES[spec])
    if spec.endswith(".json") and ":" not in spec:
        try:
            with open(spec, encoding="utf-8") as file:
                data = json.load(file)
        except (OSError, ValueError) as error:
            raise UsageError(f"model {spec}: {error}") from None
        name = data.get("name") or os.path.splitext(os.path.basename(spec))[0]
        return name, complete_shape(name, {k: v for k, v in data.items() if k in SHAPE_KEYS})
    name, colon, fields = spec.partition(":")
    if not colon or not name:
        raise UsageError(f"--model {spec!r}: expected one of {', '.join(BUILTIN_SHAPES)}, a "
                         "presets/models file (.json) or NAME:KEY=VALUE,...")
    shape = {}
    for field in filter(None, fields.split(",")):
        key, equals, value = field.partition("=")
        if not equals:
            raise UsageError(f"model {name}: expected KEY=VALUE, got {field!r}")
        if key in INTEGER_KEYS:
            try:
                shape[key] = int(value)
            except ValueError:
                raise UsageError(f"model {name}: {key} must be an integer, got {value!r}") from None
        elif key == "tied_embeddings":
            shape[key] = parse_bool(value, f"model {name}: tied_embeddings")
        else:
            shape[key] = value
    return name, complete_shape(name, shape)


def integer_list(text, what):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--{what}: expected comma-separated integers, got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise UsageError(f"--{what}: expected positive integers, got {text!r}")
    return sorted(set(values))


def choice_list(text, what, allowed):
    values = [v for v in text.split(",") if v]
    for value in values:
        if value not in allowed:
            raise UsageError(f"--{what}: {value!r} is not one of {', '.join(allowed)}")
    if not values:
        raise UsageError(f"--{what}: empty")
    return list(dict.fromkeys(values))


def plan(args):
    """The cases in measuring order: model, attention, checkpointing, sequence, micro batch."""
    models = [parse_model(spec) for spec in (args.model or ["gpt2", "llama-1b"])]
    names = [name for name, _ in models]
    if len(set(names)) != len(names):
        raise UsageError("two --model options have the same name")
    seqs = integer_list(args.seq, "seq")
    micros = integer_list(args.micro, "micro")
    attentions = choice_list(args.attention, "attention", ATTENTIONS)
    checkpointing = choice_list(args.checkpointing, "checkpointing", CHECKPOINTING)
    for name, shape in models:
        if shape["mlp"] == "gelu":
            shape.setdefault("positions", max(seqs))
            if shape["positions"] < max(seqs):
                raise UsageError(f"model {name}: positions {shape['positions']} is shorter than "
                                 f"--seq {max(seqs)}")
    cases = []
    for name, shape in models:
        for attn in attentions:
            for ckpt in checkpointing:
                for seq in seqs:
                    for micro in micros:
                        cases.append({"model": name, "attn": attn, "ckpt": ckpt, "seq": seq,
                                      "micro": micro})
    return models, cases


def shapes_json(models, seq):
    """The models in the format of tests/plugins/memory/gpu_memory/shapes.json."""
    out = {}
    for name, shape in models:
        entry = {key: shape[key] for key in SHAPE_KEYS if key in shape}
        entry["seq_len"] = seq
        out[name] = entry
    return out


# ---- measuring (torch and transformers from here on) ----

def transformers_config(shape, max_seq):
    from transformers import GPT2Config, LlamaConfig
    if shape["mlp"] == "gelu":
        return GPT2Config(n_layer=shape["layers"], n_embd=shape["hidden"], n_head=shape["heads"],
                          n_inner=shape["intermediate_size"], vocab_size=shape["vocab"],
                          n_positions=shape["positions"],
                          tie_word_embeddings=shape["tied_embeddings"], resid_pdrop=0.0,
                          embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    return LlamaConfig(num_hidden_layers=shape["layers"], hidden_size=shape["hidden"],
                       num_attention_heads=shape["heads"], num_key_value_heads=shape["kv_heads"],
                       intermediate_size=shape["intermediate_size"], vocab_size=shape["vocab"],
                       max_position_embeddings=max_seq,
                       tie_word_embeddings=shape["tied_embeddings"], attention_dropout=0.0,
                       use_cache=False)


class MixedPrecisionAdamW:
    """bf16 model weights and gradients; AdamW steps on fp32 master copies (16 bytes/param).

    The bf16 gradients stay allocated between steps (zeroed in place), as a training loop's
    do; at the step each is copied to a transient fp32 gradient of its master.
    """

    def __init__(self, model):
        import torch
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.masters = [p.detach().float().clone() for p in self.params]
        for master in self.masters:
            master.requires_grad_(True)
        self.optimizer = torch.optim.AdamW(self.masters, lr=1e-5, foreach=False)
        for p in self.params:
            p.grad = torch.zeros_like(p)

    def zero_grad(self):
        for p in self.params:
            p.grad.zero_()

    def step(self):
        import torch
        for master, p in zip(self.masters, self.params):
            master.grad = p.grad.to(torch.float32)
        self.optimizer.step()
        with torch.no_grad():
            for master, p in zip(self.masters, self.params):
                master.grad = None
                p.copy_(master)


def build(shape, attn, ckpt, max_seq, device):
    import torch
    from transformers import AutoModelForCausalLM
    config = transformers_config(shape, max_seq)
    with torch.device(device):
        # Built in bf16 directly (no fp32 copy on the GPU); transformers 4.56+ and 5.x take
        # `dtype`, older releases `torch_dtype`.
        try:
            model = AutoModelForCausalLM.from_config(config, attn_implementation=attn,
                                                     dtype=torch.bfloat16)
        except TypeError:
            model = AutoModelForCausalLM.from_config(config, attn_implementation=attn,
                                                     torch_dtype=torch.bfloat16)
    if any(p.dtype != torch.bfloat16 for p in model.parameters()):
        model.to(torch.bfloat16)
    model.train()
    if ckpt == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return model, config


def train_step(model, optimizer, micro, seq, vocab, device):
    """One step; returns (allocated before the forward, peak allocated by forward + backward)."""
    import torch
    optimizer.zero_grad()
    ids = torch.randint(0, vocab, (micro, seq), device=device)
    start = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    model(input_ids=ids, labels=ids).loss.backward()
    forward_backward_peak = torch.cuda.max_memory_allocated(device)
    del ids
    optimizer.step()
    torch.cuda.synchronize(device)
    return start, forward_backward_peak


def device_line(device):
    """The GPU and the memory outside PyTorch's allocator after start-up (context_bytes)."""
    import torch
    import transformers
    torch.cuda.init()
    probe = torch.ones(1, device=device)  # creates the context and the allocator's first block
    torch.cuda.synchronize(device)
    free, total = torch.cuda.mem_get_info(device)
    context = (total - free) - torch.cuda.memory_reserved(device)
    del probe
    return {"kind": "device", "device": torch.cuda.get_device_name(device), "total_bytes": total,
            "context_bytes": context, "torch": torch.__version__,
            "transformers": transformers.__version__}


def measure(models, cases, out, device):
    import gc
    import torch
    out_of_memory = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)
    torch.backends.cuda.matmul.allow_tf32 = True
    out.write(json.dumps(device_line(device)) + "\n")
    out.flush()
    shapes = dict(models)
    max_seq = max(case["seq"] for case in cases)
    done_after_oom = set()
    current = None  # (model, attn, ckpt) whose model is built
    model = optimizer = config = None
    warmed = False
    for case in cases:
        group = (case["model"], case["attn"], case["ckpt"])
        if group + (case["seq"],) in done_after_oom:
            continue
        if group != current:
            model = optimizer = None
            gc.collect()
            torch.cuda.empty_cache()
            model, config = build(shapes[case["model"]], case["attn"], case["ckpt"], max_seq,
                                  device)
            optimizer = MixedPrecisionAdamW(model)
            current = group
            warmed = False
        n_params = sum(p.numel() for p in optimizer.params)
        record = dict(kind="case", **case)
        try:
            if not warmed:
                train_step(model, optimizer, 1, min(128, case["seq"]), config.vocab_size, device)
                warmed = True  # the AdamW states exist from here on
            gc.collect()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(device)
            states = torch.cuda.memory_allocated(device)
            start, peak = train_step(model, optimizer, case["micro"], case["seq"],
                                     config.vocab_size, device)
            record.update(params=n_params, states_bytes=states, activations_bytes=peak - start,
                          step_peak_allocated=torch.cuda.max_memory_allocated(device),
                          step_peak_reserved=torch.cuda.max_memory_reserved(device), oom=False,
                          attn_used=getattr(model.config, "_attn_implementation", None))
        except out_of_memory:
            record.update(params=n_params, oom=True)
            for master in optimizer.masters:  # a step that failed half-way
                master.grad = None
            done_after_oom.add(group + (case["seq"],))
        gc.collect()
        torch.cuda.empty_cache()
        out.write(json.dumps(record) + "\n")
        out.flush()
        print(json.dumps(record), file=sys.stderr, flush=True)


def arguments():
    parser = argparse.ArgumentParser(
        prog="measure_memory.py",
        description="Measures the GPU memory of real training steps (random weights, no "
        "downloads) as JSON lines in the format of tests/plugins/memory/gpu_memory/*.jsonl.",
        epilog="--model: a built-in shape (" + ", ".join(BUILTIN_SHAPES) + "), a "
        "presets/models/*.json file, or NAME:KEY=VALUE,... with the keys of presets/models "
        "(" + ", ".join(SHAPE_KEYS) + "); mlp=gelu is GPT-2's block, mlp=swiglu Llama's "
        "(GQA with kv_heads < heads). Repeatable; default: gpt2 and llama-1b.")
    parser.add_argument("--model", action="append", metavar="SHAPE",
                        help="a model shape to measure (repeatable)")
    parser.add_argument("--seq", default="1024,2048", help="sequence lengths (default 1024,2048)")
    parser.add_argument("--micro", default="1,2,4,8,16,32",
                        help="micro batches, tried in increasing order until the first "
                        "out-of-memory (default 1,2,4,8,16,32)")
    parser.add_argument("--attention", default="eager,sdpa",
                        help="attn_implementation values: eager, sdpa (default both)")
    parser.add_argument("--checkpointing", default="none,full",
                        help="activation checkpointing: none, full (default both)")
    parser.add_argument("--device", default="cuda:0", help="the GPU (default cuda:0)")
    parser.add_argument("--out", default="-",
                        help="the JSON lines file to write (default: standard output)")
    parser.add_argument("--shapes-out", metavar="FILE",
                        help="also write the models as a shapes.json for the accuracy tests")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the planned cases as JSON lines and exit; needs no GPU, "
                        "torch or transformers")
    return parser


def main(argv=None):
    args = arguments().parse_args(argv)
    try:
        models, cases = plan(args)
    except UsageError as error:
        print(f"measure_memory.py: error: {error}", file=sys.stderr)
        return 2
    seq_len = min(case["seq"] for case in cases)
    if args.shapes_out:
        with open(args.shapes_out, "w", encoding="utf-8") as file:
            json.dump(shapes_json(models, seq_len), file, indent=2)
            file.write("\n")
    if args.dry_run:
        shapes = dict(models)
        for case in cases:
            print(json.dumps(dict(kind="planned", **case, shape=shapes[case["model"]])))
        print(f"{len(cases)} cases planned over {len(models)} model(s); micro batches above "
              "the first out-of-memory of a shape and sequence are skipped", file=sys.stderr)
        return 0
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        measure(models, cases, out, args.device)
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
