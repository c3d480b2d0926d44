// SPDX-License-Identifier: MIT
// zf::import_configs: existing DeepSpeed configs read back into one family whose members
// regenerate each of them, with the validator's verdict on every input and the import's own
// notes (docs/import.md). Nothing is written: the caller writes ImportResult::family.
//
//     zf::ImportRequest request;
//     request.configs = {"runs/a/ds_config.json", "runs/b/ds_config.json"};
//     request.family_file = "families/runs.json";
//     zf::ImportResult result = zf::import_configs(request);
//     write(request.family_file, result.family);
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>  // full type: the config and result hold ordered_json members
#include <string>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/validator.hpp"

namespace zf {

/// What to import, and how.
struct ImportRequest {
  /// The configs, as given (findings and errors name them so); at least one.
  std::vector<std::string> configs;
  /// Where the family goes (its file name gives the family's name; a tier path is written
  /// relative to its directory). import_configs writes nothing.
  std::filesystem::path family_file;
  /// The template the family renders; it must say what deepspeed/config.json.j2 says.
  std::string template_name = "deepspeed/config.json.j2";
  /// A tier name (zf::resolve_tier, as generate will find it for `family_file`: its tiers/
  /// first) or a tier file (contains '/' or ends in .json; relative to the working
  /// directory), or "" for a family without tiers.
  std::string tier;
  /// Searched for templates before DATA_DIR/templates (`--template-dir`).
  std::vector<std::filesystem::path> template_dirs;
  /// The shipped templates and presets (`templates/`, `presets/`); empty: the default.
  std::filesystem::path data_dir;
  /// How every input is judged, as `validate` judges it. An input that says "auto" is judged
  /// as the HF Trainer loads it (hf); with a tier and no world size, at the tier's world size.
  /// A deepspeed_version here is also pinned in the family (its values), so each member renders
  /// the keys that release reads.
  ValidateOptions validate;
};

/// One input and what it became.
struct ImportedConfig {
  std::string file;               ///< as given
  std::string output;             ///< the member's output path, relative to generate's DIR
  nlohmann::ordered_json config;  ///< as read
  nlohmann::ordered_json values;  ///< the member's values (before the family took the shared ones)
  /// The keys its `extra` carries as written (JSON pointers into the config).
  std::vector<std::string> passthrough;
};

/// What an import made.
struct ImportResult {
  /// The family file's JSON.
  nlohmann::ordered_json family;
  std::vector<ImportedConfig> configs;
  /// Per input, in input order: the validator's findings, then the import's notes.
  std::vector<Finding> findings;
  /// How many leaves the family's `values` holds (what every input agrees on).
  std::size_t shared_values = 0;
  /// Warnings about the inputs besides the configs: a tier name that shadows another
  /// (`tier.shadowed`).
  std::vector<Diagnostic> warnings;
};

/// Reads, judges and imports `request.configs`. Every config comes back from the family
/// (checked here by expanding and rendering it as `generate` does). Throws zf::Error: Io for
/// an input that cannot be read, Json for one that is not JSON (file:line:column), Values for
/// one that is not an object or that the template cannot give back, Usage for the same input
/// twice or a name that cannot be a member's output path.
ImportResult import_configs(const ImportRequest& request);

}  // namespace zf
