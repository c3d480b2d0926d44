// SPDX-License-Identifier: MIT
// `generate --tier` (see tier_subset.hpp): the tiers a run makes, and DIR's manifest read one
// entry at a time for the entries of the others.
#include "tier_subset.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "text_helpers.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/manifest.hpp"

namespace zf::pipeline {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::string tier_list(const Family& family) {
  std::string out;
  for (const auto& tier : family.tiers) out += (out.empty() ? "" : ", ") + tier.name;
  return out;
}

// The family as messages name it: its name and its file.
std::string family_named(const Family& family) {
  return "family '" + family.name + "' (" + family.file + ")";
}

// A path of an old manifest that stays inside DIR (what StagedOutput's old-manifest reading
// accepts too).
bool plain_path(const std::string& path) {
  return !path.empty() && path[0] != '/' && path != "manifest.json" &&
         path.find("..") == std::string::npos;
}

}  // namespace

TierSelection::TierSelection(const Family& family, const std::vector<std::string>& names) {
  if (names.empty()) return;
  if (family.tiers.empty()) {
    throw CodedError(Error(ErrorKind::Usage, "generate: --tier '" + names.front() +
                                                 "': " + family_named(family) +
                                                 " has no tiers; leave out --tier"),
                     codes::generate_unknown_tier);
  }
  selected_.assign(family.tiers.size(), false);
  for (const auto& name : names) {
    bool found = false;
    for (std::size_t i = 0; i < family.tiers.size(); ++i) {
      if (family.tiers[i].matches(name)) {
        selected_[i] = true;
        found = true;
      }
    }
    if (found) continue;
    std::vector<std::string> known;
    for (const auto& tier : family.tiers) known.push_back(tier.name);
    std::string message = "generate: --tier '" + name + "' is not a tier of " +
                          family_named(family) + " (its tiers: " + tier_list(family) + ")";
    if (std::string guess = detail::nearest_name(name, known); !guess.empty())
      message += "; did you mean '" + guess + "'?";
    throw CodedError(Error(ErrorKind::Usage, message), codes::generate_unknown_tier);
  }
}

std::vector<std::string> TierSelection::names(const Family& family) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < family.tiers.size(); ++i)
    if (contains(i)) out.push_back(family.tiers[i].name);
  return out;
}

void read_other_tiers(const fs::path& manifest, const Family& family,
                      const TierSelection& selection, std::string_view zeroforge_version,
                      const std::function<void(KeptEntry&&)>& keep,
                      const std::function<void(const std::string&)>& replaced) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(manifest, ec))) return;  // nothing to keep
  const std::string file = manifest.string();
  const std::string whole = "; generate the whole family (without --tier) to replace it";
  auto refuse = [&](const std::string& pointer, const std::string& why) {
    throw CodedError(Error(ErrorKind::Values, why, file, pointer), codes::generate_tier_manifest);
  };
  std::ifstream in(manifest, std::ios::binary);
  if (!in) refuse("", "cannot read it, so the other tiers' entries cannot be kept" + whole);

  // The head (zeroforge writes it before `configs`) is checked as it arrives, so that a
  // manifest of another family is refused for that, not for one of its entries.
  auto check_head = [&](const std::string& key, const Json& value) {
    auto expect = [&](const std::string& wanted, const std::string& why) {
      if (value.is_string() && value.get<std::string>() == wanted) return;
      refuse("/" + key, why + ", not " + value.dump() + whole);
    };
    if (key == "family") {
      expect(family.name, "this is the manifest of another family: " + family_named(family) +
                              " writes \"" + family.name + "\"");
    } else if (key == "template") {
      expect(family.template_name,
             "this manifest's configs were rendered from another "
             "template: " +
                 family_named(family) + " renders \"" + family.template_name + "\"");
    } else if (key == "zeroforge_version") {
      expect(std::string(zeroforge_version),
             "this manifest was written by another zeroforge version, whose configs of the "
             "other tiers may differ from what this one writes: this is \"" +
                 std::string(zeroforge_version) + "\"");
    }
  };
  auto take_entry = [&](std::size_t index, const Json& entry) {
    const std::string at = "/configs/" + std::to_string(index);
    auto path = entry.find("path");
    auto tier = entry.find("tier");
    if (path == entry.end() || !path->is_string() || !plain_path(path->get<std::string>()))
      refuse(at + "/path", "an entry without a relative path inside the directory" + whole);
    if (tier == entry.end() || !tier->is_string())
      refuse(at + "/tier", "an entry without a tier name" + whole);
    const std::string tier_name = tier->get<std::string>();
    std::size_t tier_index = family.tiers.size();
    for (std::size_t i = 0; i < family.tiers.size(); ++i)
      if (family.tiers[i].name == tier_name) tier_index = i;
    if (tier_index == family.tiers.size()) {
      refuse(at + "/tier", "lists a config of tier \"" + tier_name + "\", which " +
                               family_named(family) +
                               " does not have (its tiers: " + tier_list(family) +
                               "); generate the whole family (without --tier) to remove its "
                               "configs");
    }
    std::vector<std::string> companions;
    if (auto it = entry.find("companions"); it != entry.end()) {
      if (!it->is_object()) refuse(at + "/companions", "companions must be an object" + whole);
      for (const auto& [kind, companion] : it->items()) {
        if (!companion.is_string() || !plain_path(companion.get<std::string>()))
          refuse(at + "/companions/" + kind,
                 "a companion without a relative path inside the directory" + whole);
        companions.push_back(companion.get<std::string>());
      }
    }
    if (selection.contains(tier_index)) {
      replaced(path->get<std::string>());
      for (const auto& companion : companions) replaced(companion);
      return;
    }
    keep(KeptEntry{path->get<std::string>(), manifest_entry_text(entry), std::move(companions)});
  };

  // One entry at a time: the parser's callback takes each entry of `configs` as it closes and
  // drops it, so memory does not grow with the manifest.
  std::string key;          // the last top-level key
  bool in_configs = false;  // inside the top-level `configs` array
  std::size_t entries = 0;
  bool has[3] = {false, false, false};  // zeroforge_version, family, template seen
  const Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    if (depth == 1 && event == Event::key) key = parsed.get<std::string>();
    if (depth == 1 && event == Event::value) {
      if (key == "zeroforge_version") has[0] = true;
      if (key == "family") has[1] = true;
      if (key == "template") has[2] = true;
      check_head(key, parsed);
    }
    if (depth == 1 && event == Event::array_start) in_configs = key == "configs";
    if (depth == 1 && event == Event::array_end) in_configs = false;
    if (depth == 2 && in_configs && (event == Event::object_end || event == Event::value)) {
      if (!parsed.is_object())
        refuse("/configs/" + std::to_string(entries), "an entry that is not an object" + whole);
      take_entry(entries++, parsed);
      return false;
    }
    return true;
  };
  Json top;
  try {
    top = Json::parse(in, callback);
  } catch (const nlohmann::json::parse_error& error) {
    refuse("", "is not JSON (at byte " + std::to_string(error.byte) +
                   "), so the other tiers' entries cannot be kept" + whole);
  }
  if (!top.is_object() || !top.contains("configs") || !top["configs"].is_array())
    refuse("", "is not a zeroforge manifest (an object with \"configs\")" + whole);
  const char* head[] = {"zeroforge_version", "family", "template"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!has[i])
      refuse("", "is not a zeroforge manifest (no \"" + std::string(head[i]) + "\")" + whole);
  }
}

}  // namespace zf::pipeline
