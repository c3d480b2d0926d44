#!/usr/bin/env bash
# golden-style-accelerate: medium/zero2-accelerate.json launched with the DeepSpeed launcher, 1 node x 8 GPUs
# (world size 8; train batch 256 = micro batch 4 x accumulation 8 x 8; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ACCELERATE_DEEPSPEED_CONFIG_FILE="$here"/zero2-accelerate.json
export ACCELERATE_USE_DEEPSPEED=true
export ACCELERATE_MIXED_PRECISION=bf16
export ACCELERATE_DEEPSPEED_ZERO3_INIT=false
cmd=(
  deepspeed
  --num_nodes 1
  --num_gpus 8
  --master_port 29500
  train.py
  --output_dir
  /data/runs/llama
)
if [[ -n "${ZEROFORGE_DRY_RUN:-}" ]]; then
  printf '%q ' "${cmd[@]}" "$@"
  printf '\n'
  exit 0
fi
exec "${cmd[@]}" "$@"
