// SPDX-License-Identifier: MIT
// The DeepSpeed values contract (docs/values.md): types, ranges, the stage-applicability rules
// DeepSpeed would otherwise silently ignore, and the batch arithmetic, checked before rendering.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "checked_math.hpp"
#include "deepspeed/value_names.hpp"
#include "deepspeed/world_size.hpp"
#include "text_helpers.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/sourced_values.hpp"

namespace zf {
namespace {

enum class Type {
  Bool,
  PositiveInt,
  NonNegativeInt,
  PositiveNumber,
  NonNegativeNumber,
  String,
  Any
};

struct Field {
  std::string_view key;
  Type type;
  bool nullable = false;
};

// The sections the template reads, with their fields. Top-level scalars are checked one by one.
// A nullable knob the template writes is left out when null (DeepSpeed's default applies):
// how an imported config that leaves a key to DeepSpeed is said (docs/values.md).
constexpr std::array kZeroFields = {
    Field{"overlap_comm", Type::Bool, true},
    Field{"contiguous_gradients", Type::Bool, true},
    Field{"reduce_scatter", Type::Bool, true},
    Field{"reduce_bucket_size", Type::PositiveInt, true},
    Field{"allgather_bucket_size", Type::PositiveInt, true},
    Field{"round_robin_gradients", Type::Bool},
    Field{"sub_group_size", Type::PositiveInt, true},
    Field{"stage3_prefetch_bucket_size", Type::NonNegativeInt, true},
    Field{"stage3_param_persistence_threshold", Type::NonNegativeInt, true},
    Field{"stage3_max_live_parameters", Type::NonNegativeInt, true},
    Field{"stage3_max_reuse_distance", Type::NonNegativeInt, true},
    Field{"stage3_gather_16bit_weights_on_model_save", Type::Bool, true},
    Field{"quantized_weights", Type::Bool},
    Field{"quantized_gradients", Type::Bool},
    Field{"hpz", Type::Bool},
    Field{"hpz_partition_size", Type::PositiveInt, true},
    Field{"log_trace_cache_warnings", Type::Bool},
};
constexpr std::array kFp16Fields = {
    Field{"loss_scale", Type::NonNegativeNumber, true},
    Field{"initial_scale_power", Type::NonNegativeInt, true},
    Field{"loss_scale_window", Type::PositiveInt, true},
    Field{"hysteresis", Type::PositiveInt, true},
    Field{"min_loss_scale", Type::PositiveNumber, true},
};
constexpr std::array kOffloadFields = {
    Field{"pin_memory", Type::Bool, true},
    Field{"optimizer_buffer_count", Type::PositiveInt, true},
    Field{"param_buffer_count", Type::PositiveInt, true},
    Field{"param_buffer_size", Type::PositiveInt, true},
    Field{"param_max_in_cpu", Type::NonNegativeInt, true},
};
constexpr std::array kAioFields = {
    Field{"block_size", Type::PositiveInt, true},
    Field{"queue_depth", Type::PositiveInt, true},
    Field{"intra_op_parallelism", Type::PositiveInt, true},
    Field{"single_submit", Type::Bool, true},
    Field{"overlap_events", Type::Bool, true},
};
constexpr std::array kOptimizerFields = {
    Field{"type", Type::String},
    Field{"lr", Type::PositiveNumber, true},
    Field{"betas", Type::Any},
    Field{"eps", Type::PositiveNumber, true},
    Field{"weight_decay", Type::NonNegativeNumber, true},
};
constexpr std::array kSchedulerFields = {
    Field{"type", Type::String},
    Field{"warmup_min_lr", Type::NonNegativeNumber, true},
    Field{"warmup_max_lr", Type::PositiveNumber, true},
    Field{"warmup_num_steps", Type::PositiveInt, true},
    Field{"total_num_steps", Type::PositiveInt, true},
};
constexpr std::array kCheckpointingFields = {
    Field{"partition_activations", Type::Bool},
    Field{"cpu_checkpointing", Type::Bool},
    Field{"contiguous_memory_optimization", Type::Bool},
    Field{"number_checkpoints", Type::PositiveInt, true},
    Field{"synchronize_checkpoint_boundary", Type::Bool},
    Field{"profile", Type::Bool, true},
};
// Values that ask for a DeepSpeed config key some releases lack, with that key: asked for when
// set and neither null nor false, refused where deepspeed_version does not read the key (the
// template would write a key that release refuses). The release history decides, so a new
// release needs no change here.
struct ReleaseFeature {
  std::string_view value;       // a JSON pointer into the values
  std::string_view config_key;  // the config key the template writes for it
};
constexpr std::array kReleaseFeatures = {
    ReleaseFeature{"/zero/log_trace_cache_warnings", "/zero_optimization/log_trace_cache_warnings"},
};

// The DeepSpeed keys the HF Trainer fills when they say "auto" (deepspeed-notes.md): what a
// list in `hf_auto` may name (`true` names them all).
constexpr std::array<std::string_view, 17> kTrainerKeys = {
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "gradient_accumulation_steps",
    "gradient_clipping",
    "optimizer.params.lr",
    "optimizer.params.betas",
    "optimizer.params.eps",
    "optimizer.params.weight_decay",
    "scheduler.params.warmup_min_lr",
    "scheduler.params.warmup_max_lr",
    "scheduler.params.warmup_num_steps",
    "scheduler.params.total_num_steps",
    "fp16.enabled",
    "bf16.enabled",
    "zero_optimization.reduce_bucket_size",
    "zero_optimization.stage3_prefetch_bucket_size",
    "zero_optimization.stage3_param_persistence_threshold"};
// The batch keys `batch_keys` may name: the ones the template writes.
constexpr std::array<std::string_view, 3> kBatchKeys = {
    "train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"};
// Every top-level value the contract knows, plus the tier facts plugins read, the memory
// plugin's `auto_fit`, and what companions read (`launch`; the template ignores it):
// an unknown name close to one of these is a typo, reported; other names are left for custom
// templates.
constexpr std::array<std::string_view, 41> kKnownNames = {"stage",
                                                          "precision",
                                                          "offload_optimizer",
                                                          "offload_param",
                                                          "nvme_path",
                                                          "micro_batch_size",
                                                          "gradient_accumulation",
                                                          "global_batch_size",
                                                          "batch_keys",
                                                          "gpus_per_node",
                                                          "nodes",
                                                          "world_size",
                                                          "hf_auto",
                                                          "gradient_clipping",
                                                          "steps_per_print",
                                                          "wall_clock_breakdown",
                                                          "optimizer",
                                                          "scheduler",
                                                          "fp16",
                                                          "zero",
                                                          "offload",
                                                          "aio",
                                                          "activation_checkpointing",
                                                          "monitor",
                                                          "extra",
                                                          "gpu_memory_gib",
                                                          "cpu_memory_gib",
                                                          "cpu_cores",
                                                          "gpu_memory_margin",
                                                          "gpu",
                                                          "gpu_tflops",
                                                          "intra_node_gbs",
                                                          "inter_node_gbs",
                                                          "pcie_gbs",
                                                          "nvme_gbs",
                                                          "tier",
                                                          "model",
                                                          "auto_fit",
                                                          "launch",
                                                          "deepspeed_version",
                                                          "accelerate_version"};

// A top-level value the contract knows: its index in kKnownNames.
struct Name {
  std::size_t index;
  std::string_view text() const { return kKnownNames[index]; }
};

// `known("stage")`: resolved at compile time, so a misspelt name fails the build.
consteval Name known(std::string_view text) {
  for (std::size_t i = 0; i < kKnownNames.size(); ++i) {
    if (kKnownNames[i] == text) return Name{i};
  }
  throw "not in kKnownNames";
}

// The index in kKnownNames of `key`, or kKnownNames.size().
std::size_t known_index(std::string_view key) {
  static const std::unordered_map<std::string_view, std::size_t> index = [] {
    std::unordered_map<std::string_view, std::size_t> map;
    for (std::size_t i = 0; i < kKnownNames.size(); ++i) map.emplace(kKnownNames[i], i);
    return map;
  }();
  auto it = index.find(key);
  return it == index.end() ? kKnownNames.size() : it->second;
}

template <std::size_t N>
std::string closest(std::string_view name, const std::array<std::string_view, N>& names) {
  return detail::nearest_name(name, names);
}

// JSON's kinds, as the values arrive from it: Value counts a bool as a number, JSON does not.
bool is_json_number(const Value& v) { return v.is_int() || v.is_float(); }

bool is_integral(const Value& v) {
  if (v.is_int()) return true;
  if (!v.is_float()) return false;
  double d = v.as_double();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

std::int64_t as_int(const Value& v) {
  return v.is_float() ? static_cast<std::int64_t>(v.as_double()) : v.as_int();
}

bool is_nonempty_string(const Value& v) { return v.is_string() && !v.as_string().empty(); }

// The value as JSON text, for messages.
std::string shown(const Value& v) { return v.to_json().dump(); }

// The values under check: `top` over `base` (generate's VariantValues), or `top` alone. A key
// in `top` hides the base's; walked as the merged values would be, base keys first.
struct Layers {
  const ValueDict& top;
  const ValueDict* base;
};

class Checker {
 public:
  Checker(Layers values, const SourcedValues* sources) : values_(values), sources_(sources) {}

  ContractCheck run() {
    check_names();
    check_enums();
    check_sizes();
    check_flags();
    check_section(known("fp16"), kFp16Fields, false);
    check_section(known("zero"), kZeroFields, false);
    check_section(known("offload"), kOffloadFields, false);
    check_section(known("aio"), kAioFields, true);
    check_optimizer();
    check_scheduler();
    check_section(known("activation_checkpointing"), kCheckpointingFields, true);
    check_monitor();
    check_deepspeed_release();
    check_accelerate_release();
    if (result_.ok()) check_hf_keys();
    if (result_.ok()) check_applicability();
    if (result_.ok()) check_batch();
    return std::move(result_);
  }

 private:
  void fail(const std::string& pointer, std::string message) {
    if (sources_ != nullptr) {
      result_.problems.push_back(sources_->error_at(pointer, std::move(message)));
    } else {
      result_.problems.emplace_back(ErrorKind::Values, std::move(message), "", pointer);
    }
  }
  // "stage=2 (family presets/families/x.json)" or "stage=2": for messages only.
  std::string describe(const std::string& pointer) const {
    if (sources_ != nullptr) return sources_->describe(pointer);
    std::string name = pointer.substr(1);
    std::replace(name.begin(), name.end(), '/', '.');  // as SourcedValues::describe
    const Value* v = find(pointer);
    if (v == nullptr) return name;
    return name + '=' + (v->is_string() ? v->as_string() : shown(*v));
  }
  // The value at a JSON pointer of unescaped object keys ("/zero/stage"), or null.
  const Value* find(std::string_view pointer) const {
    const Value* node = nullptr;
    while (!pointer.empty()) {
      pointer.remove_prefix(1);  // the '/'
      std::size_t end = pointer.find('/');
      std::string_view key = pointer.substr(0, end);
      if (node == nullptr) {
        node = values_.top.find(key);
        if (node == nullptr && values_.base != nullptr) node = values_.base->find(key);
      } else {
        node = node->is_dict() ? node->as_dict().find(key) : nullptr;
      }
      if (node == nullptr) return nullptr;
      pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    }
    return node;
  }
  // A top-level value the contract knows, or null (valid after check_names).
  const Value* get(Name name) const { return slots_[name.index]; }
  // A required top-level value; reports it missing (no defaults were applied) and returns null.
  const Value* require(Name name) {
    const Value* value = get(name);
    if (value == nullptr) {
      std::string key(name.text());
      fail("/" + key, "missing value '" + key + "' (the template defaults were not applied?)");
    }
    return value;
  }

  // Indexes the known values (every later check reads them by index, not by a search per key)
  // and reports unknown names close to a known one, in the merged values' key order.
  void check_names() {
    std::size_t position = 0;
    if (values_.base != nullptr) {
      for (const auto& [key, value] : *values_.base) index_name(key, &value, position);
    }
    for (const auto& [key, value] : values_.top) {
      if (values_.base != nullptr && values_.base->contains(key)) {
        // Indexed (and, if unknown, reported) at its place in the base: only the value changes.
        if (std::size_t i = known_index(key); i < kKnownNames.size()) slots_[i] = &value;
        continue;
      }
      index_name(key, &value, position);
    }
  }
  // One name of the merged values, the `position`-th.
  void index_name(const std::string& key, const Value* value, std::size_t& position) {
    // The variants of a family hold their keys in the same order, so the name at each position
    // is first compared with the one found there last time, which is nearly always it.
    thread_local std::vector<std::size_t> last_index;
    if (position == last_index.size()) last_index.push_back(kKnownNames.size());
    std::size_t& i = last_index[position++];
    if (i == kKnownNames.size() || kKnownNames[i] != key) i = known_index(key);
    if (i < kKnownNames.size()) {
      slots_[i] = value;
      return;
    }
    // Values carry other keys too (tier facts, the family's own names): each distinct key's
    // verdict is worked out once per thread, not once per variant.
    thread_local std::unordered_map<std::string, std::string> guesses;
    auto guessed = guesses.find(key);
    if (guessed == guesses.end()) guessed = guesses.emplace(key, closest(key, kKnownNames)).first;
    const std::string& guess = guessed->second;
    if (!guess.empty()) {
      fail("/" + escape_pointer_segment(key),
           "unknown value '" + key + "'; did you mean '" + guess + "'?");
    }
  }

  void check_enum(Name name, std::initializer_list<std::string_view> allowed, std::string* out) {
    const Value* v = require(name);
    if (v == nullptr) return;
    if (v->is_string() &&
        std::find(allowed.begin(), allowed.end(), v->as_string()) != allowed.end()) {
      if (out) *out = v->as_string();
      return;
    }
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : "|") + std::string(a);
    std::string key(name.text());
    fail("/" + key, key + " must be one of " + list + ", got " + shown(*v));
  }

  void check_enums() {
    if (const Value* v = require(known("stage"))) {
      if (v->is_int() && v->as_int() >= 0 && v->as_int() <= 3) {
        result_.facts.stage = static_cast<int>(v->as_int());
      } else if (v->is_none()) {
        result_.facts.stage = 0;  // no zero_optimization is written: DeepSpeed's stage 0
      } else {
        fail("/stage", "stage must be an integer 0-3 or null, got " + shown(*v));
      }
    }
    check_enum(known("precision"), {"fp32", "fp16", "bf16"}, &result_.facts.precision);
    check_enum(known("offload_optimizer"), {"none", "cpu", "nvme"},
               &result_.facts.offload_optimizer);
    check_enum(known("offload_param"), {"none", "cpu", "nvme"}, &result_.facts.offload_param);
    if (const Value* v = require(known("nvme_path"))) {
      if (!v->is_none() && !is_nonempty_string(*v)) {
        fail("/nvme_path", "nvme_path must be a non-empty string or null, got " + shown(*v));
      }
    }
  }

  bool check_type(const std::string& pointer, const Value& v, Type type, bool nullable) {
    return check_type_at([&] { return pointer; }, v, type, nullable);
  }
  // `make_pointer()` names the value; it is only called for an error (this runs for every
  // value of every variant).
  template <typename MakePointer>
  bool check_type_at(MakePointer&& make_pointer, const Value& v, Type type, bool nullable) {
    if (nullable && v.is_none()) return true;
    auto bad = [&](const char* expected) {
      std::string pointer = make_pointer();
      std::string name = pointer.substr(1);
      std::replace(name.begin(), name.end(), '/', '.');
      fail(pointer, name + " must be " + expected + ", got " + shown(v));
      return false;
    };
    switch (type) {
      case Type::Bool:
        return v.is_bool() || bad("true or false");
      case Type::PositiveInt:
        return (is_integral(v) && as_int(v) > 0) || bad("an integer > 0");
      case Type::NonNegativeInt:
        return (is_integral(v) && as_int(v) >= 0) || bad("an integer >= 0");
      case Type::PositiveNumber:
        return (is_json_number(v) && v.as_double() > 0) || bad("a number > 0");
      case Type::NonNegativeNumber:
        return (is_json_number(v) && v.as_double() >= 0) || bad("a number >= 0");
      case Type::String:
        return is_nonempty_string(v) || bad("a non-empty string");
      case Type::Any:
        return true;
    }
    return true;
  }

  // A list of distinct names from `allowed` (`empty_ok`: may be empty): else a problem that
  // starts with `what`, or one per bad item saying it is not `kind`.
  template <std::size_t N>
  bool check_name_list(const std::string& pointer, const Value& v,
                       const std::array<std::string_view, N>& allowed, const char* what,
                       const char* kind, bool empty_ok = false) {
    if (!v.is_list() || (!empty_ok && v.as_list().empty())) {
      fail(pointer, std::string(what) + ", got " + shown(v));
      return false;
    }
    bool ok = true;
    const auto& items = v.as_list();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string at = pointer + "/" + std::to_string(i);
      if (!items[i].is_string() ||
          std::find(allowed.begin(), allowed.end(), items[i].as_string()) == allowed.end()) {
        std::string guess = items[i].is_string() ? closest(items[i].as_string(), allowed) : "";
        fail(at, shown(items[i]) + " is not " + kind +
                     (guess.empty() ? std::string() : "; did you mean '" + guess + "'?"));
        ok = false;
      } else if (std::any_of(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(i),
                             [&](const Value& earlier) {
                               return earlier.is_string() &&
                                      earlier.as_string() == items[i].as_string();
                             })) {
        fail(at, shown(items[i]) + " is listed twice");
        ok = false;
      }
    }
    return ok;
  }

