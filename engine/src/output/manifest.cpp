// SPDX-License-Identifier: MIT
// The manifest of a generated config set (DIR/manifest.json) and the checks on output paths.
#include <algorithm>

#include "zeroforge/family.hpp"

namespace zf {

using Json = nlohmann::ordered_json;

Json facts_to_json(const DeepSpeedFacts& facts) {
  Json json = Json::object();
  json["world_size"] = facts.world_size;
  json["stage"] = facts.stage;
  json["precision"] = facts.precision;
  json["offload_optimizer"] = facts.offload_optimizer;
  json["offload_param"] = facts.offload_param;
  json["hf_auto"] = facts.hf_auto;
  json["micro_batch_size"] = facts.micro_batch_size;
  json["gradient_accumulation"] = facts.gradient_accumulation;
  json["train_batch_size"] = facts.train_batch_size;
  return json;
}

Json make_manifest(std::string_view zeroforge_version, const Family& family,
                   std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  Json configs = Json::array();
  for (auto& entry : entries) {
    Json item = Json::object();
    item["path"] = std::move(entry.path);
    item["tier"] = std::move(entry.tier);
    item["variant"] = std::move(entry.variant);
    for (auto& [key, value] : entry.facts.items()) item[key] = value;
    item["sha256"] = std::move(entry.sha256);
    if (!entry.plugins.empty()) item["plugins"] = std::move(entry.plugins);
    configs.push_back(std::move(item));
  }
  Json manifest = Json::object();
  manifest["zeroforge_version"] = std::string(zeroforge_version);
  manifest["family"] = family.name;
  manifest["template"] = family.template_name;
  manifest["configs"] = std::move(configs);
  return manifest;
}

std::vector<std::string> manifest_paths(const Json& manifest) {
  std::vector<std::string> paths;
  if (!manifest.is_object()) return paths;
  auto configs = manifest.find("configs");
  if (configs == manifest.end() || !configs->is_array()) return paths;
  for (const auto& entry : *configs) {
    if (!entry.is_object()) continue;
    auto path = entry.find("path");
    if (path != entry.end() && path->is_string()) paths.push_back(path->get<std::string>());
  }
  return paths;
}

std::string check_output_path(std::string_view rendered, const Family& family) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::Values, "output path \"" + std::string(rendered) + "\" " + why,
                family.file, "/output");
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
    std::string_view segment = text.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment.empty() || segment == "." || segment == "..") {
      fail("has an empty, '.' or '..' segment");
    }
    if (segment.find('\\') != std::string_view::npos || segment.find('\0') != std::string_view::npos) {
      fail("contains a backslash or NUL");
    }
    if (!out.empty()) out += '/';
    out += segment;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (out == "manifest.json") fail("is the manifest's own path");
  return out;
}

}  // namespace zf
