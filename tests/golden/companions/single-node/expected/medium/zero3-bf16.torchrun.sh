#!/usr/bin/env bash
# golden-single-node: medium/zero3-bf16.json launched with torchrun, 1 node x 8 GPUs
# (world size 8; train batch 256 = micro batch 4 x accumulation 8 x 8; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cmd=(
  torchrun
  --standalone
  --nnodes 1
  --nproc_per_node 8
  'scripts/train llm.py'
  --model_name_or_path
  meta-llama/Llama-2-7b-hf
  --output_dir
  '$SCRATCH/runs/it'\''s mine'
  --deepspeed "$here"/zero3-bf16.json
  --per_device_train_batch_size 4
  --gradient_accumulation_steps 8
  --bf16
  --gradient_checkpointing
  --max_grad_norm 1.0
  --learning_rate 0.0002
  --adam_beta1 0.9
  --adam_beta2 0.95
  --adam_epsilon 1e-08
  --weight_decay 0.1
  --warmup_steps 100
  --max_steps 5000
)
if [[ -n "${ZEROFORGE_DRY_RUN:-}" ]]; then
  printf '%q ' "${cmd[@]}" "$@"
  printf '\n'
  exit 0
fi
exec "${cmd[@]}" "$@"
