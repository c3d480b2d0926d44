// SPDX-License-Identifier: MIT
// `generate --tier NAME`: which of a family's tiers a run makes, and what of DIR's manifest
// carries over for the others (their entries, byte for byte), so that a run for some tiers
// leaves DIR as a run for all of them would while the other tiers are unchanged.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/family_file.hpp"

namespace zf::pipeline {

/// The tiers a run makes, by index into Family::tiers.
class TierSelection {
 public:
  /// Every tier (no `--tier`).
  TierSelection() = default;
  /// The tiers `names` name (TierRef::matches: the tier's name, or its reference as the family
  /// wrote it); a name given twice counts once. Throws zf::CodedError (Usage,
  /// `generate.unknown-tier`) naming the family file, its tiers and the nearest name for a
  /// name that is none of them, and for a family without tiers.
  TierSelection(const Family& family, const std::vector<std::string>& names);

  /// True when every tier is made.
  bool all() const noexcept { return selected_.empty(); }
  /// Whether variants of tier `tier` (an index, or Variant::npos without tiers) are made.
  bool contains(std::size_t tier) const noexcept {
    return selected_.empty() || (tier < selected_.size() && selected_[tier]);
  }
  /// The names of the tiers made, in family order.
  std::vector<std::string> names(const Family& family) const;

 private:
  std::vector<bool> selected_;  // by tier index; empty: all
};

/// An entry of DIR's manifest that a run for other tiers keeps as it is.
struct KeptEntry {
  std::string path;                     ///< the config's, relative to DIR
  std::string text;                     ///< zf::manifest_entry_text of the entry
  std::vector<std::string> companions;  ///< its companion files' paths
};

/// Reads `manifest` (DIR/manifest.json, named so in messages) for a run that makes only
/// `selection`'s tiers of `family`, streaming it one entry at a time: each entry of a tier not
/// selected goes to `keep`, and the paths (config and companions) of each entry of a selected
/// tier to `replaced`. Does nothing when the file does not exist. Throws zf::CodedError
/// (Values, `generate.tier-manifest`) at the manifest's pointer when the file is not a
/// manifest, is another family's or template's, was written by another zeroforge version, or
/// lists a tier the family does not have: keeping its other entries would make a set that no
/// generate of the whole family makes.
void read_other_tiers(const std::filesystem::path& manifest, const Family& family,
                      const TierSelection& selection, std::string_view zeroforge_version,
                      const std::function<void(KeptEntry&&)>& keep,
                      const std::function<void(const std::string&)>& replaced);

}  // namespace zf::pipeline