  // Bit i set for each name of the (checked) list `v` that is allowed[i].
  template <std::size_t N>
  static std::uint32_t name_bits(const Value& v, const std::array<std::string_view, N>& allowed) {
    std::uint32_t bits = 0;
    for (const Value& item : v.as_list()) {
      auto at = std::find(allowed.begin(), allowed.end(), item.as_string());
      bits |= std::uint32_t{1} << (at - allowed.begin());
    }
    return bits;
  }

  // A list in hf_auto names keys the template then writes as "auto": each must be one it
  // writes (a key it does not write would be "auto" nowhere, silently).
  void check_hf_keys() {
    const Value* v = get(known("hf_auto"));
    if (v == nullptr || !v->is_list()) return;
    const Value* batch = get(known("batch_keys"));
    const Value* optimizer = get(known("optimizer"));
    const Value* scheduler = get(known("scheduler"));
    const Value* type =
        scheduler != nullptr && scheduler->is_dict() ? scheduler->as_dict().find("type") : nullptr;
    const auto& items = v->as_list();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string& key = items[i].as_string();
      std::string why;
      if (std::find(kBatchKeys.begin(), kBatchKeys.end(), key) != kBatchKeys.end() &&
          batch != nullptr &&
          std::none_of(batch->as_list().begin(), batch->as_list().end(),
                       [&](const Value& b) { return b.as_string() == key; })) {
        why = "batch_keys does not write it; add it to batch_keys";
      } else if (key.starts_with("optimizer.") && (optimizer == nullptr || optimizer->is_none())) {
        why = "optimizer is null, so no optimizer section is written";
      } else if (key.starts_with("scheduler.") && (scheduler == nullptr || scheduler->is_none())) {
        why = "scheduler is null, so no scheduler section is written";
      } else if (key == "scheduler.params.total_num_steps" &&
                 !(type != nullptr && type->is_string() && type->as_string() == "WarmupDecayLR")) {
        why = "only WarmupDecayLR takes total_num_steps";
      } else if (key.starts_with("zero_optimization.stage3_") && result_.facts.stage != 3) {
        why = "the Trainer fills it at ZeRO stage 3 only, but " + describe("/stage");
      } else if (key == "zero_optimization.reduce_bucket_size" && result_.facts.stage == 0) {
        why = "the template writes no bucket at ZeRO stage 0";
      }
      if (!why.empty()) {
        fail("/hf_auto/" + std::to_string(i),
             "hf_auto names " + key + ", which the template would not write: " + why);
      }
    }
  }

