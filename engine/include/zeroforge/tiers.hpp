// SPDX-License-Identifier: MIT
// Tiers (docs/tiers.md): the tier search path, a tier's values as read from its file, and the
// check of a tier file's keys.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/error.hpp"

namespace zf {

/// Why a directory is on the tier search path.
enum class TierOrigin {
  Family,       ///< `tiers/` beside the family file
  Environment,  ///< a directory of ZEROFORGE_TIER_PATH
  BuiltIn,      ///< the shipped tiers, `DATA_DIR/presets/tiers`
};

/// "beside the family", "ZEROFORGE_TIER_PATH" or "built-in": how `list tiers` and messages
/// say where a tier comes from.
std::string_view to_string(TierOrigin origin) noexcept;

/// One directory of the tier search path.
struct TierDirectory {
  std::filesystem::path path;
  TierOrigin origin;
};

/// Where a tier name is looked up, first match winning: `tiers/` beside `family_file` (when
/// one is given), then each directory of the colon-separated ZEROFORGE_TIER_PATH (empty
/// entries skipped), then `data_dir/presets/tiers`. A team's repository comes first, so a
/// checkout generates the same configs whatever the environment of the machine.
///
///     auto path = zf::tier_search_path("teams/vision/family.json", "/usr/share/zeroforge");
///     // teams/vision/tiers, $ZEROFORGE_TIER_PATH..., /usr/share/zeroforge/presets/tiers
std::vector<TierDirectory> tier_search_path(const std::filesystem::path& family_file,
                                            const std::filesystem::path& data_dir);

/// The file of tier `name`: `NAME.json` in the first directory of `path` that has it, or
/// nullopt.
std::optional<std::filesystem::path> find_tier(std::string_view name,
                                               const std::vector<TierDirectory>& path);

/// The directories of `path`, comma-separated, for "not found (searched: ...)" messages.
std::string describe_search_path(const std::vector<TierDirectory>& path);

/// Checks the top-level keys of a tier file (docs/tiers.md): each must be a value the DeepSpeed
/// values contract knows (docs/values.md: the cluster facts, policy such as micro_batch_size,
/// the values plugins read) or one of `template_reads` (what the template rendered with the
/// tier reads: a team's own values); `tier` is reserved (a tier is named after its file).
/// Returns one Values error per other key, at `file` and `/KEY`, with a did-you-mean:
///
///     tiers/a100x8.json: /gpu_mem_gib: error: unknown key 'gpu_mem_gib' in a tier; did you
///     mean 'gpu_memory_gib'? ...
std::vector<Error> check_tier_keys(const nlohmann::ordered_json& tier, const std::string& file,
                                   const std::vector<std::string>& template_reads = {});

/// A tier's values, read from its file.
struct Tier {
  std::string name;
  /// The file it was read from (errors and `explain` name it).
  std::string file;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
};

}  // namespace zf
