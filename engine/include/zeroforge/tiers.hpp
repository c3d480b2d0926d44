// SPDX-License-Identifier: MIT
// Tiers (docs/tiers.md): the tier search path and the one resolution of a tier name every
// command uses, a tier's values as read from its file, and the check of a tier file's keys.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>  // full type: Tier holds an ordered_json member
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"

namespace zf {

/// Why a directory is on the tier search path.
enum class TierOrigin {
  Family,            ///< `tiers/` beside the family file
  WorkingDirectory,  ///< `./tiers`, the working directory's
  Environment,       ///< a directory of ZEROFORGE_TIER_PATH
  BuiltIn,           ///< the shipped tiers, `DATA_DIR/presets/tiers`
};

/// "beside the family", "working directory", "ZEROFORGE_TIER_PATH" or "built-in": how
/// `list tiers` and messages say where a tier comes from.
std::string_view to_string(TierOrigin origin) noexcept;

/// One directory of the tier search path.
struct TierDirectory {
  std::filesystem::path path;
  TierOrigin origin;
};

/// Where a tier name is looked up, first match winning: `tiers/` beside `family_file` (when
/// one is given), then `./tiers` (the working directory's), then each directory of the
/// colon-separated ZEROFORGE_TIER_PATH (empty entries skipped), then `data_dir/presets/tiers`.
/// A directory already on the path (the family's `tiers/` is `./tiers` when the family is in
/// the working directory) is listed once. A team's repository comes first, so a checkout
/// generates the same configs whatever the environment of the machine.
///
///     auto path = zf::tier_search_path("teams/vision/family.json", "/usr/share/zeroforge");
///     // teams/vision/tiers, ./tiers, $ZEROFORGE_TIER_PATH..., /usr/share/zeroforge/presets/tiers
std::vector<TierDirectory> tier_search_path(const std::filesystem::path& family_file,
                                            const std::filesystem::path& data_dir);

/// The file of tier `name`: `NAME.json` in the first directory of `path` that has it, or
/// nullopt.
std::optional<std::filesystem::path> find_tier(std::string_view name,
                                               const std::vector<TierDirectory>& path);

/// The directories of `path`, comma-separated, for "not found (searched: ...)" messages.
std::string describe_search_path(const std::vector<TierDirectory>& path);

/// Where a tier reference was written, for resolve_tier().
struct TierLookup {
  /// The family whose `tiers` names it; empty for the command line (`--tier`), the Python
  /// module's `tier=` and plugins. Its `tiers/` is searched first, and a tier path is
  /// relative to its directory (else to the working directory).
  std::filesystem::path family_file;
  /// The reference's JSON pointer in `family_file` (`/tiers/2`), for errors and warnings.
  std::string pointer;
  /// zeroforge's data directory: the shipped tiers are `DATA_DIR/presets/tiers`.
  std::filesystem::path data_dir;
};

/// What a tier reference resolved to.
struct ResolvedTier {
  std::filesystem::path file;  ///< the tier file read
  /// Where it was found (a path given as such: TierOrigin::Family for a family's, else
  /// WorkingDirectory).
  TierOrigin origin = TierOrigin::WorkingDirectory;
  /// `NAME.json` in directories later on the search path, which `file` shadows; empty for a
  /// tier given by its path.
  std::vector<std::filesystem::path> shadowed;
  /// One `tier.shadowed` warning naming `file` and the files it shadows, when `shadowed` is
  /// not empty; at the family's file and pointer, else nowhere in particular.
  std::vector<Diagnostic> warnings;
};

/// The one resolution of a tier reference, used by every command (render, explain,
/// generate, report, import, estimate through the plugin host, list tiers) and the Python
/// module: a **path** (contains '/' or ends in `.json`) is that file, relative to the
/// family's directory for a family and to the working directory otherwise; a **name** is
/// `NAME.json` in the first directory of tier_search_path(lookup.family_file, data_dir) that
/// has it, with a warning when a later directory has one too (docs/tiers.md). Throws
/// zf::CodedError `tier.not-found` naming every directory searched: kind Values at the
/// family's file and pointer, or Usage on the command line.
///
///     zf::ResolvedTier tier = zf::resolve_tier("small", {.data_dir = data_dir});
///     // tiers/small.json, shadowing DATA_DIR/presets/tiers/small.json, with a warning
ResolvedTier resolve_tier(const std::string& ref, const TierLookup& lookup);

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
