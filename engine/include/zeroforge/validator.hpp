// SPDX-License-Identifier: MIT
// The DeepSpeed-aware validator: findings about a DeepSpeed config (keys, types, batch
// arithmetic, ZeRO stages, "auto"), consistency with a training command, findings as text and
// JSON. It includes what it works with, so one include gives the whole validator: the findings
// (finding.hpp), the launch (training_command.hpp), the options (validate_options.hpp) and
// DeepSpeed's releases and JSON Schema (deepspeed_release.hpp).
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/finding.hpp"
#include "zeroforge/training_command.hpp"
#include "zeroforge/validate_options.hpp"

namespace zf {

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
/// (the values contract, docs/values.md): world_size = `world_size`, else `gpus_per_node * nodes`
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

}  // namespace zf
