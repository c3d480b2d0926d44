#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Inputs for the import benchmark (bench/import_bench.sh).

  import_inputs.py configs N DIR   N DeepSpeed configs in DIR (c00000.json ...) that are the same
                                   config except for the optimizer's learning rate
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


def main(argv):
    if len(argv) != 4 or argv[1] not in ("configs", "keys"):
        sys.exit(__doc__)
    n = int(argv[2])
    if argv[1] == "configs":
        os.makedirs(argv[3], exist_ok=True)
        for i in range(n):
            config = base()
            config["optimizer"]["params"]["lr"] = round(1e-5 * (i + 1), 10)
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
