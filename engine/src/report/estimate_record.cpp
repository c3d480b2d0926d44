// SPDX-License-Identifier: MIT
// read_estimate_record (see estimate_record.hpp): schema versions 1 and 2 of the memory estimate
// record checked key by key (an unknown key is an error, so a typo or a newer field fails
// loudly instead of vanishing from the page) and turned into the view's bars and trail.
#include "report/estimate_record.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "checked_math.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/memory_estimate.hpp"
#include "zeroforge/nearest_name.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kNoModel =
    "nothing names a model for this config (no auto_fit.model in its values, no --model), so "
    "there is nothing to estimate its memory from";

// How the page shows each part of `gpu.parts` (the SDK's kMemoryEstimateParts): the CSS class
// and pattern id, and the words.
struct PartStyle {
  std::string_view part;
  const char* key;
  const char* label;
};
constexpr PartStyle kPartStyles[] = {
    {"model_states", "model-states", "model states"},
    {"stage3_working_set", "working-set", "stage-3 working set"},
    {"comm_buffers", "buffers", "communication buffers"},
    {"activations", "activations", "activations"},
    {"fragmentation", "headroom", "fragmentation headroom"},
    {"optimizer_step", "optimizer-step", "optimizer step"},
    {"kept_activations", "kept-activations", "activation blocks kept"},
    {"cuda_context", "cuda-context", "CUDA context"},
};
static_assert(std::size(kPartStyles) == std::size(zf::sdk::kMemoryEstimateParts),
              "every part the SDK names has a style");

template <typename Range>
std::string listed(const Range& names, const char* last_separator = ", ") {
  std::string out;
  std::size_t i = 0;
  for (const auto& name : names) {
    out += (i == 0 ? "" : i + 1 == std::size(names) ? last_separator : ", ") + std::string(name);
    ++i;
  }
  return out;
}

// One plugin's record, read by pointer relative to it; every error names the whole pointer
// from the manifest's root and the plugin that wrote the record.
class Record {
 public:
  Record(const Json& root, std::string base, std::string plugin)
      : root_(root), base_(std::move(base)), plugin_(std::move(plugin)) {}

  const std::string& plugin() const { return plugin_; }

