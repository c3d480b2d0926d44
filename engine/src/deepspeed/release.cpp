// SPDX-License-Identifier: MIT
// The DeepSpeed releases zeroforge knows (the generated tables' releases()), found by version,
// and the public questions about them: which releases exist, whether one reads a key, since
// when. Messages name the range known, so a wrong version is answered with the right ones.
#include "deepspeed/release.hpp"

#include <algorithm>

#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace deepspeed {

ReleaseIndex newest_release() { return static_cast<ReleaseIndex>(releases().size() - 1); }

std::optional<ReleaseIndex> find_release(std::string_view version) {
  const auto all = releases();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].version == version) return static_cast<ReleaseIndex>(i);
  }
  return std::nullopt;
}

std::string_view version_of(ReleaseIndex release) { return releases()[release].version; }

std::string known_range() {
  // One group per minor release: "0.12.0-0.12.6" when its patches run without a gap (as
  // DeepSpeed's do), else each patch listed; the groups in release order.
  std::string out;
  const auto all = releases();
  std::size_t i = 0;
  while (i < all.size()) {
    const std::string_view version = all[i].version;
    const std::string_view minor = version.substr(0, version.rfind('.') + 1);  // "0.12."
    std::size_t end = i;
    while (end < all.size() && all[end].version.starts_with(minor)) ++end;
    auto patch = [&](std::size_t k) {
      return std::stol(std::string(all[k].version.substr(minor.size())));
    };
    const bool contiguous = patch(end - 1) - patch(i) == static_cast<long>(end - i - 1);
    if (!out.empty()) out += ", ";
    if (end - i > 1 && contiguous) {
      out += std::string(version) + "-" + std::string(all[end - 1].version);
    } else {
      for (std::size_t k = i; k < end; ++k)
        out += (k == i ? "" : ", ") + std::string(all[k].version);
    }
    i = end;
  }
  return out;
}

namespace {

// X.Y.Z, each part digits.
bool well_formed(std::string_view version) {
  int parts = 0;
  std::size_t at = 0;
  while (true) {
    std::size_t dot = version.find('.', at);
    std::string_view part =
        version.substr(at, dot == std::string_view::npos ? version.npos : dot - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return parts == 3;
}

}  // namespace

ReleaseIndex require_release(std::string_view version) {
  if (version.empty()) return newest_release();
  if (auto found = find_release(version)) return *found;
  if (!well_formed(version)) {
    throw Error(ErrorKind::Usage,
                "\"" + std::string(version) + "\" is not a DeepSpeed version (X.Y.Z, e.g. " +
                    std::string(releases().back().version) + "); zeroforge knows " + known_range());
  }
  throw Error(ErrorKind::Usage, "unknown DeepSpeed version \"" + std::string(version) +
                                    "\"; zeroforge knows " + known_range());
}

bool feature_at(std::string_view feature, ReleaseIndex release) {
  for (const FeatureFacts& f : features()) {
    if (f.name == feature) return in_releases(f.releases, release);
  }
  return true;
}

namespace {

// Calls `each(node)` for the node of every segment of `pointer` (aliases followed), stopping
// at the first missing one; returns the last node, or nullptr.
template <typename Each>
const NodeFacts* walk_pointer(std::string_view pointer, Each&& each) {
  const NodeFacts* node = &root_facts();
  std::size_t at = 0;
  while (at < pointer.size()) {
    if (pointer[at] != '/') return nullptr;
    std::size_t next = pointer.find('/', at + 1);
    std::string_view segment =
        pointer.substr(at + 1, next == std::string_view::npos ? pointer.npos : next - at - 1);
    std::string key;
    for (std::size_t i = 0; i < segment.size(); ++i) {  // ~0 and ~1
      if (segment[i] == '~' && i + 1 < segment.size() &&
          (segment[i + 1] == '0' || segment[i + 1] == '1')) {
        key += segment[++i] == '0' ? '~' : '/';
      } else {
        key += segment[i];
      }
    }
    const NodeFacts* child = node->key(key);
    if (child == nullptr) return nullptr;
    if (!each(*child)) return nullptr;
    node = child->alias ? child->canonical : child;
    at = next == std::string_view::npos ? pointer.size() : next;
  }
  return node;
}

}  // namespace

const NodeFacts* node_at_pointer(std::string_view pointer) {
  return walk_pointer(pointer, [](const NodeFacts&) { return true; });
}

bool present_at_pointer(std::string_view pointer, ReleaseIndex release) {
  return walk_pointer(pointer, [&](const NodeFacts& node) { return node.present_at(release); }) !=
         nullptr;
}

std::string releases_text(const NodeFacts& node) {
  const ReleaseIndex last = newest_release();
  std::string out;
  for (const ReleaseRange& range : node.releases) {
    if (range.since >= range.until) continue;
    if (!out.empty()) out += " and ";
    if (range.until > last) {
      out +=
          range.since == 0 ? "every release" : std::string(version_of(range.since)) + " or newer";
    } else if (range.since == 0) {
      out += std::string(version_of(static_cast<ReleaseIndex>(range.until - 1))) + " or older";
    } else if (range.until - 1 == range.since) {
      out += std::string(version_of(range.since));
    } else {
      out += std::string(version_of(range.since)) + " to " +
             std::string(version_of(static_cast<ReleaseIndex>(range.until - 1)));
    }
  }
  return out;
}

}  // namespace deepspeed

const std::vector<std::string>& deepspeed_versions() {
  static const std::vector<std::string> versions = [] {
    std::vector<std::string> out;
    for (const auto& release : deepspeed::releases()) out.emplace_back(release.version);
    return out;
  }();
  return versions;
}

void check_deepspeed_version(std::string_view version) {
  if (version.empty()) {
    throw Error(ErrorKind::Usage,
                "an empty DeepSpeed version; zeroforge knows " + deepspeed::known_range());
  }
  deepspeed::require_release(version);
}

bool deepspeed_has_key(std::string_view pointer, std::string_view version) {
  return deepspeed::present_at_pointer(pointer, deepspeed::require_release(version));
}

std::string deepspeed_key_since(std::string_view pointer, std::string_view version) {
  const deepspeed::ReleaseIndex from = deepspeed::require_release(version);
  if (deepspeed::present_at_pointer(pointer, from)) return "";
  for (auto r = static_cast<std::size_t>(from) + 1; r < deepspeed::releases().size(); ++r) {
    if (deepspeed::present_at_pointer(pointer, static_cast<deepspeed::ReleaseIndex>(r)))
      return std::string(deepspeed::releases()[r].version);
  }
  return "";
}

}  // namespace zf
