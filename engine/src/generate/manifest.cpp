// SPDX-License-Identifier: MIT
// The manifest of a generated config set (DIR/manifest.json), whole or piece by piece, and the
// checks on output paths.
#include "zeroforge/manifest.hpp"

#include <algorithm>

#include "io/json_text.hpp"
#include "text_helpers.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/family_file.hpp"

namespace zf {

using Json = nlohmann::ordered_json;

namespace {

// An entry as the manifest lists it: facts after the variant, then the hash, the companions
// and the plugins' annotations.
Json entry_json(ManifestEntry entry) {
  Json item = Json::object();
  item["path"] = std::move(entry.path);
  item["tier"] = std::move(entry.tier);
  item["variant"] = std::move(entry.variant);
  for (auto& [key, value] : entry.facts.items()) item[key] = value;
  item["sha256"] = std::move(entry.sha256);
  if (!entry.companions.empty()) item["companions"] = std::move(entry.companions);
  if (!entry.plugins.empty()) item["plugins"] = std::move(entry.plugins);
  return item;
}

// The indent of an entry inside `"configs": [...]`.
constexpr int kEntryIndent = 4;

// The same text as json.value(entry_json(entry), kEntryIndent), without building the object.
void write_entry(detail::JsonAppender& json, const ManifestEntry& entry) {
  constexpr std::string_view field = ",\n      \"";
  json.raw("{\n      \"path\": ");
  json.string(entry.path);
  json.raw(field);
  json.raw("tier\": ");
  json.string(entry.tier);
  json.raw(field);
  json.raw("variant\": ");
  json.value(entry.variant, kEntryIndent + 2);
  for (const auto& [key, value] : entry.facts.get_ref<const Json::object_t&>()) {
    json.raw(",\n      ");
    json.string(key);
    json.raw(": ");
    json.value(value, kEntryIndent + 2);
  }
  json.raw(field);
  json.raw("sha256\": ");
  json.string(entry.sha256);
  if (!entry.companions.empty()) {
    json.raw(field);
    json.raw("companions\": ");
    json.value(entry.companions, kEntryIndent + 2);
  }
  if (!entry.plugins.empty()) {
    json.raw(field);
    json.raw("plugins\": ");
    json.value(entry.plugins, kEntryIndent + 2);
  }
  json.raw("\n    }");
}

}  // namespace

Json facts_to_json(const DeepSpeedFacts& facts) {
  // Appended in place: the keys are distinct, so the per-key search of operator[] is not needed.
  Json json = Json::object();
  auto& members = json.get_ref<Json::object_t&>();
  members.reserve(9);
  members.emplace_back("world_size", facts.world_size);
  members.emplace_back("stage", facts.stage);
  members.emplace_back("precision", facts.precision);
  members.emplace_back("offload_optimizer", facts.offload_optimizer);
  members.emplace_back("offload_param", facts.offload_param);
  members.emplace_back("hf_auto", facts.hf_auto);
  members.emplace_back("micro_batch_size", facts.micro_batch_size);
  members.emplace_back("gradient_accumulation", facts.gradient_accumulation);
  members.emplace_back("train_batch_size", facts.train_batch_size);
  // Only where the values chose keys one by one (an imported config): other manifests keep
  // their nine facts.
  auto names = [](std::uint32_t bits, const std::vector<std::string_view>& all) {
    Json list = Json::array();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (bits & (std::uint32_t{1} << i)) list.push_back(all[i]);
    }
    return list;
  };
  if (facts.batch_keys != 0b111) {
    members.emplace_back("batch_keys", names(facts.batch_keys, deepspeed_batch_keys()));
  }
  if (facts.auto_keys != 0) {
    members.emplace_back("auto_keys", names(facts.auto_keys, trainer_filled_keys()));
  }
  return json;
}

