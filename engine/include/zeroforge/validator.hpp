// SPDX-License-Identifier: MIT
// The DeepSpeed-aware validator: findings about a DeepSpeed config (keys, types, batch
// arithmetic, ZeRO stages, "auto"), consistency with a training command, and a JSON Schema.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zf {

/// How serious a finding is. Severity follows DeepSpeed: `Error` = DeepSpeed (or the HF
/// Trainer) rejects the config or crashes on it; `Warning` = accepted but silently has no
/// effect or a different one; `Note` = fine, with a remark (alias, consistent world sizes).
enum class Severity { Note, Warning, Error };

/// "note", "warning" or "error".
const char* severity_name(Severity severity) noexcept;

/// One problem found in one config. `pointer` is a JSON pointer into the config ("" for the
/// whole document); `rule` is a stable id documented in docs/validate.md.
struct Finding {
  std::string file;
  std::string pointer;
  Severity severity = Severity::Error;
  std::string rule;
  std::string message;
};

/// The parts of a training command that must agree with the config, parsed from the launcher
/// (`deepspeed --num_gpus N --num_nodes M`, `torchrun --nproc_per_node N --nnodes M`,
/// `accelerate launch --num_processes N`) and the HF TrainingArguments of the script. Only
/// what the command line states is set.
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
  std::optional<std::string> deepspeed;  ///< the --deepspeed config path
};

/// Parses a training command line (shell quoting with '' and "" and backslash-newline).
/// Throws zf::Error (Usage) for an unterminated quote or a flag whose value is not a number.
///
///     auto cmd = zf::parse_training_command(
///         "deepspeed --num_gpus 8 train.py --per_device_train_batch_size 4 --bf16");
///     *cmd.world_size;  // 8
TrainingCommand parse_training_command(std::string_view command_line);

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
};

/// Validates one parsed DeepSpeed config; `file` only labels the findings. Never throws for
/// a bad config (everything is a finding). Parse with nlohmann's own parser (or
/// zf::parse_json_text) beforehand: a JSON float such as `1e3` is kept a float, which matters
/// where DeepSpeed needs a real integer.
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
/// when either is given, else unset; hf = `hf_auto`.
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

/// The schema data the validator works from (engine/src/validate/deepspeed_schema.json,
/// compiled in), including the DeepSpeed version and commit it was read from.
const nlohmann::ordered_json& deepspeed_schema_data();

/// A JSON Schema (draft 2020-12) of a DeepSpeed config built from the same data, for editors.
/// It accepts "auto" only where the HF Trainer fills it.
nlohmann::ordered_json deepspeed_json_schema();

}  // namespace zf
