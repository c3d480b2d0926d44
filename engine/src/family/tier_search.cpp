// SPDX-License-Identifier: MIT
// The tier search path (docs/tiers.md): a team's tiers beside its family, ./tiers,
// ZEROFORGE_TIER_PATH, then the shipped tiers; and resolve_tier, the one lookup of a tier
// reference that every command makes: the first NAME.json found, warning of the ones it shadows.
#include <algorithm>
#include <cstdlib>

#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/tiers.hpp"

namespace zf {
namespace fs = std::filesystem;

std::string_view to_string(TierOrigin origin) noexcept {
  switch (origin) {
    case TierOrigin::Family:
      return "beside the family";
    case TierOrigin::WorkingDirectory:
      return "working directory";
    case TierOrigin::Environment:
      return "ZEROFORGE_TIER_PATH";
    case TierOrigin::BuiltIn:
      return "built-in";
  }
  return "";
}

namespace {

// The directory as the file system knows it, to see that two spellings are one directory.
fs::path identity(const fs::path& dir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  return ec ? fs::absolute(dir, ec).lexically_normal() : canonical;
}

}  // namespace

std::vector<TierDirectory> tier_search_path(const fs::path& family_file, const fs::path& data_dir) {
  std::vector<TierDirectory> path;
  std::vector<fs::path> seen;
  auto add = [&](fs::path dir, TierOrigin origin) {
    fs::path id = identity(dir);
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) return;
    seen.push_back(std::move(id));
    path.push_back({std::move(dir), origin});
  };
  if (!family_file.empty()) add(family_file.parent_path() / "tiers", TierOrigin::Family);
  add("./tiers", TierOrigin::WorkingDirectory);
  if (const char* env = std::getenv("ZEROFORGE_TIER_PATH"); env != nullptr && *env != '\0') {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view part = rest.substr(0, colon);
      if (!part.empty()) add(fs::path(std::string(part)), TierOrigin::Environment);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  add(data_dir / "presets" / "tiers", TierOrigin::BuiltIn);
  return path;
}

namespace {

// A name is one file name: `..` or a separator would reach outside the directories.
bool is_tier_name(std::string_view name) {
  return !name.empty() && !is_tier_path(name) && name != "." && name != "..";
}

// Every NAME.json on `path`, in search order, with the origin of its directory.
std::vector<std::pair<fs::path, TierOrigin>> tier_files(std::string_view name,
                                                        const std::vector<TierDirectory>& path) {
  std::vector<std::pair<fs::path, TierOrigin>> files;
  if (!is_tier_name(name)) return files;
  for (const auto& dir : path) {
    fs::path file = (dir.path / (std::string(name) + ".json")).lexically_normal();
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) files.emplace_back(std::move(file), dir.origin);
  }
  return files;
}

Diagnostic shadowed_warning(const std::string& name, const ResolvedTier& tier,
                            const TierLookup& lookup) {
  Diagnostic d;
  d.code = codes::tier_shadowed;
  d.severity = Severity::Warning;
  d.kind = ErrorKind::Values;
  if (!lookup.family_file.empty()) {
    d.where.file = lookup.family_file.string();
    d.json_pointer = lookup.pointer;
  }
  std::string later;
  for (const auto& file : tier.shadowed) later += (later.empty() ? "" : ", ") + file.string();
  d.message = "tier '" + name + "' is " + tier.file.string() + " (" +
              std::string(to_string(tier.origin)) + "), which shadows " + later +
              " later on the tier search path; rename one of them, or give the tier's path to "
              "choose a file ('zeroforge list tiers' shows the search path)";
  return d;
}

CodedError not_found(const std::string& message, const TierLookup& lookup) {
  if (lookup.family_file.empty())
    return CodedError(Error(ErrorKind::Usage, message), codes::tier_not_found);
  return CodedError(Error(ErrorKind::Values, message, lookup.family_file.string(), lookup.pointer),
                    codes::tier_not_found);
}

}  // namespace

std::optional<fs::path> find_tier(std::string_view name, const std::vector<TierDirectory>& path) {
  auto files = tier_files(name, path);
  if (files.empty()) return std::nullopt;
  return files.front().first;
}

std::string describe_search_path(const std::vector<TierDirectory>& path) {
  std::string text;
  for (const auto& dir : path) text += (text.empty() ? "" : ", ") + dir.path.string();
  return text;
}

ResolvedTier resolve_tier(const std::string& ref, const TierLookup& lookup) {
  ResolvedTier out;
  const bool in_family = !lookup.family_file.empty();
  if (is_tier_path(ref)) {
    out.file = in_family ? lookup.family_file.parent_path() / ref : fs::path(ref);
    out.origin = in_family ? TierOrigin::Family : TierOrigin::WorkingDirectory;
    std::error_code ec;
    if (!fs::is_regular_file(out.file, ec)) {
      // An existing directory, FIFO or device is named for what it is, not "not found".
      if (std::string what = not_a_file_problem(out.file); !what.empty()) {
        throw not_found("tier '" + ref + "': " + out.file.string() + " " + what, lookup);
      }
      throw not_found("tier '" + ref + "' not found (no " + out.file.string() + ")", lookup);
    }
    return out;
  }
  const std::vector<TierDirectory> path = tier_search_path(lookup.family_file, lookup.data_dir);
  auto files = tier_files(ref, path);
  if (files.empty()) {
    throw not_found("tier '" + ref + "' not found on the tier search path (searched: " +
                        describe_search_path(path) + "); put " + ref + ".json in " +
                        (in_family ? "tiers/ beside the family, " : "") +
                        "./tiers or a ZEROFORGE_TIER_PATH directory, or give its path "
                        "('zeroforge list tiers' shows the tiers found)",
                    lookup);
  }
  out.file = files.front().first;
  out.origin = files.front().second;
  for (std::size_t i = 1; i < files.size(); ++i) out.shadowed.push_back(files[i].first);
  if (!out.shadowed.empty()) out.warnings.push_back(shadowed_warning(ref, out, lookup));
  return out;
}

}  // namespace zf
