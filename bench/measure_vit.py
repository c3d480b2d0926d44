#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measures training steps of a ViT image classifier, for the estimator's vision guidance.

docs/estimator.md describes a vision transformer as the estimator's gelu block (patches and the
class token as the sequence, the classes as an untied vocabulary) and says the estimate is an
upper bound for it. This builds transformers' ViTForImageClassification from a config (random
weights, nothing downloaded) in bf16 on one GPU, trains it with measure_memory.py's
mixed-precision AdamW (16 bytes per parameter, ZeRO stage 0) on random 224x224 images and prints
one JSON line per micro batch: parameters, activation bytes of forward + backward, and the
step's peak allocated and reserved bytes.

    python3 bench/measure_vit.py --micro 64,128,256 > vit-base-16.jsonl
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_memory import MixedPrecisionAdamW, device_line  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--micro", default="64,128,256", help="micro batches, comma-separated")
    parser.add_argument("--attn", default="sdpa", choices=("sdpa", "eager"))
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    micros = [int(m) for m in args.micro.split(",")]

    import gc
    import torch
    from transformers import ViTConfig, ViTForImageClassification
    torch.backends.cuda.matmul.allow_tf32 = True
    print(json.dumps(device_line(args.device)), flush=True)
    config = ViTConfig(num_labels=1000)  # ViT-Base/16 at 224: the defaults
    with torch.device(args.device):
        model = ViTForImageClassification(config)
    model.to(torch.bfloat16)
    model.config._attn_implementation = args.attn
    model.train()
    optimizer = MixedPrecisionAdamW(model)
    params = sum(p.numel() for p in optimizer.params)

    def step(micro):
        optimizer.zero_grad()
        pixels = torch.randn(micro, 3, 224, 224, device=args.device, dtype=torch.bfloat16)
        labels = torch.randint(0, 1000, (micro,), device=args.device)
        start = torch.cuda.memory_allocated(args.device)
        torch.cuda.reset_peak_memory_stats(args.device)
        model(pixel_values=pixels, labels=labels).loss.backward()
        peak = torch.cuda.max_memory_allocated(args.device)
        del pixels, labels
        optimizer.step()
        torch.cuda.synchronize(args.device)
        return start, peak

    step(1)  # the AdamW states exist from here on
    for micro in micros:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(args.device)
        record = {"kind": "case", "model": "vit-base-16", "attn": args.attn, "micro": micro,
                  "seq": 197, "params": params}
        try:
            start, peak = step(micro)
            record.update(states_bytes=start, activations_bytes=peak - start,
                          step_peak_allocated=torch.cuda.max_memory_allocated(args.device),
                          step_peak_reserved=torch.cuda.max_memory_reserved(args.device),
                          oom=False)
        except torch.cuda.OutOfMemoryError:
            record["oom"] = True
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
