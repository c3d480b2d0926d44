#!/usr/bin/env bash
# golden-style-deepspeed: medium/zero3.json launched with the DeepSpeed launcher, 1 node x 8 GPUs
# (world size 8; train batch 512 = micro batch 4 x accumulation 16 x 8; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export NCCL_DEBUG=WARN
cmd=(
  deepspeed
  --num_nodes 1
  --num_gpus 8
  --master_port 29500
  train.py
  --deepspeed
  --deepspeed_config "$here"/zero3.json
  --output_dir
  /data/runs/llama
)
if [[ -n "${ZEROFORGE_DRY_RUN:-}" ]]; then
  printf '%q ' "${cmd[@]}" "$@"
  printf '\n'
  exit 0
fi
exec "${cmd[@]}" "$@"