  void check_scalar(Name name, Type type, bool nullable = false) {
    if (const Value* v = require(name))
      check_type_at([&] { return "/" + std::string(name.text()); }, *v, type, nullable);
  }

  void check_sizes() {
    check_scalar(known("micro_batch_size"), Type::PositiveInt);
    check_scalar(known("gradient_accumulation"), Type::PositiveInt, true);
    check_scalar(known("global_batch_size"), Type::PositiveInt, true);
    check_scalar(known("gpus_per_node"), Type::PositiveInt);
    check_scalar(known("nodes"), Type::PositiveInt);
    check_scalar(known("world_size"), Type::PositiveInt, true);
    check_scalar(known("gradient_clipping"), Type::NonNegativeNumber, true);
    check_scalar(known("steps_per_print"), Type::PositiveInt, true);
    // A tier fact, optional: the CPUs of a node (the SLURM job asks for them).
    if (const Value* v = get(known("cpu_cores")))
      check_type_at([] { return std::string("/cpu_cores"); }, *v, Type::PositiveInt, true);
    // Tier facts the memory plugin's step-time model reads (docs/tiers.md), optional.
    for (Name name : {known("gpu_tflops"), known("intra_node_gbs"), known("inter_node_gbs"),
                      known("pcie_gbs"), known("nvme_gbs")}) {
      if (const Value* v = get(name))
        check_type_at([&] { return "/" + std::string(name.text()); }, *v, Type::PositiveNumber,
                      true);
    }
  }

