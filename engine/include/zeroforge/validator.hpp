// SPDX-License-Identifier: MIT
// The DeepSpeed-aware validator: findings about a DeepSpeed config (keys, types, batch
// arithmetic, ZeRO stages, "auto"), consistency with a training command, and a JSON Schema.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/diagnostic.hpp"

namespace zf {

/// One problem found in one config. `pointer` is a JSON pointer into the config ("" for the
/// whole document); `rule` is a stable id documented in docs/validate.md.
struct Finding {
  std::string file;
  std::string pointer;
  Severity severity = Severity::Error;
  std::string rule;
  std::string message;
};

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
  std::optional<std::string> deepspeed;  ///< the --deepspeed config path
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

/// Parses a training command line (shell quoting with '' and "" and backslash-newline). A
/// command starting with `sbatch` gives the allocation its options ask for and the script.
/// Throws zf::Error (Usage) for an unterminated quote or a flag whose value is not a number.
///
///     auto cmd = zf::parse_training_command(
///         "deepspeed --num_gpus 8 train.py --per_device_train_batch_size 4 --bf16");
///     *cmd.world_size;  // 8
TrainingCommand parse_training_command(std::string_view command_line);

/// Reads an accelerate config file: YAML as `accelerate config` writes it (block mappings,
/// plain and quoted scalars; see docs/validate.md) or JSON (a `.json` name). `shown` names it
/// in errors. Throws zf::Error: Io when it cannot be read, Values at `file:line:column` when it
/// is malformed, not a mapping, or a value read here has the wrong type.
AccelerateConfig read_accelerate_config(const std::filesystem::path& path,
                                        const std::string& shown);

/// Reads the files the command's launcher reads (relative to `base` when relative and `base`
/// is given) and fills what they decide: `deepspeed --hostfile F` (`host slots=N` lines; the
/// world is the first --num_nodes hosts, or all, times --num_gpus, or each host's slots, as
/// deepspeed/launcher/runner.py counts it) and `accelerate launch --config_file F` (the world
/// size from `num_processes` unless the command line gives it; accelerate_config), and
/// `sbatch SCRIPT` (the directives sbatch's command line does not override, and the launch the
/// script runs: its `cmd=( ... )` array as the companions write it, or its first `srun` or
/// launcher line, read as a training command with the script's arguments appended). Throws
/// zf::Error: Io for a file that cannot be read, Values at file:line for a malformed one.
void load_launcher_files(TrainingCommand& command, const std::filesystem::path& base = {});

/// What the validator assumes about how the config is used.
struct ValidateOptions {
  /// Data-parallel world size DeepSpeed will see. Without it the batch check says which
  /// world sizes the batch keys are consistent with.
  std::optional<long long> world_size;
  /// The HF Trainer loads the config and fills "auto" on the keys it knows.
  bool hf = false;
  /// Warnings count as errors (their severity becomes Error).
  bool strict = false;
  /// The training command the config will run under; each disagreement is a finding.
  std::optional<TrainingCommand> against;
  /// The DeepSpeed release ("0.16.2", one of deepspeed_versions()) whose keys, defaults and
  /// checks the config is judged by; empty: the newest.
  std::string deepspeed_version;
};

/// The DeepSpeed releases zeroforge can judge a config by, oldest first: every release from
/// the oldest to the newest ("0.12.0" ... "0.19.6"), each read from its own source
/// (docs/validate.md, "DeepSpeed releases"). The last one is the default.
///
/// Judging a config by the release a team runs (what `validate --deepspeed-version V` does;
/// any command that takes a release, such as `import`, does the same): check the version
/// once, up front, so a wrong one is a usage error (exit 2) before any work, then pass it in
/// the options:
///
///     zf::check_deepspeed_version(version);  // throws, listing the known releases
///     zf::ValidateOptions options;
///     options.deepspeed_version = version;   // "0.16.2"; empty = the newest
///     auto findings = zf::validate_config(config, options, "lmflow-zero2.json");
///
/// The findings are that release's verdicts: a key it lacks is `unknown-key` (refused) in a
/// strict section or `ignored-key` elsewhere, naming the releases that have it.
const std::vector<std::string>& deepspeed_versions();

/// Throws zf::Error (Usage) unless `version` is one of deepspeed_versions(); the message
/// lists the known releases, grouped by minor release: `unknown DeepSpeed version "0.11.2";
/// zeroforge knows 0.12.0-0.12.6, 0.13.0-0.13.5, ..., 0.19.0-0.19.6`, or for a malformed one
/// `"0.16" is not a DeepSpeed version (X.Y.Z, e.g. 0.19.6); zeroforge knows ...`. A CLI
/// prefixes its option: `validate: --deepspeed-version: unknown DeepSpeed version ...`.
void check_deepspeed_version(std::string_view version);

/// True when DeepSpeed `version` ("" = the newest) reads the config key at `pointer`, a JSON
/// pointer into a config ("/zero_optimization/log_trace_cache_warnings"), and every key above
/// it; false for a key no release reads. Throws like check_deepspeed_version for an unknown
/// version.
///
///     zf::deepspeed_has_key("/zero_optimization/log_trace_cache_warnings", "0.16.2");  // false
///     zf::deepspeed_has_key("/zero_optimization/log_trace_cache_warnings", "0.16.4");  // true
bool deepspeed_has_key(std::string_view pointer, std::string_view version = {});

/// The oldest release after `version` that reads the key at `pointer` ("0.16.4"), or "" when
/// `version` reads it already or no later release does. For messages such as "needs
/// DeepSpeed 0.16.4 or newer".
std::string deepspeed_key_since(std::string_view pointer, std::string_view version = {});

/// Validates one parsed DeepSpeed config by the release `options.deepspeed_version` names;
/// `file` only labels the findings. Never throws for a bad config (everything is a finding);
/// throws zf::Error (Usage) for a deepspeed_version zeroforge does not know. Parse with nlohmann's
/// own parser (or zf::parse_json_text) beforehand: a JSON float such as `1e3` is kept a float,
/// which matters where DeepSpeed needs a real integer.
///
/// For a generated config whose world size is known (e.g. `generate`):
///
///     zf::ValidateOptions options = zf::validate_options_from_values(values.merged());
///     auto findings = zf::validate_config(config, options, "out/medium/zero3.json");
///     if (zf::has_errors(findings)) { /* print them, write nothing, exit 1 */ }
std::vector<Finding> validate_config(const nlohmann::ordered_json& config,
                                     const ValidateOptions& options, const std::string& file);

/// Options for validating what the built-in DeepSpeed template rendered from `values`
/// (DESIGN.md values contract): world_size = `world_size`, else `gpus_per_node * nodes`
/// when either is given, else unset; hf = `hf_auto` (true, or a non-empty list of keys);
/// deepspeed_version = `deepspeed_version` when it is a string.
ValidateOptions validate_options_from_values(const nlohmann::ordered_json& values);

/// True when a rendered JSON document looks like a DeepSpeed config: an object with at least
/// one top-level key DeepSpeed reads.
bool is_deepspeed_config(const nlohmann::ordered_json& document);

/// True when any finding is an error.
bool has_errors(const std::vector<Finding>& findings) noexcept;

/// `FILE: /pointer: error [rule-id]: message` (the root pointer is printed as `/`).
std::string format_finding(const Finding& finding);

/// `[{"file", "pointer", "severity", "rule", "message"}, ...]`.
nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings);

/// One rule the validator checks: its stable id, its usual severity and a one-line summary.
struct RuleInfo {
  const char* id;
  Severity severity;
  const char* summary;
};

/// Every rule, in documentation order (docs/validate.md has one entry per id).
const std::vector<RuleInfo>& validation_rules();

/// The schema data the validator works from (engine/src/deepspeed/deepspeed_schema.json,
/// compiled in): the newest release's keys and facts, the DeepSpeed version and commit they
/// were read from, and the history of older releases ("releases").
const nlohmann::ordered_json& deepspeed_schema_data();

/// A JSON Schema (draft 2020-12) of the config DeepSpeed `version` ("" = the newest) reads,
/// built from the same data, for editors. It accepts "auto" only where the HF Trainer fills
/// it. Throws like check_deepspeed_version for an unknown version.
nlohmann::ordered_json deepspeed_json_schema(std::string_view version = {});

/// The schema data as DeepSpeed `version` ("" = the newest) reads configs: the keys it lacks
/// left out, the defaults and kinds it had, `$ref`s inlined, and `deepspeed.version` set to it.
nlohmann::ordered_json deepspeed_schema_data_at(std::string_view version = {});

}  // namespace zf