  const Json* find(const std::string& pointer) const {
    const Json::json_pointer ptr(pointer);
    return root_.contains(ptr) ? &root_.at(ptr) : nullptr;
  }
  const Json& at(const std::string& pointer) const {
    const Json* v = find(pointer);
    if (v == nullptr) fail(pointer, "missing");
    return *v;
  }
  // The object at `pointer`, whose keys are all among `keys`.
  template <std::size_t N>
  const Json& object(const std::string& pointer, const std::string_view (&keys)[N]) const {
    const Json& v = at(pointer);
    if (!v.is_object()) fail(pointer, "expected an object, got " + v.dump());
    for (const auto& item : v.items()) {
      if (std::find(std::begin(keys), std::end(keys), item.key()) != std::end(keys)) continue;
      std::string message = "unknown key '" + item.key() + "' (expected " + listed(keys) + ")";
      const std::string guess = zf::sdk::nearest_name(item.key(), keys);
      if (!guess.empty()) message += "; did you mean '" + guess + "'?";
      fail(pointer + "/" + escaped(item.key()), message);
    }
    return v;
  }
  const Json& list(const std::string& pointer) const {
    const Json& v = at(pointer);
    if (!v.is_array()) fail(pointer, "expected a list, got " + v.dump());
    return v;
  }
  std::int64_t integer(const std::string& pointer, std::int64_t least) const {
    const Json& v = at(pointer);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX) ||
        v.get<std::int64_t>() < least) {
      fail(pointer, "expected an integer >= " + std::to_string(least) + ", got " + v.dump());
    }
    return v.get<std::int64_t>();
  }
  // A byte count, or nullopt where the record has null or no key.
  std::optional<std::int64_t> optional_bytes(const std::string& pointer) const {
    const Json* v = find(pointer);
    if (v == nullptr || v->is_null()) return std::nullopt;
    return integer(pointer, 0);
  }
  std::string text(const std::string& pointer) const {
    const Json& v = at(pointer);
    if (!v.is_string()) fail(pointer, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  std::string optional_text(const std::string& pointer) const {
    return find(pointer) ? text(pointer) : "";
  }
  template <std::size_t N>
  std::string one_of(const std::string& pointer, const std::string_view (&names)[N]) const {
    const Json& v = at(pointer);
    if (!v.is_string() ||
        std::find(std::begin(names), std::end(names), v.get<std::string>()) == std::end(names)) {
      fail(pointer, "expected " + listed(names, " or ") + ", got " + v.dump());
    }
    return v.get<std::string>();
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw Error(ErrorKind::Plugin,
                "the family report cannot read it: " + message + " (a plugin named '" + plugin_ +
                    "' wrote it)",
                "manifest.json", base_ + pointer);
  }

 private:
  // A key as a JSON pointer token (RFC 6901: ~ as ~0, / as ~1).
  static std::string escaped(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  const Json& root_;
  std::string base_;
  std::string plugin_;
};

constexpr std::string_view kRecordKeys[] = {
    "schema_version", "model", "assumptions", "command", "gpu", "host", "cluster", "fit"};
constexpr std::string_view kSkippedKeys[] = {"schema_version", "skipped"};
constexpr std::string_view kGpuKeys[] = {"peak",           "parts",        "total_bytes",
                                         "capacity_bytes", "usable_bytes", "margin"};
constexpr std::string_view kPartKeys[] = {"part", "bytes"};
constexpr std::string_view kHostKeys[] = {"total_bytes", "capacity_bytes", "nvme_bytes"};
constexpr std::string_view kClusterKeys[] = {"gpus_per_node", "nodes"};
constexpr std::string_view kFitKeys[] = {"chosen",
                                         "micro_batch_size",
                                         "largest_fitting_micro_batch_size",
                                         "limited_by",
                                         "kept",
                                         "tried",
                                         "objective",
                                         "candidates",
                                         "ranking"};
// What version 2 added to `fit`.
constexpr std::string_view kRankingFitKeys[] = {"objective", "candidates", "ranking"};
constexpr std::string_view kObjectives[] = {"fastest"};
constexpr std::string_view kRankedKeys[] = {"rung",
                                            "activation_checkpointing",
                                            "micro_batch_size",
                                            "gradient_accumulation",
                                            "tokens_per_second",
                                            "seconds",
                                            "parts"};
constexpr std::string_view kCheckpointings[] = {"none", "selective", "full"};
constexpr std::string_view kRungKeys[] = {"stage", "offload_optimizer", "offload_param"};
constexpr std::string_view kTriedKeys[] = {
    "rung",      "micro_batch_size",   "gpu_bytes", "gpu_usable_bytes",
    "cpu_bytes", "cpu_capacity_bytes", "reason"};

std::int64_t check_version(const Record& r) {
  const std::int64_t version = r.integer("/schema_version", 1);
  if (version < zf::sdk::kMemoryEstimateFirstVersion || version > zf::sdk::kMemoryEstimateVersion) {
    r.fail("/schema_version",
           "schema version " + std::to_string(version) + " is not one this zeroforge reads (" +
               std::to_string(zf::sdk::kMemoryEstimateFirstVersion) + " to " +
               std::to_string(zf::sdk::kMemoryEstimateVersion) +
               "); build the plugin against this zeroforge's zeroforge/memory_estimate.hpp");
  }
  return version;
}

// A number of seconds or tokens per second: finite and not negative.
double amount(const Record& r, const std::string& pointer) {
  const Json& v = r.at(pointer);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    r.fail(pointer, "expected a number >= 0, got " + v.dump());
  return v.get<double>();
}

std::vector<Segment> read_parts(const Record& r) {
  std::vector<Segment> parts;
  std::vector<std::string> pointers;  // where each part was listed
  const Json& list = r.list("/gpu/parts");
  if (list.empty()) r.fail("/gpu/parts", "expected at least one part, got []");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "/gpu/parts/" + std::to_string(i);
    r.object(at, kPartKeys);
    const std::string name = r.one_of(at + "/part", zf::sdk::kMemoryEstimateParts);
    const PartStyle* style = std::find_if(std::begin(kPartStyles), std::end(kPartStyles),
                                          [&](const PartStyle& s) { return s.part == name; });
    for (std::size_t j = 0; j < parts.size(); ++j) {
      if (parts[j].key == std::string_view(style->key))
        r.fail(at + "/part", "part '" + name + "' is listed twice (also at " + pointers[j] + ")");
    }
    parts.push_back({style->key, style->label, r.integer(at + "/bytes", 0)});
    pointers.push_back(at);
  }
  return parts;
}

// Where a DeepSpeed offload device keeps the tensors, as the page says it.
std::string device_name(const std::string& device) {
  return device == "none" ? "GPU" : device == "cpu" ? "CPU" : "NVMe";
}

std::string rung_text(const Record& r, const std::string& at) {
  r.object(at, kRungKeys);
  auto where = [](const std::string& device) { return device_name(device); };
  const std::int64_t stage = r.integer(at + "/stage", 0);
  if (stage > 3) r.fail(at + "/stage", "expected a ZeRO stage 0-3, got " + std::to_string(stage));
  return "ZeRO-" + std::to_string(stage) + ", optimizer on " +
         where(r.one_of(at + "/offload_optimizer", zf::sdk::kMemoryEstimateDevices)) +
         ", parameters on " +
         where(r.one_of(at + "/offload_param", zf::sdk::kMemoryEstimateDevices));
}

Memory read_memory(const Record& r) {
  Memory m;
  m.publisher = r.plugin();
  m.model = r.text("/model");
  if (m.model.empty()) r.fail("/model", "expected the model's name, got \"\"");
  m.assumptions = r.optional_text("/assumptions");
  m.command = r.optional_text("/command");

  r.object("/gpu", kGpuKeys);
  m.step_is_peak = r.one_of("/gpu/peak", zf::sdk::kMemoryEstimatePeaks) == "optimizer_step";
  m.gpu = read_parts(r);
  m.gpu_total = r.integer("/gpu/total_bytes", 0);
  std::int64_t sum = 0;
  for (const Segment& s : m.gpu) {
    const std::optional<std::int64_t> next = detail::checked_sum(sum, s.bytes);
    if (!next) r.fail("/gpu/total_bytes", "the parts add up to more than 2^63 - 1 bytes");
    sum = *next;
  }
  if (sum != m.gpu_total) {
    r.fail("/gpu/total_bytes",
           "the parts add up to " + std::to_string(sum) + ", not " + std::to_string(m.gpu_total));
  }
  const std::optional<std::int64_t> capacity = r.optional_bytes("/gpu/capacity_bytes");
  const std::optional<std::int64_t> usable = r.optional_bytes("/gpu/usable_bytes");
  m.gpu_capacity = capacity.value_or(0);
  if (usable && !capacity)
    r.fail("/gpu/usable_bytes",
           "a usable memory needs the capacity, and /gpu/capacity_bytes is null");
  if (usable && *usable > *capacity) {
    r.fail("/gpu/usable_bytes", "expected at most the capacity (" + std::to_string(*capacity) +
                                    "), got " + std::to_string(*usable));
  }
  m.gpu_usable = usable.value_or(m.gpu_capacity);
  if (const Json* margin = r.find("/gpu/margin")) {
    if (!margin->is_number() || margin->get<double>() < 0 || margin->get<double>() >= 1)
      r.fail("/gpu/margin", "expected a fraction from 0 to below 1, got " + margin->dump());
    m.gpu_margin = margin->get<double>();
  }

  r.object("/host", kHostKeys);
  m.cpu_total = r.integer("/host/total_bytes", 0);
  m.cpu_capacity = r.optional_bytes("/host/capacity_bytes").value_or(0);
  m.nvme = r.optional_bytes("/host/nvme_bytes").value_or(0);

  r.object("/cluster", kClusterKeys);
  m.gpus_per_node = r.integer("/cluster/gpus_per_node", 1);
  m.nodes = r.integer("/cluster/nodes", 1);
  return m;
}

void read_ranking(const Record& r, AutoFit& a) {
  a.objective = r.one_of("/fit/objective", kObjectives);
  a.candidates = r.integer("/fit/candidates", 1);
  const Json& list = r.list("/fit/ranking");
  if (list.empty()) r.fail("/fit/ranking", "expected at least the chosen candidate, got []");
  if (static_cast<std::int64_t>(list.size()) > a.candidates) {
    r.fail("/fit/ranking", "lists " + std::to_string(list.size()) + " candidates of " +
                               std::to_string(a.candidates));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "/fit/ranking/" + std::to_string(i);
    r.object(at, kRankedKeys);
    RankedCandidate c;
    c.rung = rung_text(r, at + "/rung");
    c.stage = r.integer(at + "/rung/stage", 0);
    c.optimizer_on = device_name(r.text(at + "/rung/offload_optimizer"));
    c.parameters_on = device_name(r.text(at + "/rung/offload_param"));
    c.checkpointing = r.one_of(at + "/activation_checkpointing", kCheckpointings);
    c.micro_batch_size = r.integer(at + "/micro_batch_size", 1);
    c.gradient_accumulation = r.integer(at + "/gradient_accumulation", 1);
    c.tokens_per_second = amount(r, at + "/tokens_per_second");
    c.seconds = amount(r, at + "/seconds");
    const Json& parts = r.object(at + "/parts", zf::sdk::kMemoryEstimateStepParts);
    for (std::string_view part : zf::sdk::kMemoryEstimateStepParts) {
      const std::string name(part);
      if (!parts.contains(name)) r.fail(at + "/parts/" + name, "missing");
      c.parts.push_back({name, amount(r, at + "/parts/" + name)});
    }
    if (i > 0 && c.tokens_per_second > a.ranking.back().tokens_per_second) {
      r.fail(at + "/tokens_per_second",
             "the ranking is fastest first, and this candidate is faster than the one before");
    }
    a.ranking.push_back(std::move(c));
  }
}

AutoFit read_fit(const Record& r, std::int64_t version) {
  r.object("/fit", kFitKeys);
  AutoFit a;
  for (std::string_view key : kRankingFitKeys) {
    if (!r.find("/fit/" + std::string(key))) continue;
    if (version < 2) {
      r.fail("/fit/" + std::string(key),
             "a key of schema version 2, in a record that says schema_version 1");
    }
  }
  if (r.find("/fit/objective") || r.find("/fit/ranking") || r.find("/fit/candidates"))
    read_ranking(r, a);
  a.chosen = rung_text(r, "/fit/chosen");
  a.micro_batch_size = r.integer("/fit/micro_batch_size", 1);
  a.largest_fitting_micro_batch_size = r.integer("/fit/largest_fitting_micro_batch_size", 0);
  a.limited_by = r.text("/fit/limited_by");
  if (r.find("/fit/kept")) {
    const Json& kept = r.list("/fit/kept");
    for (std::size_t i = 0; i < kept.size(); ++i)
      a.pinned.push_back(r.text("/fit/kept/" + std::to_string(i)));
  }
  if (!r.find("/fit/tried")) return a;
  const Json& tried = r.list("/fit/tried");
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const std::string at = "/fit/tried/" + std::to_string(i);
    r.object(at, kTriedKeys);
    RejectedRung rung;
    rung.rung = rung_text(r, at + "/rung");
    rung.micro_batch_size = r.integer(at + "/micro_batch_size", 1);
    rung.gpu_bytes = r.integer(at + "/gpu_bytes", 0);
    rung.gpu_usable = r.integer(at + "/gpu_usable_bytes", 0);
    rung.cpu_bytes = r.integer(at + "/cpu_bytes", 0);
    rung.cpu_capacity = r.integer(at + "/cpu_capacity_bytes", 0);
    rung.reason = r.text(at + "/reason");
    a.escalated.push_back(std::move(rung));
  }
  return a;
}

}  // namespace