  void check_flags() {
    if (const Value* v = require(known("hf_auto"))) {
      if (v->is_bool()) {
        result_.facts.hf_auto = v->as_bool();
      } else if (check_name_list("/hf_auto", *v, kTrainerKeys,
                                 "hf_auto must be true, false or a non-empty list of keys the HF "
                                 "Trainer fills (docs/values.md)",
                                 "a key the HF Trainer fills (docs/values.md)")) {
        result_.facts.hf_auto = true;
        result_.facts.auto_keys = name_bits(*v, kTrainerKeys);
      }
    }
    check_scalar(known("wall_clock_breakdown"), Type::Bool, true);
    if (const Value* v = get(known("batch_keys"))) {
      if (check_name_list("/batch_keys", *v, kBatchKeys,
                          "batch_keys must be a list of train_batch_size, "
                          "train_micro_batch_size_per_gpu, gradient_accumulation_steps",
                          "a batch key the template writes", true)) {
        result_.facts.batch_keys = static_cast<std::uint8_t>(name_bits(*v, kBatchKeys));
      }
    }
    if (const Value* v = get(known("extra")); v && !v->is_none() && !v->is_dict()) {
      fail("/extra",
           "extra must be an object (keys merged into the config) or null, got " + shown(*v));
    }
  }

