// SPDX-License-Identifier: MIT
// DeepSpeed's releases as zeroforge knows them: which exist, which config keys each reads, the
// schema data they come from and a JSON Schema per release (engine/src/deepspeed/).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace zf {

/// The DeepSpeed releases zeroforge can judge a config by, oldest first: every release from
/// the oldest to the newest ("0.12.0" ... "0.19.6"), each read from its own source
/// (docs/validate.md, "DeepSpeed releases"). The last one is the default.
///
/// Judging a config by the release a team runs (what `validate --deepspeed-version V` does;
/// any command that takes a release, such as `import`, does the same): check the version
/// once, up front, so a wrong one is a usage error (exit 2) before any work, then pass it in
/// the options (validate_config is declared in zeroforge/validator.hpp):
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

/// The accelerate releases whose DeepSpeedPlugin the validator's Trainer path (`--hf`) models,
/// oldest first ("0.18.0" ... "1.14.0"), each read from its own source (docs/validate.md,
/// "The Trainer's path"). The last one is the default.
const std::vector<std::string>& accelerate_versions();

/// Throws zf::Error (Usage) unless `version` is one of accelerate_versions(), naming the
/// range: `unknown accelerate version "0.17.1"; zeroforge knows accelerate 0.18.0 to 1.14.0`.
void check_accelerate_version(std::string_view version);

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
