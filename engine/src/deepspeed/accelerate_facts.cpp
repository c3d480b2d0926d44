// SPDX-License-Identifier: MIT
// accelerate's releases as the validator's Trainer path knows them (accelerate_facts.hpp).
#include "deepspeed/accelerate_facts.hpp"

#include <charconv>

#include "rules.hpp"
#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

const json& block() { return deepspeed::schema_part(deepspeed::SchemaPart::Accelerate); }

// "0.23.0" as comparable numbers; the block lists only well-formed X.Y.Z.
std::array<int, 3> version_numbers(std::string_view version) {
  std::array<int, 3> out{};
  std::size_t part = 0;
  const char* p = version.data();
  const char* end = p + version.size();
  while (p < end && part < out.size()) {
    auto [next, ec] = std::from_chars(p, end, out[part]);
    if (ec != std::errc()) break;
    p = next < end && *next == '.' ? next + 1 : next;
    ++part;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& accelerate_versions() {
  static const std::vector<std::string> versions = [] {
    std::vector<std::string> out;
    for (const auto& v : block().at("known")) out.push_back(v.get<std::string>());
    return out;
  }();
  return versions;
}

void check_accelerate_version(std::string_view version) {
  const auto& known = accelerate_versions();
  for (const auto& v : known) {
    if (v == version) return;
  }
  throw Error(ErrorKind::Usage, "unknown accelerate version \"" + std::string(version) +
                                    "\"; zeroforge knows accelerate " + known.front() + " to " +
                                    known.back() + " (each release read from its source)");
}

namespace deepspeed {

const json& accelerate_facts(std::string_view version) {
  const json& releases = block().at("releases");
  if (version.empty()) return releases.back();
  check_accelerate_version(version);
  const auto wanted = version_numbers(version);
  const json* found = &releases.front();
  for (const auto& facts : releases) {
    if (version_numbers(facts.at("from").get_ref<const std::string&>()) <= wanted) found = &facts;
  }
  return *found;
}

const json* accelerate_fill(const json& facts, std::string_view pointer) {
  for (const auto& fill : facts.at("fills")) {
    if (fill.at("pointer").get_ref<const std::string&>() == pointer) return &fill;
  }
  return nullptr;
}

}  // namespace deepspeed
}  // namespace zf
