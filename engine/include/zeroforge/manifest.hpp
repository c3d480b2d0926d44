// SPDX-License-Identifier: MIT
// Generated config sets: the manifest of one (DIR/manifest.json), whole or piece by piece, and
// the check on the output paths it lists.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>  // full type: ManifestEntry holds ordered_json members
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/family_file.hpp"

namespace zf {

/// One generated config, as listed in DIR/manifest.json.
struct ManifestEntry {
  /// Relative to DIR, `/`-separated.
  std::string path;
  /// The tier name ("" without tiers).
  std::string tier;
  /// Variant::choice.
  nlohmann::ordered_json variant = nlohmann::ordered_json::object();
  /// Facts written after the variant: world_size, stage, batch sizes, ... (an object).
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  /// sha256 of the file's bytes, lowercase hex.
  std::string sha256;
  /// The companion files written next to it: kind to path relative to DIR, in the order of
  /// companion_kinds() (an object, or null for none: omitted when empty; null costs no
  /// allocation per config when there are no companions).
  nlohmann::ordered_json companions;
  /// Annotations plugins returned for this config (an object; omitted when empty).
  nlohmann::ordered_json plugins = nlohmann::ordered_json::object();
};

/// The facts a manifest entry records for a DeepSpeed config: world_size, stage, precision,
/// offload_optimizer, offload_param, hf_auto, micro_batch_size, gradient_accumulation,
/// train_batch_size; and `batch_keys` / `auto_keys` (lists) where the values write only some
/// batch keys or leave only some keys to the Trainer.
nlohmann::ordered_json facts_to_json(const DeepSpeedFacts& facts);

/// `{"zeroforge_version", "family", "template", "configs": [...]}`, the configs sorted by
/// path (so the same inputs give the same bytes).
nlohmann::ordered_json make_manifest(std::string_view zeroforge_version, const Family& family,
                                     std::vector<ManifestEntry> entries);

/// The manifest's text in pieces, for writing it without holding every entry (generate spills
/// entries as it goes): `manifest_head`, then for the i-th entry in path order
/// `manifest_separator(i)` and its `manifest_entry_text`, then `manifest_tail(count)`.
/// Concatenated, byte for byte `to_json_text(make_manifest(version, family, entries))`.
///
///     std::string text = zf::manifest_head(version, family);
///     for (std::size_t i = 0; i < sorted.size(); ++i) {
///       text += zf::manifest_separator(i);
///       text += zf::manifest_entry_text(sorted[i]);
///     }
///     text += zf::manifest_tail(sorted.size());
std::string manifest_head(std::string_view zeroforge_version, const Family& family);
/// One entry of `configs`, indented for its place in the manifest, without separator.
std::string manifest_entry_text(const ManifestEntry& entry);
/// An entry read back from a manifest (an object of `configs`), as manifest_entry_text wrote
/// it: the same bytes for an entry zeroforge wrote (`generate --tier` keeps the other tiers'
/// entries this way).
std::string manifest_entry_text(const nlohmann::ordered_json& entry);
/// What goes before the entry at `index` (in path order).
std::string_view manifest_separator(std::size_t index);
/// What closes a manifest of `entries` entries.
std::string_view manifest_tail(std::size_t entries);

/// Checks a rendered output path and returns it normalised: relative, `/`-separated, no
/// empty, `.` or `..` segments, not `manifest.json`. Throws zf::Error (Values) naming the
/// family file and `/output` otherwise.
std::string check_output_path(std::string_view rendered, const Family& family);

}  // namespace zf
