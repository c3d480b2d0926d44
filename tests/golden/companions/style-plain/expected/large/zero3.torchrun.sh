#!/usr/bin/env bash
# golden-style-plain: large/zero3.json launched with torchrun, 8 nodes x 8 GPUs
# (world size 64; train batch 512 = micro batch 4 x accumulation 2 x 64; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ZEROFORGE_DS_CONFIG="$here"/zero3.json
# Run this script on each of the 8 nodes.
master_addr="${MASTER_ADDR:?set MASTER_ADDR to the address of the first node (or list the hosts in the site profile and regenerate)}"
rdzv_id="${RDZV_ID:-}"
[[ -n "$rdzv_id" ]] || rdzv_id=golden-style-plain-large-zero3
cmd=(
  torchrun
  --nnodes 8
  --nproc_per_node 8
  --rdzv_backend c10d
  --rdzv_endpoint "$master_addr:29500"
  --rdzv_id "$rdzv_id"
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
