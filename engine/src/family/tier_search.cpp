// SPDX-License-Identifier: MIT
// The tier search path (docs/tiers.md): a team's tiers beside its family, ZEROFORGE_TIER_PATH,
// then the shipped tiers; a tier name is the first NAME.json found.
#include <cstdlib>

#include "zeroforge/family_file.hpp"
#include "zeroforge/tiers.hpp"

namespace zf {
namespace fs = std::filesystem;

std::string_view to_string(TierOrigin origin) noexcept {
  switch (origin) {
    case TierOrigin::Family:
      return "beside the family";
    case TierOrigin::Environment:
      return "ZEROFORGE_TIER_PATH";
    case TierOrigin::BuiltIn:
      return "built-in";
  }
  return "";
}

std::vector<TierDirectory> tier_search_path(const fs::path& family_file, const fs::path& data_dir) {
  std::vector<TierDirectory> path;
  if (!family_file.empty())
    path.push_back({family_file.parent_path() / "tiers", TierOrigin::Family});
  if (const char* env = std::getenv("ZEROFORGE_TIER_PATH"); env != nullptr && *env != '\0') {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view part = rest.substr(0, colon);
      if (!part.empty()) path.push_back({fs::path(std::string(part)), TierOrigin::Environment});
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  path.push_back({data_dir / "presets" / "tiers", TierOrigin::BuiltIn});
  return path;
}

std::optional<fs::path> find_tier(std::string_view name, const std::vector<TierDirectory>& path) {
  // A name is one file name: `..` or a separator would reach outside the directories.
  if (name.empty() || is_tier_path(name) || name == "." || name == "..") return std::nullopt;
  for (const auto& dir : path) {
    fs::path file = dir.path / (std::string(name) + ".json");
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) return file;
  }
  return std::nullopt;
}

std::string describe_search_path(const std::vector<TierDirectory>& path) {
  std::string text;
  for (const auto& dir : path) text += (text.empty() ? "" : ", ") + dir.path.string();
  return text;
}

}  // namespace zf