  // An object section: every key known, every known key of the right type. `nullable`
  // sections may be null (the template omits them); others must be objects.
  template <std::size_t N>
  bool check_section(Name name, const std::array<Field, N>& fields, bool nullable) {
    const Value* section = require(name);
    if (section == nullptr) return false;
    if (nullable && section->is_none()) return false;
    const std::string_view key = name.text();
    if (!section->is_dict()) {
      fail("/" + std::string(key), std::string(key) + " must be an object" +
                                       (nullable ? " or null" : "") + ", got " + shown(*section));
      return false;
    }
    // The very dict this thread found clean last time at this name (dicts are shared and
    // immutable, and held here, so it cannot have changed): the members of a family share
    // their tier's sections, and this check reads nothing but the section.
    thread_local std::array<Value, kKnownNames.size()> clean;
    const ValueDict& dict = section->as_dict();
    if (clean[name.index].is_dict() && &clean[name.index].as_dict() == &dict) return true;
    const std::size_t problems_before = result_.problems.size();
    check_fields(key, dict, fields);
    clean[name.index] = result_.problems.size() == problems_before ? *section : Value();
    return true;
  }

  template <std::size_t N>
  void check_fields(std::string_view key, const ValueDict& section,
                    const std::array<Field, N>& fields) {
    for (const auto& [field_name, value] : section) {
      auto pointer = [&, &name = field_name] {
        return "/" + std::string(key) + "/" + escape_pointer_segment(name);
      };
      auto field = std::find_if(fields.begin(), fields.end(),
                                [&name = field_name](const Field& f) { return f.key == name; });
      if (field == fields.end()) {
        std::string hint;
        if (known_index(field_name) < kKnownNames.size()) {
          // `zero.stage`, `zero.offload_param`: a top-level value written inside a section.
          hint = "; '" + field_name + "' is a top-level value (" + field_name + ", not " +
                 std::string(key) + "." + field_name + ")";
        } else {
          std::array<std::string_view, N> names{};
          for (std::size_t i = 0; i < N; ++i) names[i] = fields[i].key;
          std::string guess = closest(field_name, names);
          if (!guess.empty()) hint = "; did you mean '" + guess + "'?";
        }
        fail(pointer(), "unknown key '" + field_name + "' in " + std::string(key) + hint);
        continue;
      }
      check_type_at(pointer, value, field->type, field->nullable);
    }
  }

  void check_optimizer() {
    if (!check_section(known("optimizer"), kOptimizerFields, true)) return;
    const ValueDict& optimizer = get(known("optimizer"))->as_dict();
    for (auto required : {"type", "lr", "betas", "eps", "weight_decay"}) {
      if (!optimizer.contains(required)) {
        fail("/optimizer", std::string("optimizer needs '") + required + "'");
      }
    }
    if (const Value* type = optimizer.find("type"); type && type->is_string()) {
      if (type->as_string() != "Adam" && type->as_string() != "AdamW") {
        fail("/optimizer/type",
             "optimizer.type must be Adam or AdamW (the optimizers DeepSpeed runs under ZeRO "
             "without zero_allow_untested_optimizer and with offload), got " +
                 shown(*type));
      }
    }
    if (const Value* betas = optimizer.find("betas"); betas && !betas->is_none()) {
      bool ok = betas->is_list() && betas->as_list().size() == 2 &&
                std::all_of(betas->as_list().begin(), betas->as_list().end(), [](const Value& b) {
                  return is_json_number(b) && b.as_double() >= 0 && b.as_double() < 1;
                });
      if (!ok)
        fail("/optimizer/betas",
             "optimizer.betas must be two numbers in [0, 1), got " + shown(*betas));
    }
  }

