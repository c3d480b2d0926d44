// SPDX-License-Identifier: MIT
// make_view (see report_view.hpp): the manifest's entries grouped by tier, the memory
// plugin's records read into bars and trails, findings and changes attached to their config.
#include "report/report_view.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "zeroforge/error.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

// A value of the generated manifest, by pointer, or an error naming it. `kind` is Plugin
// for what a plugin recorded, Json for the manifest's own fields.
class Reader {
 public:
  Reader(const Json& root, std::string base, ErrorKind kind)
      : root_(root), base_(std::move(base)), kind_(kind) {}

  const Json& at(const std::string& pointer) const {
    const Json::json_pointer ptr(pointer);
    if (!root_.contains(ptr)) fail(pointer, "missing");
    return root_.at(ptr);
  }
  std::int64_t integer(const std::string& pointer) const {
    const Json& v = at(pointer);
    if (!v.is_number_integer()) fail(pointer, "expected an integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  // An integer, or 0 for null.
  std::int64_t integer_or_zero(const std::string& pointer) const {
    return at(pointer).is_null() ? 0 : integer(pointer);
  }
  std::string text(const std::string& pointer) const {
    const Json& v = at(pointer);
    if (!v.is_string()) fail(pointer, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(kind_,
                "the family report cannot read it: " + message +
                    (kind_ == ErrorKind::Plugin ? " (a plugin named 'memory' wrote it)" : ""),
                "manifest.json", base_ + pointer);
  }

 private:
  const Json& root_;
  std::string base_;
  ErrorKind kind_;
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

std::string where_text(const std::string& where) {
  if (where == "none") return "GPU";
  if (where == "cpu") return "CPU";
  if (where == "nvme") return "NVMe";
  return where;
}

std::string rung_text(const Reader& r, const std::string& at) {
  return "ZeRO-" + std::to_string(r.integer(at + "/stage")) + ", optimizer on " +
         where_text(r.text(at + "/offload_optimizer")) + ", parameters on " +
         where_text(r.text(at + "/offload_param"));
}

Memory read_memory(const Reader& r) {
  Memory m;
  m.model = r.text("/model/name");
  m.step_is_peak = r.at("/optimizer_step/is_peak").get<bool>();
  m.gpu.push_back({"model-states", "model states", r.integer("/model_states/gpu_bytes")});
  m.gpu.push_back(
      {"working-set", "stage-3 working set", r.integer("/stage3_working_set/gpu_bytes")});
  m.gpu.push_back({"buffers", "communication buffers", r.integer("/comm_buffers/gpu_bytes")});
  if (m.step_is_peak) {
    m.gpu.push_back({"optimizer-step", "optimizer step", r.integer("/optimizer_step/gpu_bytes")});
    m.gpu.push_back({"kept-activations", "activation blocks kept",
                     r.integer("/optimizer_step/unreused_activation_bytes")});
  } else {
    m.gpu.push_back({"activations", "activations", r.integer("/activations/gpu_bytes")});
    m.gpu.push_back({"headroom", "fragmentation headroom", r.integer("/headroom/gpu_bytes")});
  }
  m.gpu.push_back({"cuda-context", "CUDA context", r.integer("/cuda_context/gpu_bytes")});
  m.gpu_total = r.integer("/total/gpu_bytes");
  std::int64_t sum = 0;
  for (const Segment& s : m.gpu) sum += s.bytes;
  if (sum != m.gpu_total) {
    r.fail("/total/gpu_bytes",
           "the parts add up to " + std::to_string(sum) + ", not " + std::to_string(m.gpu_total));
  }
  m.gpu_capacity = r.integer_or_zero("/capacity/gpu_bytes");
  // The safety margin (docs/estimator.md): recorded since the margin exists; before, none.
  m.gpu_usable = r.at("/capacity").contains("gpu_usable_bytes")
                     ? r.integer_or_zero("/capacity/gpu_usable_bytes")
                     : m.gpu_capacity;
  m.gpu_margin = r.at("/inputs").value("gpu_memory_margin", 0.0);
  m.cpu_total = r.integer("/total/cpu_bytes");
  m.cpu_capacity = r.integer_or_zero("/capacity/cpu_bytes");
  m.nvme = r.integer("/model_states/nvme_bytes");
  m.gpus_per_node = r.integer("/inputs/gpus_per_node");
  m.nodes = r.integer("/inputs/nodes");
  const Json& model = r.at("/model");
  const Json& inputs = r.at("/inputs");
  char headroom[32];
  std::snprintf(headroom, sizeof headroom, "%.0f%%", inputs.value("headroom", 0.0) * 100.0);
  if (model.contains("seq_len")) m.assumptions = "sequence " + scalar_text(model["seq_len"]) + ", ";
  m.assumptions += "activation checkpointing " + inputs.value("activation_checkpointing", "?") +
                   ", " + inputs.value("attention", "?") + " attention, " +
                   inputs.value("loss", "?") + " loss, fragmentation headroom " + headroom +
                   " of activations";
  return m;
}

AutoFit read_auto_fit(const Reader& r) {
  AutoFit a;
  a.chosen = rung_text(r, "");
  a.micro_batch_size = r.integer("/micro_batch_size");
  a.largest_fitting_micro_batch_size = r.integer("/largest_fitting_micro_batch_size");
  a.limited_by = r.text("/micro_batch_limited_by");
  for (const auto& name : r.at("/pinned")) a.pinned.push_back(scalar_text(name));
  const Json& escalated = r.at("/escalated");
  for (std::size_t i = 0; i < escalated.size(); ++i) {
    const std::string at = "/escalated/" + std::to_string(i);
    RejectedRung rung;
    rung.rung = rung_text(r, at);
    rung.micro_batch_size = r.integer(at + "/micro_batch_size");
    rung.gpu_bytes = r.integer(at + "/gpu_bytes");
    rung.gpu_capacity = r.integer(at + "/gpu_capacity_bytes");
    rung.gpu_usable = r.at(at).contains("gpu_usable_bytes") ? r.integer(at + "/gpu_usable_bytes")
                                                            : rung.gpu_capacity;
    rung.cpu_bytes = r.integer(at + "/cpu_bytes");
    rung.cpu_capacity = r.integer(at + "/cpu_capacity_bytes");
    rung.reason = r.text(at + "/reason");
    a.escalated.push_back(std::move(rung));
  }
  return a;
}

constexpr const char* kNoModel =
    "nothing names a model for this config (no auto_fit.model in its values, no --model), so "
    "there is nothing to estimate its memory from";

Config read_config(const Json& entry, std::size_t index) {
  const std::string base = "/configs/" + std::to_string(index);
  const Reader r(entry, base, ErrorKind::Json);
  Config c;
  c.path = r.text("/path");
  c.variant = entry.contains("variant") ? variant_text(entry["variant"]) : "";
  c.sha256 = r.text("/sha256");
  c.facts = Json::object();
  for (const auto& [key, value] : entry.items()) {
    if (key != "path" && key != "tier" && key != "variant" && key != "sha256" && key != "plugins")
      c.facts[key] = value;
  }
  const Json::json_pointer memory_at("/plugins/memory");
  const Json* memory = entry.contains(memory_at) ? &entry.at(memory_at) : nullptr;
  if (memory && memory->contains("estimate")) {
    const Json& record = memory->at("estimate");
    if (record.contains("skipped")) {
      c.no_memory =
          "the memory plugin could not estimate this config: " + scalar_text(record["skipped"]);
    } else {
      c.memory = read_memory(Reader(record, base + "/plugins/memory/estimate", ErrorKind::Plugin));
    }
  } else {
    c.no_memory = kNoModel;
  }
  if (memory && memory->contains("auto_fit")) {
    c.auto_fit = read_auto_fit(
        Reader(memory->at("auto_fit"), base + "/plugins/memory/auto_fit", ErrorKind::Plugin));
  }
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

View make_view(const ViewInputs& in) {
  const Json& manifest = in.manifest;
  const Reader r(manifest, "", ErrorKind::Json);
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
