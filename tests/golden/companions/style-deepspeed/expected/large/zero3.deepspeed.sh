#!/usr/bin/env bash
# golden-style-deepspeed: large/zero3.json launched with the DeepSpeed launcher, 8 nodes x 8 GPUs
# (world size 64; train batch 512 = micro batch 4 x accumulation 2 x 64; bf16).
# Written by zeroforge generate: regenerate rather than edit. Run it from the directory the
# training script's paths are relative to; arguments are passed on to the training script.
# ZEROFORGE_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export NCCL_DEBUG=WARN
# DeepSpeed's launcher exports the variables of this file on every node.
export DS_ENV_FILE="$here"/zero3.deepspeed_env
cmd=(
  deepspeed
  --num_nodes 8
  --num_gpus 8
  --hostfile "$here"/zero3.hostfile
  --master_port 29500
)
training=(
  train.py
  --deepspeed
  --deepspeed_config "$here"/zero3.json
  --output_dir
  /data/runs/llama
)
# DeepSpeed's launcher starts the other nodes through pdsh and ssh, which hand the training
# script and its arguments to each node's shell as one line: pdsh replaces %h, %u and %n in
# every word, and DeepSpeed double-quotes only an argument that holds a space, escaping nothing
# but '"' (multinode_runner.py, PDSHRunner). So each word, this script's own arguments too, is
# quoted here for that line, and reaches the training script as written.
# DeepSpeed passes the script itself as it is, so it is always single-quoted when need be.
is_script=1
for word in "${training[@]}" "$@"; do
  quoted=${word//[%]/%%}
  if ((!is_script)) && [[ $word == *" "* ]]; then
    # An argument with a space: DeepSpeed adds double quotes, so escape what they leave special.
    quoted=${quoted//\\/\\\\}
    quoted=${quoted//\$/\\\$}
    quoted=${quoted//\`/\\\`}
  elif [[ -z $word || $word == *[!A-Za-z0-9_./:=@%+,-]* ]]; then
    quoted="'${quoted//\'/\'\\\'\'}'"
  fi
  cmd+=("$quoted")
  is_script=0
done
set --
if [[ -z "${ZEROFORGE_DRY_RUN:-}" && $PWD == *[!A-Za-z0-9_./:=@+,-]* ]]; then
  echo "$0: DeepSpeed's launcher writes 'cd $PWD' unquoted into the command each node's shell runs; run this from a directory whose path has only letters, digits and _./:=@+,-" >&2
  exit 2
fi
if [[ -n "${ZEROFORGE_DRY_RUN:-}" ]]; then
  printf '%q ' "${cmd[@]}" "$@"
  printf '\n'
  exit 0
fi
exec "${cmd[@]}" "$@"