  void check_scheduler() {
    if (!check_section(known("scheduler"), kSchedulerFields, true)) return;
    const ValueDict& scheduler = get(known("scheduler"))->as_dict();
    const Value* type_value = scheduler.find("type");
    std::string_view type =
        type_value && type_value->is_string() ? std::string_view(type_value->as_string()) : "";
    if (type != "WarmupLR" && type != "WarmupDecayLR") {
      fail("/scheduler/type", "scheduler.type must be WarmupLR or WarmupDecayLR, got " +
                                  (type_value ? shown(*type_value) : std::string("nothing")));
      return;
    }
    for (auto required : {"warmup_min_lr", "warmup_num_steps"}) {
      if (!scheduler.contains(required))
        fail("/scheduler", std::string("scheduler needs '") + required + "'");
    }
    if (type == "WarmupDecayLR" && !scheduler.contains("total_num_steps")) {
      fail("/scheduler", "scheduler.type WarmupDecayLR needs scheduler.total_num_steps");
    }
    if (const Value* total = scheduler.find("total_num_steps");
        type == "WarmupLR" && total != nullptr && !total->is_none()) {
      fail("/scheduler/total_num_steps", "WarmupLR takes no total_num_steps (WarmupDecayLR does)");
    }
    const Value* optimizer = get(known("optimizer"));
    if (!scheduler.contains("warmup_max_lr") && (optimizer == nullptr || optimizer->is_none())) {
      fail("/scheduler",
           "scheduler needs warmup_max_lr when there is no optimizer to take lr from");
    }
  }

  void check_monitor() {
    const Value* monitor = require(known("monitor"));
    if (monitor == nullptr || monitor->is_none()) return;
    if (!monitor->is_dict()) {
      fail("/monitor", "monitor must be an object or null, got " + shown(*monitor));
      return;
    }
    for (const auto& [name, section] : monitor->as_dict()) {
      std::string pointer = "/monitor/" + escape_pointer_segment(name);
      bool wandb = name == "wandb";
      if (name != "tensorboard" && name != "csv_monitor" && !wandb) {
        fail(pointer, "unknown monitor '" + name + "' (expected tensorboard, csv_monitor, wandb)");
        continue;
      }
      if (!section.is_dict()) {
        fail(pointer, "monitor." + name + " must be an object, got " + shown(section));
        continue;
      }
      for (const auto& [key, value] : section.as_dict()) {
        bool known = wandb ? (key == "project" || key == "group" || key == "team")
                           : (key == "output_path" || key == "job_name");
        std::string child = pointer + "/" + escape_pointer_segment(key);
        if (!known) {
          fail(child, "unknown key '" + key + "' in monitor." + name + " (expected " +
                          (wandb ? "project, group, team" : "output_path, job_name") + ")");
        } else {
          check_type(child, value, Type::String, false);
        }
      }
    }
  }

  // deepspeed_version: null (the newest release zeroforge knows) or one of deepspeed_versions();
  // then every value that asks for a key that release lacks, naming the release that added it.
  void check_deepspeed_release() {
    // Absent (values checked without the template defaults) reads as null.
    const Value* v = get(known("deepspeed_version"));
    if (v == nullptr || v->is_none()) return;
    if (!v->is_string()) {
      fail("/deepspeed_version", "deepspeed_version must be a DeepSpeed release such as \"" +
                                     deepspeed_versions().back() +
                                     "\" (a string) or null for the newest, got " + shown(*v));
      return;
    }
    const std::string& version = v->as_string();
    try {
      check_deepspeed_version(version);
    } catch (const Error& e) {
      fail("/deepspeed_version", "deepspeed_version: " + e.message());
      return;
    }
    result_.facts.deepspeed_version = version;
    for (const ReleaseFeature& feature : kReleaseFeatures) {
      const Value* asked = find(feature.value);
      if (asked == nullptr || asked->is_none() || (asked->is_bool() && !asked->as_bool())) continue;
      if (deepspeed_has_key(feature.config_key, version)) continue;
      std::string name(feature.value.substr(1));
      std::replace(name.begin(), name.end(), '/', '.');
      const std::string since = deepspeed_key_since(feature.config_key, version);
      fail(std::string(feature.value),
           name +
               (since.empty() ? " is not read by DeepSpeed " + version
                              : " needs DeepSpeed " + since + " or newer") +
               "; deepspeed_version is " + version);
    }
  }

  // accelerate_version: null (the newest) or one of accelerate_versions(): the accelerate the
  // HF Trainer hands the config to (hf_auto), whose fills and refusals the validator models.
  void check_accelerate_release() {
    const Value* v = get(known("accelerate_version"));
    if (v == nullptr || v->is_none()) return;
    if (!v->is_string()) {
      fail("/accelerate_version", "accelerate_version must be an accelerate release such as \"" +
                                      accelerate_versions().back() +
                                      "\" (a string) or null for the newest, got " + shown(*v));
      return;
    }
    try {
      check_accelerate_version(v->as_string());
    } catch (const Error& e) {
      fail("/accelerate_version", "accelerate_version: " + e.message());
      return;
    }
    result_.facts.accelerate_version = v->as_string();
  }

