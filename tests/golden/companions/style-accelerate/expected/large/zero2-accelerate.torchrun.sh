#!/usr/bin/env bash
# golden-style-accelerate: large/zero2-accelerate.json launched with torchrun, 8 nodes x 8 GPUs
# (world size 64; train batch 256 = micro batch 4 x accumulation 1 x 64; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ACCELERATE_DEEPSPEED_CONFIG_FILE="$here"/zero2-accelerate.json
export ACCELERATE_USE_DEEPSPEED=true
export ACCELERATE_MIXED_PRECISION=bf16
export ACCELERATE_DEEPSPEED_ZERO3_INIT=false
# Run this script on each of the 8 nodes.
master_addr="${MASTER_ADDR:?set MASTER_ADDR to the address of the first node (or list the hosts in the site profile and regenerate)}"
rdzv_id="${RDZV_ID:-}"
[[ -n "$rdzv_id" ]] || rdzv_id=golden-style-accelerate-large-zero2-accelerate
cmd=(
  torchrun
  --nnodes 8
  --nproc_per_node 8
  --rdzv_backend c10d
  --rdzv_endpoint "$master_addr:29500"
  --rdzv_id "$rdzv_id"
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
