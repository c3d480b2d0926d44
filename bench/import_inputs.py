#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Inputs for the import benchmark (bench/import_bench.sh).

  import_inputs.py configs N DIR   N DeepSpeed configs in DIR (c00000.json ...) that are the same
                                   config except for the optimizer's learning rate
  import_inputs.py varied N DIR    N DeepSpeed configs in DIR that vary as a team's checked-in
                                   configs do: ZeRO stage, precision, offload, micro batch,
                                   accumulation, clipping, optimizer, scheduler, learning rate,
                                   buckets (shapes of tests/data/peer-configs; the same N give the
                                   same files)
  import_inputs.py keys K FILE     one DeepSpeed config with K keys of its own at the top level
                                   (keys DeepSpeed does not read: import carries them in extra)
"""
import json
import os
import sys


def base():
    return {
        "train_micro_batch_size_per_gpu": 4,
        "gradient_accumulation_steps": 2,
        "gradient_clipping": 1.0,
        "bf16": {"enabled": True},
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "weight_decay": 0.01}},
        "zero_optimization": {"stage": 3, "overlap_comm": True, "contiguous_gradients": True,
                              "reduce_bucket_size": 500000000},
    }


def varied(i):
    """The i-th config of the varied set: each axis cycles with its own period, so neighbours
    differ in several keys and no two of the first N share every value."""
    stage = (0, 1, 2, 3)[i % 4]
    config = {
        "train_micro_batch_size_per_gpu": (1, 2, 4, 8, 16)[i % 5],
        "gradient_accumulation_steps": (1, 2, 4, 8, 16, 32, 64)[i % 7],
        "gradient_clipping": (1.0, 0.5, 0.3)[i % 3],
        "steps_per_print": (10, 100, 2000)[i % 3],
        "wall_clock_breakdown": False,
        "zero_optimization": {"stage": stage},
    }
    precision = ("bf16", "fp16", "fp32")[i % 3]
    if precision == "bf16":
        config["bf16"] = {"enabled": True}
    elif precision == "fp16":
        config["fp16"] = {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000,
                          "initial_scale_power": (16, 12)[i % 2], "hysteresis": 2,
                          "min_loss_scale": 1}
    optimizer = ("AdamW", "Adam")[i % 2] if stage else ("AdamW", "Adam", "Lamb")[i % 3]
    config["optimizer"] = {"type": optimizer,
                           "params": {"lr": round(1e-5 * (1 + i % 97), 10),
                                      "betas": [0.9, (0.95, 0.999)[i % 2]], "eps": 1e-8,
                                      "weight_decay": (0.0, 0.01, 0.1)[i % 3]}}
    if i % 2 == 0:
        config["scheduler"] = {"type": "WarmupLR",
                               "params": {"warmup_min_lr": 0,
                                          "warmup_max_lr": config["optimizer"]["params"]["lr"],
                                          "warmup_num_steps": 100 * (1 + i % 11)}}
    else:
        config["scheduler"] = {"type": "WarmupDecayLR",
                               "params": {"warmup_min_lr": 0, "warmup_max_lr": 3e-4,
                                          "warmup_num_steps": 500, "total_num_steps": 10000 * (1 + i % 13)}}
    zero = config["zero_optimization"]
    if stage >= 1:
        zero.update({"overlap_comm": bool(i % 2), "contiguous_gradients": True,
                     "reduce_bucket_size": (200000000, 500000000, 50000000)[i % 3]})
    if stage == 2:
        zero.update({"allgather_partitions": True, "allgather_bucket_size": (200000000, 500000000)[i % 2],
                     "reduce_scatter": True})
    if stage == 3:
        zero.update({"sub_group_size": 1e9, "stage3_prefetch_bucket_size": 50000000 * (1 + i % 5),
                     "stage3_param_persistence_threshold": 100000 * (1 + i % 3),
                     "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
                     "stage3_gather_16bit_weights_on_model_save": True})
    if stage >= 2 and i % 5 == 0:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if stage == 3 and i % 10 == 3:
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    return config


def main(argv):
    if len(argv) != 4 or argv[1] not in ("configs", "varied", "keys"):
        sys.exit(__doc__)
    n = int(argv[2])
    if argv[1] in ("configs", "varied"):
        os.makedirs(argv[3], exist_ok=True)
        for i in range(n):
            if argv[1] == "configs":
                config = base()
                config["optimizer"]["params"]["lr"] = round(1e-5 * (i + 1), 10)
            else:
                config = varied(i)
            with open(os.path.join(argv[3], "c%05d.json" % i), "w") as out:
                json.dump(config, out, indent=2)
    else:
        config = base()
        for i in range(n):
            config["custom_%07d" % i] = i
        with open(argv[3], "w") as out:
            json.dump(config, out, indent=1)


if __name__ == "__main__":
    main(sys.argv)