  // The combinations DeepSpeed accepts and silently ignores (deepspeed-notes.md, stage column).
  void check_applicability() {
    const DeepSpeedFacts& f = result_.facts;
    // "stage=2 (family ...)", made only for a message.
    auto stage = [&] { return describe("/stage"); };
    if (f.offload_param != "none" && f.stage != 3) {
      fail("/offload_param", "offload_param=" + f.offload_param +
                                 " takes effect only at ZeRO stage 3, but " + stage() +
                                 "; DeepSpeed would silently ignore it: use stage 3 or "
                                 "offload_param=none");
    }
    if (f.offload_optimizer != "none" && f.stage == 0) {
      fail("/offload_optimizer", "offload_optimizer=" + f.offload_optimizer +
                                     " takes effect only at ZeRO stages 1-3, but " + stage() +
                                     "; DeepSpeed would silently ignore it: use stage 1-3 or "
                                     "offload_optimizer=none");
    }
    if (f.offload_optimizer == "nvme" && (f.stage == 1 || f.stage == 2)) {
      fail("/offload_optimizer", "offload_optimizer=nvme needs ZeRO stage 3, but " + stage() +
                                     "; DeepSpeed would silently offload to cpu instead: use "
                                     "stage 3 or offload_optimizer=cpu");
    }
    const Value* path = get(known("nvme_path"));
    bool has_path = path != nullptr && path->is_string();
    for (const char* key : {"offload_optimizer", "offload_param"}) {
      const std::string& device =
          key == std::string_view("offload_optimizer") ? f.offload_optimizer : f.offload_param;
      if (device == "nvme" && !has_path) {
        fail(std::string("/") + key, std::string(key) +
                                         "=nvme needs nvme_path (the directory on the NVMe "
                                         "drive), but nvme_path is null");
      }
    }
    const Value* zero = get(known("zero"));
    const Value* round_robin = zero != nullptr && zero->is_dict()
                                   ? zero->as_dict().find("round_robin_gradients")
                                   : nullptr;
    if (round_robin && round_robin->is_bool() && round_robin->as_bool() && f.stage != 1 &&
        f.stage != 2) {
      fail("/zero/round_robin_gradients",
           "zero.round_robin_gradients takes effect only at ZeRO stages 1-2, but " + stage() +
               "; DeepSpeed would silently ignore it");
    }
    if (zero != nullptr && zero->is_dict()) check_zeropp(zero->as_dict());
  }

  // ZeRO++ (docs/zero-explained.md): DeepSpeed reads its keys only in the stage-3 optimizer
  // (stage3.py, partition_parameters.py), builds hpZ groups from consecutive ranks and asserts
  // they tile the world (utils/groups.py _create_zero_param_parallel_group), and builds qgZ's
  // all-to-all groups per node (_get_local_all_to_all_group).
  void check_zeropp(const ValueDict& zero) {
    const DeepSpeedFacts& f = result_.facts;
    auto on = [&](const char* key) {
      const Value* v = zero.find(key);
      return v != nullptr && v->is_bool() && v->as_bool();
    };
    if (f.stage != 3 && on("log_trace_cache_warnings")) {
      fail("/zero/log_trace_cache_warnings",
           "zero.log_trace_cache_warnings takes effect only at ZeRO stage 3 (its parameter "
           "coordinator keeps the trace cache), but " +
               describe("/stage") + "; DeepSpeed would silently ignore it");
    }
    if (f.stage != 3) {
      for (const char* key : {"quantized_weights", "hpz", "quantized_gradients"}) {
        if (on(key)) {
          fail(std::string("/zero/") + key,
               std::string("zero.") + key + " (ZeRO++) takes effect only at ZeRO stage 3, but " +
                   describe("/stage") + "; DeepSpeed would silently ignore it");
        }
      }
      return;
    }
    const std::int64_t gpus = as_int(*get(known("gpus_per_node")));
    const Value& world_value = *get(known("world_size"));
    std::int64_t world = 0;
    if (world_value.is_none()) {
      const std::optional<std::int64_t> all = gpu_count();
      if (!all) return;
      world = *all;
    } else {
      world = as_int(world_value);
    }
    const Value* size_value = zero.find("hpz_partition_size");
    const bool size_given = size_value != nullptr && !size_value->is_none();
    if (size_given && !on("hpz")) {
      fail("/zero/hpz_partition_size",
           "zero.hpz_partition_size is set but zero.hpz is false, so nothing uses it; set "
           "zero.hpz=true (hpZ) or remove zero.hpz_partition_size");
    }
    if (on("hpz")) {
      const std::int64_t size = size_given ? as_int(*size_value) : gpus;
      const std::string pointer = size_given ? "/zero/hpz_partition_size" : "/zero/hpz";
      const std::string shown_size = size_given ? describe("/zero/hpz_partition_size")
                                                : "the hpZ partition " + std::to_string(size) +
                                                      " (" + describe("/gpus_per_node") + ")";
      if (size < 2) {
        fail(pointer, shown_size +
                          ": an hpZ partition of 1 GPU is no hpZ (DeepSpeed reads 1 as off); "
                          "use zero.hpz=false, or a partition of the GPUs per node");
      } else if (size >= world) {
        fail(pointer, shown_size + " spans the whole world_size " + std::to_string(world) +
                          ": the secondary copy would be the same partition as ZeRO-3's own, so "
                          "hpZ saves no communication and costs 2 bytes per parameter / " +
                          std::to_string(world) +
                          " of GPU memory; use zero.hpz=false (hpZ helps on several nodes)");
      } else if (world % size != 0) {
        fail(pointer, shown_size + " does not divide world_size " + std::to_string(world) +
                          ": DeepSpeed asserts it does when it builds the hpZ groups");
      } else if (size > gpus || gpus % size != 0) {
        fail(pointer, shown_size + " does not divide gpus_per_node " + std::to_string(gpus) +
                          ": DeepSpeed groups consecutive ranks, so the secondary partition "
                          "would span nodes and its all-gather cross the inter-node network, "
                          "which hpZ exists to avoid; use the GPUs per node or a divisor of them");
      }
    }
    if (on("quantized_gradients") && world > gpus && world % gpus != 0) {
      fail("/zero/quantized_gradients",
           "zero.quantized_gradients needs world_size " + std::to_string(world) +
               " to be a multiple of gpus_per_node " + std::to_string(gpus) +
               " on several nodes: DeepSpeed builds qgZ's all-to-all groups node by node and "
               "asserts whole nodes");
    }
  }