Json make_manifest(std::string_view zeroforge_version, const Family& family,
                   std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  Json configs = Json::array();
  for (auto& entry : entries) configs.push_back(entry_json(std::move(entry)));
  Json manifest = Json::object();
  manifest["zeroforge_version"] = std::string(zeroforge_version);
  manifest["family"] = family.name;
  manifest["template"] = family.template_name;
  manifest["configs"] = std::move(configs);
  return manifest;
}

std::string manifest_head(std::string_view zeroforge_version, const Family& family) {
  std::string out;
  {  // the appender cuts `out` to its text when it goes
    detail::JsonAppender json(out);
    json.raw("{\n  \"zeroforge_version\": ");
    json.string(zeroforge_version);
    json.raw(",\n  \"family\": ");
    json.string(family.name);
    json.raw(",\n  \"template\": ");
    json.string(family.template_name);
    json.raw(",\n  \"configs\": [");
  }
  return out;
}

std::string manifest_entry_text(const ManifestEntry& entry) {
  std::string out;
  out.reserve(512);
  // The facts' members read straight from the object: items()' proxy made this check a third
  // of the entry's cost (it is asked once per config).
  bool plain = true;
  if (entry.facts.is_object()) {
    for (const auto& [key, value] : entry.facts.get_ref<const Json::object_t&>()) {
      if (key == "path" || key == "tier" || key == "variant" || key == "sha256" ||
          key == "companions" || key == "plugins") {
        plain = false;
        break;
      }
    }
  }
  {  // the appender cuts `out` to its text when it goes
    detail::JsonAppender json(out);
    json.raw(std::string_view("    ", kEntryIndent));
    if (plain) {
      write_entry(json, entry);
    } else {  // a fact that shadows an entry field: let the JSON object decide the order
      json.value(entry_json(entry), kEntryIndent);
    }
  }
  return out;
}

std::string manifest_entry_text(const Json& entry) {
  std::string out;
  {  // the appender cuts `out` to its text when it goes
    detail::JsonAppender json(out);
    json.raw(std::string_view("    ", kEntryIndent));
    json.value(entry, kEntryIndent);
  }
  return out;
}

std::string_view manifest_separator(std::size_t index) { return index == 0 ? "\n" : ",\n"; }

std::string_view manifest_tail(std::size_t entries) {
  return entries == 0 ? "]\n}\n" : "\n  ]\n}\n";
}

std::string check_output_path(std::string_view rendered, const Family& family) {
  auto fail = [&](const std::string& why) {
    // Quoted, so a newline or an escape in the path is shown, not obeyed.
    const std::string shown = detail::quoted_for_message(rendered);
    throw Error(ErrorKind::Values, "output path " + shown + " " + why, family.file, "/output");
  };
  std::string_view text = rendered;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  if (text.empty()) fail("is empty");
  if (text.front() == '/') fail("is absolute; it must be relative to the output directory");
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto slash = text.find('/', start);
    std::string_view segment =
        text.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment.empty() || segment == "." || segment == "..") {
      fail("has an empty, '.' or '..' segment");
    }
    if (segment.find('\\') != std::string_view::npos ||
        segment.find('\0') != std::string_view::npos) {
      fail("contains a backslash or NUL");
    }
    // A control character or line break (a newline, a tab, ESC, U+0085, U+2028) in a file
    // name breaks every line-based tool downstream and can forge output lines (the path is
    // written in the accelerate config's comment, which YAML 1.1 ends at U+2028 as at a
    // newline); refuse it, as git refuses such names.
    if (auto control = detail::find_line_control(segment)) {
      fail("contains a control character or line break (" +
           detail::code_point_name(control->code_point) + ")");
    }
    if (segment.size() > 255) {
      fail("has a name of " + std::to_string(segment.size()) +
           " bytes; file systems allow 255 (NAME_MAX)");
    }
    if (!out.empty()) out += '/';
    out += segment;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (out == "manifest.json") fail("is the manifest's own path");
  // PATH_MAX (4096) with room for DIR itself and the staging prefix in front.
  if (out.size() > 3072) fail("is " + std::to_string(out.size()) + " bytes long; at most 3072");
  return out;
}

}  // namespace zf