void read_estimate_record(const Json& entry, const std::string& base, Config& config) {
  const std::string key(zf::sdk::kMemoryEstimateKey);
  const Json* plugins = entry.contains("plugins") ? &entry["plugins"] : nullptr;
  std::string found;  // the plugin whose record was read
  if (plugins && plugins->is_object()) {
    for (const auto& item : plugins->items()) {
      const Json& annotation = item.value();
      if (!annotation.is_object() || !annotation.contains(key)) continue;
      const Record r(annotation[key], base + "/plugins/" + item.key() + "/" + key, item.key());
      if (!found.empty()) {
        r.fail("", "a second memory estimate for this config: plugin '" + found +
                       "' published one at " + base + "/plugins/" + found + "/" + key +
                       "; load one estimator");
      }
      found = item.key();
      if (!annotation[key].is_object())
        r.fail("", "expected an object, got " + annotation[key].dump());
      const std::int64_t version = check_version(r);
      if (annotation[key].contains("skipped")) {
        r.object("", kSkippedKeys);
        config.no_memory =
            "the " + found + " plugin could not estimate this config: " + r.text("/skipped");
        continue;
      }
      r.object("", kRecordKeys);
      config.memory = read_memory(r);
      if (r.find("/fit")) config.auto_fit = read_fit(r, version);
    }
  }
  if (found.empty()) config.no_memory = kNoModel;
}

}  // namespace zf::report