  // gpus_per_node x nodes, or nullopt (reported at /nodes) when it overflows.
  std::optional<std::int64_t> gpu_count() {
    const std::int64_t gpus = as_int(*get(known("gpus_per_node")));
    const std::int64_t nodes = as_int(*get(known("nodes")));
    const std::optional<std::int64_t> count = deepspeed::gpu_count(gpus, nodes);
    if (!count) {
      fail("/nodes", "gpus_per_node x nodes = " + std::to_string(gpus) + " x " +
                         std::to_string(nodes) + " " + detail::beyond_int64() +
                         "; no cluster has that many GPUs");
    }
    return count;
  }

  // train_batch_size = micro x accumulation x world size, as DeepSpeed asserts. The values
  // may be anything up to 2^63 - 1, so every product is checked.
  void check_batch() {
    DeepSpeedFacts& f = result_.facts;
    const std::optional<std::int64_t> all_gpus = gpu_count();
    if (!all_gpus) return;
    const std::int64_t gpus = *all_gpus;
    const Value& world = *get(known("world_size"));
    f.world_size = world.is_none() ? gpus : as_int(world);
    if (f.world_size > gpus || gpus % f.world_size != 0) {
      fail("/world_size",
           "world_size=" + std::to_string(f.world_size) +
               " must divide the GPU count gpus_per_node x nodes = " + std::to_string(gpus) +
               " (data-parallel ranks share the GPUs); give it the GPUs: --set "
               "gpus_per_node=N and nodes=M with N x M a multiple of " +
               std::to_string(f.world_size) +
               ", or a tier that has them (zeroforge list tiers), or leave "
               "world_size out (it is gpus_per_node x nodes)");
      return;
    }
    f.micro_batch_size = as_int(*get(known("micro_batch_size")));
    const Value& accumulation = *get(known("gradient_accumulation"));
    const Value& global = *get(known("global_batch_size"));
    const std::string micro_times_world =
        std::to_string(f.micro_batch_size) + " x " + std::to_string(f.world_size);
    if (!global.is_none()) {
      const std::optional<std::int64_t> per_step =
          detail::checked_product({f.micro_batch_size, f.world_size});
      const std::int64_t total = as_int(global);
      if (!per_step) {
        fail("/micro_batch_size", "micro_batch_size x world_size = " + micro_times_world + " " +
                                      detail::beyond_int64() + ", so no global_batch_size (" +
                                      describe("/global_batch_size") + ") can hold it");
        return;
      }
      if (!accumulation.is_none()) {
        // Both given (e.g. a plugin chose the accumulation): they must agree.
        f.gradient_accumulation = as_int(accumulation);
        const std::optional<std::int64_t> product =
            detail::checked_product({*per_step, f.gradient_accumulation});
        if (product != total) {
          fail("/gradient_accumulation",
               "micro_batch_size x gradient_accumulation x world_size = " +
                   std::to_string(f.micro_batch_size) + " x " +
                   std::to_string(f.gradient_accumulation) + " x " + std::to_string(f.world_size) +
                   (product ? " = " + std::to_string(*product) : " " + detail::beyond_int64()) +
                   ", but " + describe("/global_batch_size") + "; set only one of the two");
          return;
        }
      } else if (total % *per_step != 0) {
        fail("/global_batch_size",
             "global_batch_size=" + std::to_string(total) +
                 " is not a multiple of micro_batch_size x world_size = " + micro_times_world +
                 " = " + std::to_string(*per_step) +
                 " (DeepSpeed asserts train_batch_size = micro batch x accumulation x world "
                 "size)");
        return;
      } else {
        f.gradient_accumulation = total / *per_step;
      }
      f.train_batch_size = total;
      return;
    }
    f.gradient_accumulation = accumulation.is_none() ? 1 : as_int(accumulation);
    const std::optional<std::int64_t> train =
        detail::checked_product({f.micro_batch_size, f.gradient_accumulation, f.world_size});
    if (!train) {
      fail(accumulation.is_none() ? "/micro_batch_size" : "/gradient_accumulation",
           "train_batch_size = micro_batch_size x gradient_accumulation x world_size = " +
               std::to_string(f.micro_batch_size) + " x " +
               std::to_string(f.gradient_accumulation) + " x " + std::to_string(f.world_size) +
               " " + detail::beyond_int64());
      return;
    }
    f.train_batch_size = *train;
  }

  Layers values_;
  const SourcedValues* sources_;
  ContractCheck result_;
  std::array<const Value*, kKnownNames.size()> slots_{};  // by Name::index, set by check_names
};

}  // namespace

const std::vector<std::string_view>& deepspeed_batch_keys() {
  static const std::vector<std::string_view> keys(kBatchKeys.begin(), kBatchKeys.end());
  return keys;
}

const std::vector<std::string_view>& trainer_filled_keys() {
  static const std::vector<std::string_view> keys(kTrainerKeys.begin(), kTrainerKeys.end());
  return keys;
}

namespace detail {
std::span<const std::string_view> contract_value_names() noexcept { return kKnownNames; }
}  // namespace detail

ContractCheck check_deepspeed_values(const nlohmann::ordered_json& values,
                                     const SourcedValues* sources) {
  if (!values.is_object()) {
    ContractCheck result;
    result.problems.emplace_back(ErrorKind::Values, "values must be a JSON object", "", "/");
    return result;
  }
  Value converted = Value::from_json(values);
  return Checker(Layers{converted.as_dict(), nullptr}, sources).run();
}

ContractCheck check_deepspeed_values(const ValueDict& top, const ValueDict& base) {
  return Checker(Layers{top, &base}, nullptr).run();
}

}  // namespace zf
