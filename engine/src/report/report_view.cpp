// SPDX-License-Identifier: MIT
// make_view (see report_view.hpp): the manifest's entries grouped by tier, the memory
// estimate records plugins published read into bars and trails (estimate_record.cpp),
// findings and changes attached to their config.
#include "report/report_view.hpp"

#include <algorithm>
#include <set>

#include "report/estimate_record.hpp"
#include "zeroforge/error.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

// A value of the generated manifest, by pointer, or an error naming it (the manifest's own
// fields; plugin records are estimate_record.cpp's).
class Reader {
 public:
  Reader(const Json& root, std::string base) : root_(root), base_(std::move(base)) {}

  const Json& at(const std::string& pointer) const {
    const Json::json_pointer ptr(pointer);
    if (!root_.contains(ptr)) fail(pointer, "missing");
    return root_.at(ptr);
  }
  std::string text(const std::string& pointer) const {
    const Json& v = at(pointer);
    if (!v.is_string()) fail(pointer, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(ErrorKind::Json, "the family report cannot read it: " + message, "manifest.json",
                base_ + pointer);
  }

 private:
  const Json& root_;
  std::string base_;
};

std::string scalar_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string variant_text(const Json& variant) {
  std::string out;
  if (!variant.is_object()) return scalar_text(variant);
  for (const auto& [key, value] : variant.items())
    out += (out.empty() ? "" : " ") + key + "=" + scalar_text(value);
  return out;
}

Config read_config(const Json& entry, std::size_t index) {
  const std::string base = "/configs/" + std::to_string(index);
  const Reader r(entry, base);
  Config c;
  c.path = r.text("/path");
  c.variant = entry.contains("variant") ? variant_text(entry["variant"]) : "";
  c.sha256 = r.text("/sha256");
  c.facts = Json::object();
  for (const auto& [key, value] : entry.items()) {
    if (key != "path" && key != "tier" && key != "variant" && key != "sha256" && key != "plugins")
      c.facts[key] = value;
  }
  read_estimate_record(entry, base, c);
  return c;
}

}  // namespace

const char* to_string(Change change) {
  switch (change) {
    case Change::NotCompared:
      return "";
    case Change::New:
      return "new";
    case Change::Changed:
      return "changed";
    case Change::Unchanged:
      return "unchanged";
  }
  return "";
}

std::string name_in_tier(const Config& config, const Tier& tier) {
  const std::string prefix = tier.name + "/";
  if (!tier.name.empty() && config.path.starts_with(prefix))
    return config.path.substr(prefix.size());
  return config.path;
}

bool Tier::charted() const {
  return std::any_of(configs.begin(), configs.end(),
                     [](const Config& c) { return c.memory.has_value(); });
}

bool Tier::ranked() const {
  return std::any_of(configs.begin(), configs.end(), [](const Config& c) {
    return c.auto_fit.has_value() && !c.auto_fit->ranking.empty();
  });
}

View make_view(const ViewInputs& in) {
  const Json& manifest = in.manifest;
  const Reader r(manifest, "");
  View view;
  view.family = r.text("/family");
  view.template_name = manifest.value("template", "");
  view.zeroforge_version = r.text("/zeroforge_version");
  view.description = in.description;
  view.link_dir = in.link_dir;
  view.manifest_written = in.manifest_written;
  view.baseline = in.baseline;

  // Tiers in the family's order; a tier the family does not name (none: "") after them.
  std::vector<std::string> order = in.tier_order;
  const Json& entries = r.at("/configs");
  for (const auto& entry : entries) {
    const std::string tier = entry.value("tier", "");
    if (std::find(order.begin(), order.end(), tier) == order.end()) order.push_back(tier);
  }
  for (const auto& name : order) view.tiers.push_back(Tier{name, {}});

  std::map<std::string, std::vector<Finding>> findings;  // by config path
  for (const Finding& finding : in.findings) {
    Finding relative = finding;
    if (relative.file.starts_with(in.finding_prefix))
      relative.file.erase(0, in.finding_prefix.size());
    findings[relative.file].push_back(std::move(relative));
  }
  std::set<std::string> generated;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Config config = read_config(entries[i], i);
    if (in.baseline.present && in.baseline.problem.empty()) {
      auto old = in.baseline.sha256.find(config.path);
      config.change = old == in.baseline.sha256.end() ? Change::New
                      : old->second == config.sha256  ? Change::Unchanged
                                                      : Change::Changed;
    }
    if (auto it = findings.find(config.path); it != findings.end())
      config.findings = std::move(it->second);
    generated.insert(config.path);
    const std::string tier = entries[i].value("tier", "");
    for (Tier& t : view.tiers) {
      if (t.name == tier) t.configs.push_back(std::move(config));
    }
    ++view.configs;
  }
  // Tiers of the family that made no config (every variant excluded there) are dropped.
  view.tiers.erase(std::remove_if(view.tiers.begin(), view.tiers.end(),
                                  [](const Tier& t) { return t.configs.empty(); }),
                   view.tiers.end());
  for (Tier& tier : view.tiers) {
    std::sort(tier.configs.begin(), tier.configs.end(),
              [](const Config& a, const Config& b) { return a.path < b.path; });
  }
  if (in.baseline.present && in.baseline.problem.empty()) {
    for (const auto& [path, sha] : in.baseline.sha256) {
      if (!generated.count(path)) view.removed.push_back(path);
    }
  }
  return view;
}

}  // namespace zf::report
