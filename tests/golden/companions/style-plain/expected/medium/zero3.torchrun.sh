#!/usr/bin/env bash
# golden-style-plain: medium/zero3.json launched with torchrun, 1 node x 8 GPUs
# (world size 8; train batch 512 = micro batch 4 x accumulation 16 x 8; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ZEROFORGE_DS_CONFIG="$here"/zero3.json
cmd=(
  torchrun
  --standalone
  --nnodes 1
  --nproc_per_node 8
  --no_python
  scripts/train.sh
  --deepspeed_config "$here"/zero3.json
  --epochs
  3
)
if [[ -n "${ZEROFORGE_DRY_RUN:-}" ]]; then
  printf '%q ' "${cmd[@]}" "$@"
  printf '\n'
  exit 0
fi
exec "${cmd[@]}" "$@"
