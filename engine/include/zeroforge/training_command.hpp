// SPDX-License-Identifier: MIT
// The launch a DeepSpeed config is checked against: a training command and the accelerate
// config it names, as plain data (parsed and read by the validator, zeroforge/validator.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zf {

/// What `accelerate launch` takes from its config file (`--config_file F`, the YAML `accelerate
/// config` writes) that must agree with a DeepSpeed config. Read by read_accelerate_config.
struct AccelerateConfig {
  std::string file;  ///< as named on the command line
  std::optional<std::string> distributed_type;
  std::optional<long long> num_processes;  ///< all machines' processes together
  std::optional<long long> num_machines;
  /// `mixed_precision` when set (not null), as written; accelerate refuses it next to a
  /// deepspeed_config_file.
  std::optional<std::string> mixed_precision;
  std::optional<std::string> deepspeed_config_file;
  /// The keys of `deepspeed_config`, in file order.
  std::vector<std::string> deepspeed_config_keys;
};

/// The parts of a training command that must agree with the config, parsed from the launcher
/// (`deepspeed --num_gpus N --num_nodes M`, `torchrun --nproc_per_node N --nnodes M`,
/// `accelerate launch --num_processes N --mixed_precision P`, or the `--config_file` of
/// `accelerate launch`) and the
/// HF TrainingArguments of the script. Only what the command line states is set.
struct TrainingCommand {
  std::string launcher;                 ///< "deepspeed", "torchrun", "accelerate" or ""
  std::optional<long long> world_size;  ///< from the launcher
  std::optional<long long> per_device_train_batch_size;
  std::optional<long long> gradient_accumulation_steps;
  std::optional<bool> bf16;
  std::optional<bool> fp16;
  std::optional<bool> gradient_checkpointing;
  std::optional<double> max_grad_norm;
  std::optional<double> learning_rate;
  std::optional<long long> warmup_steps;
  std::optional<double> warmup_ratio;
  std::optional<double> adam_beta1;
  std::optional<double> adam_beta2;
  std::optional<double> adam_epsilon;
  std::optional<double> weight_decay;
  std::optional<long long> max_steps;
  /// The config's path: the Trainer's `--deepspeed FILE`, a DeepSpeed script's
  /// `--deepspeed_config FILE` (launch.style deepspeed or plain), or accelerate launch's
  /// `--deepspeed_config_file FILE`; `deepspeed_option` says which.
  std::optional<std::string> deepspeed;
  std::string deepspeed_option;
  /// The training script: the first word after the launcher's options and their values (a
  /// script not ending in `.py` too), or a `.py` word without a launcher; "" when none.
  std::string script;
  /// The launcher runs the script without Python (`--no_python`, torchrun's `--no-python`).
  bool no_python = false;
  /// The script is given the HF Trainer's arguments (`--deepspeed FILE` or a TrainingArguments
  /// flag this reader knows): only then does a flag the command leaves out (`--bf16`,
  /// `--gradient_checkpointing`) say what the Trainer will do. A script of another style
  /// (`--deepspeed --deepspeed_config FILE`, or none) takes its precision from the config.
  bool trainer_arguments = false;
  /// `--deepspeed` as add_config_arguments' flag (no file after it: launch.style deepspeed).
  bool deepspeed_flag = false;
  /// `deepspeed --num_gpus N --num_nodes M` as given (for a hostfile's world size).
  std::optional<long long> deepspeed_num_gpus, deepspeed_num_nodes;
  /// `deepspeed --hostfile F`: the file, until load_launcher_files reads it.
  std::optional<std::string> hostfile;
  /// `accelerate launch --config_file F`: the file, until load_launcher_files reads it.
  std::optional<std::string> accelerate_config_file;
  /// What that file says, once read.
  std::optional<AccelerateConfig> accelerate_config;
  /// `accelerate launch --mixed_precision P` (no, fp16, bf16, fp8), as given.
  std::optional<std::string> mixed_precision;
  /// `sbatch [OPTIONS] SCRIPT [ARGS...]`: the batch script, until load_launcher_files reads it
  /// (its `#SBATCH` directives and its launch, which then fills the fields above).
  std::optional<std::string> sbatch_script;
  /// sbatch's options before the script (they win over the script's directives).
  std::vector<std::string> sbatch_options;
  /// The words after the script, which sbatch passes to it.
  std::vector<std::string> sbatch_script_args;
  /// The allocation SLURM gives: nodes (`-N`, `--nodes`) and GPUs per node (`--gres=gpu:G`,
  /// `--gpus-per-node`), from sbatch's command line or else the script's directives.
  std::optional<long long> slurm_nodes, slurm_gpus_per_node;
};

}  // namespace zf
