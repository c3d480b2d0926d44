// SPDX-License-Identifier: MIT
// The DeepSpeed values contract (docs/values.md): types, ranges, the stage-applicability rules
// DeepSpeed would otherwise silently ignore, and the batch arithmetic, checked before rendering.
#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "text_helpers.hpp"
#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

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
constexpr std::array kZeroFields = {
    Field{"overlap_comm", Type::Bool},
    Field{"contiguous_gradients", Type::Bool},
    Field{"reduce_scatter", Type::Bool},
    Field{"reduce_bucket_size", Type::PositiveInt},
    Field{"allgather_bucket_size", Type::PositiveInt},
    Field{"round_robin_gradients", Type::Bool},
    Field{"sub_group_size", Type::PositiveInt},
    Field{"stage3_prefetch_bucket_size", Type::NonNegativeInt},
    Field{"stage3_param_persistence_threshold", Type::NonNegativeInt},
    Field{"stage3_max_live_parameters", Type::NonNegativeInt},
    Field{"stage3_max_reuse_distance", Type::NonNegativeInt},
    Field{"stage3_gather_16bit_weights_on_model_save", Type::Bool},
};
constexpr std::array kFp16Fields = {
    Field{"initial_scale_power", Type::NonNegativeInt},
    Field{"loss_scale_window", Type::PositiveInt},
    Field{"hysteresis", Type::PositiveInt},
    Field{"min_loss_scale", Type::PositiveNumber},
};
constexpr std::array kOffloadFields = {
    Field{"pin_memory", Type::Bool},
    Field{"optimizer_buffer_count", Type::PositiveInt},
    Field{"param_buffer_count", Type::PositiveInt},
    Field{"param_buffer_size", Type::PositiveInt},
    Field{"param_max_in_cpu", Type::NonNegativeInt},
};
constexpr std::array kAioFields = {
    Field{"block_size", Type::PositiveInt},
    Field{"queue_depth", Type::PositiveInt},
    Field{"intra_op_parallelism", Type::PositiveInt},
    Field{"single_submit", Type::Bool},
    Field{"overlap_events", Type::Bool},
};
constexpr std::array kOptimizerFields = {
    Field{"type", Type::String},
    Field{"lr", Type::PositiveNumber},
    Field{"betas", Type::Any},
    Field{"eps", Type::PositiveNumber},
    Field{"weight_decay", Type::NonNegativeNumber},
};
constexpr std::array kSchedulerFields = {
    Field{"type", Type::String},
    Field{"warmup_min_lr", Type::NonNegativeNumber},
    Field{"warmup_max_lr", Type::PositiveNumber},
    Field{"warmup_num_steps", Type::PositiveInt},
    Field{"total_num_steps", Type::PositiveInt},
};
constexpr std::array kCheckpointingFields = {
    Field{"partition_activations", Type::Bool},
    Field{"cpu_checkpointing", Type::Bool},
    Field{"contiguous_memory_optimization", Type::Bool},
    Field{"number_checkpoints", Type::PositiveInt, true},
    Field{"synchronize_checkpoint_boundary", Type::Bool},
    Field{"profile", Type::Bool},
};
// Every top-level value the contract knows, plus the tier facts plugins read and the memory
// plugin's `auto_fit` (the template ignores it): an unknown name close to one of these is a
// typo, reported; other names are left for custom templates.
constexpr std::array<std::string_view, 29> kKnownNames = {"stage",
                                                          "precision",
                                                          "offload_optimizer",
                                                          "offload_param",
                                                          "nvme_path",
                                                          "micro_batch_size",
                                                          "gradient_accumulation",
                                                          "global_batch_size",
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
                                                          "gpu_memory_gib",
                                                          "cpu_memory_gib",
                                                          "gpu",
                                                          "tier",
                                                          "model",
                                                          "auto_fit"};

template <std::size_t N>
std::string closest(std::string_view name, const std::array<std::string_view, N>& names) {
  std::string best;
  std::size_t best_distance = name.size() < 6 ? 1 : 2;
  for (auto candidate : names) {
    // A name cut short (`reduce_bucket` for `reduce_bucket_size`) is a near miss too.
    if (name.size() >= 5 && candidate.starts_with(name)) return std::string(candidate);
    std::size_t d = detail::edit_distance(name, candidate);
    if (d <= best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

bool is_integral(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

std::int64_t as_int(const Json& v) {
  return v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
}

std::string shown(const Json& v) { return v.dump(); }

class Checker {
 public:
  Checker(const Json& values, const SourcedValues* sources) : values_(values), sources_(sources) {}

  ContractCheck run() {
    check_names();
    check_enums();
    check_sizes();
    check_flags();
    check_section("fp16", kFp16Fields, false);
    check_section("zero", kZeroFields, false);
    check_section("offload", kOffloadFields, false);
    check_section("aio", kAioFields, false);
    check_optimizer();
    check_scheduler();
    check_section("activation_checkpointing", kCheckpointingFields, true);
    check_monitor();
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
  // "stage=2 (family presets/families/x.json)" or "stage=2".
  std::string describe(const std::string& pointer) const {
    if (sources_ != nullptr) return sources_->describe(pointer);
    std::string name = pointer.substr(1);
    const Json* v = find(pointer);
    if (v == nullptr) return name;
    return name + '=' + (v->is_string() ? v->get<std::string>() : v->dump());
  }
  // The value at a JSON pointer made of object keys ("/zero/stage"), or null. Walked by
  // hand: this runs for every variant, and json_pointer would parse and allocate each time.
  const Json* find(std::string_view pointer) const {
    if (pointer.find('~') != std::string_view::npos) {  // escaped segments: the general path
      auto ptr = Json::json_pointer(std::string(pointer));
      return values_.contains(ptr) ? &values_.at(ptr) : nullptr;
    }
    const Json* node = &values_;
    while (!pointer.empty()) {
      pointer.remove_prefix(1);  // the '/'
      std::size_t end = pointer.find('/');
      std::string_view key = pointer.substr(0, end);
      if (!node->is_object()) return nullptr;
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
      pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    }
    return node;
  }
  // A required top-level value; reports it missing (no defaults were applied) and returns null.
  const Json* require(std::string_view key) {
    auto it = values_.find(key);
    if (it == values_.end()) {
      fail("/" + std::string(key),
           "missing value '" + std::string(key) + "' (the template defaults were not applied?)");
      return nullptr;
    }
    return &*it;
  }

  void check_names() {
    // Values carry other keys too (tier facts, the family's own names): each distinct key's
    // verdict is worked out once per thread, not once per variant.
    thread_local std::unordered_map<std::string, std::string> guesses;
    for (const auto& [key, value] : values_.items()) {
      if (std::find(kKnownNames.begin(), kKnownNames.end(), key) != kKnownNames.end()) continue;
      auto known = guesses.find(key);
      if (known == guesses.end()) known = guesses.emplace(key, closest(key, kKnownNames)).first;
      const std::string& guess = known->second;
      if (!guess.empty()) {
        fail("/" + escape_pointer_segment(key),
             "unknown value '" + key + "'; did you mean '" + guess + "'?");
      }
    }
  }

  void check_enum(std::string_view key, std::initializer_list<std::string_view> allowed,
                  std::string* out) {
    const Json* v = require(key);
    if (v == nullptr) return;
    if (v->is_string() && std::find(allowed.begin(), allowed.end(),
                                    v->get_ref<const std::string&>()) != allowed.end()) {
      if (out) *out = v->get<std::string>();
      return;
    }
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : "|") + std::string(a);
    fail("/" + std::string(key),
         std::string(key) + " must be one of " + list + ", got " + shown(*v));
  }

  void check_enums() {
    if (const Json* v = require("stage")) {
      if (v->is_number_integer() && as_int(*v) >= 0 && as_int(*v) <= 3) {
        result_.facts.stage = static_cast<int>(as_int(*v));
      } else {
        fail("/stage", "stage must be an integer 0-3, got " + shown(*v));
      }
    }
    check_enum("precision", {"fp32", "fp16", "bf16"}, &result_.facts.precision);
    check_enum("offload_optimizer", {"none", "cpu", "nvme"}, &result_.facts.offload_optimizer);
    check_enum("offload_param", {"none", "cpu", "nvme"}, &result_.facts.offload_param);
    if (const Json* v = require("nvme_path")) {
      if (!v->is_null() && !(v->is_string() && !v->get<std::string>().empty())) {
        fail("/nvme_path", "nvme_path must be a non-empty string or null, got " + shown(*v));
      }
    }
  }

  bool check_type(const std::string& pointer, const Json& v, Type type, bool nullable) {
    return check_type_at([&] { return pointer; }, v, type, nullable);
  }
  // `make_pointer()` names the value; it is only called for an error (this runs for every
  // value of every variant).
  template <typename MakePointer>
  bool check_type_at(MakePointer&& make_pointer, const Json& v, Type type, bool nullable) {
    if (nullable && v.is_null()) return true;
    auto bad = [&](const char* expected) {
      std::string pointer = make_pointer();
      std::string name = pointer.substr(1);
      std::replace(name.begin(), name.end(), '/', '.');
      fail(pointer, name + " must be " + expected + ", got " + shown(v));
      return false;
    };
    switch (type) {
      case Type::Bool:
        return v.is_boolean() || bad("true or false");
      case Type::PositiveInt:
        return (is_integral(v) && as_int(v) > 0) || bad("an integer > 0");
      case Type::NonNegativeInt:
        return (is_integral(v) && as_int(v) >= 0) || bad("an integer >= 0");
      case Type::PositiveNumber:
        return (v.is_number() && v.get<double>() > 0) || bad("a number > 0");
      case Type::NonNegativeNumber:
        return (v.is_number() && v.get<double>() >= 0) || bad("a number >= 0");
      case Type::String:
        return (v.is_string() && !v.get<std::string>().empty()) || bad("a non-empty string");
      case Type::Any:
        return true;
    }
    return true;
  }

  void check_scalar(std::string_view key, Type type, bool nullable = false) {
    if (const Json* v = require(key))
      check_type_at([&] { return "/" + std::string(key); }, *v, type, nullable);
  }

  void check_sizes() {
    check_scalar("micro_batch_size", Type::PositiveInt);
    check_scalar("gradient_accumulation", Type::PositiveInt, true);
    check_scalar("global_batch_size", Type::PositiveInt, true);
    check_scalar("gpus_per_node", Type::PositiveInt);
    check_scalar("nodes", Type::PositiveInt);
    check_scalar("world_size", Type::PositiveInt, true);
    check_scalar("gradient_clipping", Type::NonNegativeNumber);
    check_scalar("steps_per_print", Type::PositiveInt, true);
  }

  void check_flags() {
    if (const Json* v = require("hf_auto"); v && check_type("/hf_auto", *v, Type::Bool, false)) {
      result_.facts.hf_auto = v->get<bool>();
    }
    check_scalar("wall_clock_breakdown", Type::Bool);
  }

  // An object section: every key known, every known key of the right type. `nullable`
  // sections may be null (the template omits them); others must be objects.
  template <std::size_t N>
  bool check_section(std::string_view key, const std::array<Field, N>& fields, bool nullable) {
    const Json* section = require(key);
    if (section == nullptr) return false;
    std::string base = "/" + std::string(key);
    if (nullable && section->is_null()) return false;
    if (!section->is_object()) {
      fail(base, std::string(key) + " must be an object" + (nullable ? " or null" : "") + ", got " +
                     shown(*section));
      return false;
    }
    std::array<std::string_view, N> names{};
    for (std::size_t i = 0; i < N; ++i) names[i] = fields[i].key;
    for (const auto& [name, value] : section->items()) {
      auto pointer = [&] { return base + "/" + escape_pointer_segment(name); };
      auto field =
          std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == name; });
      if (field == fields.end()) {
        std::string guess = closest(name, names);
        fail(pointer(), "unknown key '" + name + "' in " + std::string(key) +
                            (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
        continue;
      }
      check_type_at(pointer, value, field->type, field->nullable);
    }
    return true;
  }

  void check_optimizer() {
    if (!check_section("optimizer", kOptimizerFields, true)) return;
    const Json& optimizer = values_.at("optimizer");
    for (auto required : {"type", "lr", "betas", "eps", "weight_decay"}) {
      if (!optimizer.contains(required)) {
        fail("/optimizer", std::string("optimizer needs '") + required + "'");
      }
    }
    if (auto it = optimizer.find("type"); it != optimizer.end() && it->is_string()) {
      std::string type = it->get<std::string>();
      if (type != "Adam" && type != "AdamW") {
        fail("/optimizer/type",
             "optimizer.type must be Adam or AdamW (the optimizers DeepSpeed runs under ZeRO "
             "without zero_allow_untested_optimizer and with offload), got " +
                 shown(*it));
      }
    }
    if (auto it = optimizer.find("betas"); it != optimizer.end()) {
      bool ok = it->is_array() && it->size() == 2 &&
                std::all_of(it->begin(), it->end(), [](const Json& b) {
                  return b.is_number() && b.get<double>() >= 0 && b.get<double>() < 1;
                });
      if (!ok)
        fail("/optimizer/betas",
             "optimizer.betas must be two numbers in [0, 1), got " + shown(*it));
    }
  }

  void check_scheduler() {
    if (!check_section("scheduler", kSchedulerFields, true)) return;
    const Json& scheduler = values_.at("scheduler");
    std::string type = scheduler.value("type", "");
    if (type != "WarmupLR" && type != "WarmupDecayLR") {
      fail("/scheduler/type",
           "scheduler.type must be WarmupLR or WarmupDecayLR, got " +
               (scheduler.contains("type") ? shown(scheduler.at("type")) : std::string("nothing")));
      return;
    }
    for (auto required : {"warmup_min_lr", "warmup_num_steps"}) {
      if (!scheduler.contains(required))
        fail("/scheduler", std::string("scheduler needs '") + required + "'");
    }
    if (type == "WarmupDecayLR" && !scheduler.contains("total_num_steps")) {
      fail("/scheduler", "scheduler.type WarmupDecayLR needs scheduler.total_num_steps");
    }
    if (type == "WarmupLR" && scheduler.contains("total_num_steps")) {
      fail("/scheduler/total_num_steps", "WarmupLR takes no total_num_steps (WarmupDecayLR does)");
    }
    const Json* optimizer = find("/optimizer");
    if (!scheduler.contains("warmup_max_lr") && (optimizer == nullptr || optimizer->is_null())) {
      fail("/scheduler",
           "scheduler needs warmup_max_lr when there is no optimizer to take lr from");
    }
  }

  void check_monitor() {
    const Json* monitor = require("monitor");
    if (monitor == nullptr || monitor->is_null()) return;
    if (!monitor->is_object()) {
      fail("/monitor", "monitor must be an object or null, got " + shown(*monitor));
      return;
    }
    for (const auto& [name, section] : monitor->items()) {
      std::string pointer = "/monitor/" + escape_pointer_segment(name);
      bool wandb = name == "wandb";
      if (name != "tensorboard" && name != "csv_monitor" && !wandb) {
        fail(pointer, "unknown monitor '" + name + "' (expected tensorboard, csv_monitor, wandb)");
        continue;
      }
      if (!section.is_object()) {
        fail(pointer, "monitor." + name + " must be an object, got " + shown(section));
        continue;
      }
      for (const auto& [key, value] : section.items()) {
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

  // The combinations DeepSpeed accepts and silently ignores (deepspeed-notes.md, stage column).
  void check_applicability() {
    const DeepSpeedFacts& f = result_.facts;
    const std::string stage = describe("/stage");
    if (f.offload_param != "none" && f.stage != 3) {
      fail("/offload_param", "offload_param=" + f.offload_param +
                                 " takes effect only at ZeRO stage 3, but " + stage +
                                 "; DeepSpeed would silently ignore it: use stage 3 or "
                                 "offload_param=none");
    }
    if (f.offload_optimizer != "none" && f.stage == 0) {
      fail("/offload_optimizer", "offload_optimizer=" + f.offload_optimizer +
                                     " takes effect only at ZeRO stages 1-3, but " + stage +
                                     "; DeepSpeed would silently ignore it: use stage 1-3 or "
                                     "offload_optimizer=none");
    }
    if (f.offload_optimizer == "nvme" && (f.stage == 1 || f.stage == 2)) {
      fail("/offload_optimizer", "offload_optimizer=nvme needs ZeRO stage 3, but " + stage +
                                     "; DeepSpeed would silently offload to cpu instead: use "
                                     "stage 3 or offload_optimizer=cpu");
    }
    const Json* path = find("/nvme_path");
    bool has_path = path != nullptr && path->is_string();
    for (const char* key : {"offload_optimizer", "offload_param"}) {
      std::string device =
          key == std::string_view("offload_optimizer") ? f.offload_optimizer : f.offload_param;
      if (device == "nvme" && !has_path) {
        fail(std::string("/") + key, std::string(key) +
                                         "=nvme needs nvme_path (the directory on the NVMe "
                                         "drive), but nvme_path is null");
      }
    }
    const Json* round_robin = find("/zero/round_robin_gradients");
    if (round_robin && round_robin->is_boolean() && round_robin->get<bool>() && f.stage != 1 &&
        f.stage != 2) {
      fail("/zero/round_robin_gradients",
           "zero.round_robin_gradients takes effect only at ZeRO stages 1-2, but " + stage +
               "; DeepSpeed would silently ignore it");
    }
  }

  // train_batch_size = micro x accumulation x world size, as DeepSpeed asserts.
  void check_batch() {
    DeepSpeedFacts& f = result_.facts;
    std::int64_t gpus = as_int(values_.at("gpus_per_node")) * as_int(values_.at("nodes"));
    const Json& world = values_.at("world_size");
    f.world_size = world.is_null() ? gpus : as_int(world);
    if (f.world_size > gpus || gpus % f.world_size != 0) {
      fail("/world_size", "world_size=" + std::to_string(f.world_size) +
                              " must divide the GPU count gpus_per_node x nodes = " +
                              std::to_string(gpus) + " (data-parallel ranks share the GPUs)");
      return;
    }
    f.micro_batch_size = as_int(values_.at("micro_batch_size"));
    const Json& accumulation = values_.at("gradient_accumulation");
    const Json& global = values_.at("global_batch_size");
    if (!global.is_null()) {
      std::int64_t per_step = f.micro_batch_size * f.world_size;
      std::int64_t total = as_int(global);
      if (!accumulation.is_null()) {
        // Both given (e.g. a plugin chose the accumulation): they must agree.
        f.gradient_accumulation = as_int(accumulation);
        if (per_step * f.gradient_accumulation != total) {
          fail("/gradient_accumulation",
               "micro_batch_size x gradient_accumulation x world_size = " +
                   std::to_string(f.micro_batch_size) + " x " +
                   std::to_string(f.gradient_accumulation) + " x " + std::to_string(f.world_size) +
                   " = " + std::to_string(per_step * f.gradient_accumulation) + ", but " +
                   describe("/global_batch_size") + "; set only one of the two");
          return;
        }
      } else if (total % per_step != 0) {
        fail("/global_batch_size",
             "global_batch_size=" + std::to_string(total) +
                 " is not a multiple of micro_batch_size x world_size = " +
                 std::to_string(f.micro_batch_size) + " x " + std::to_string(f.world_size) + " = " +
                 std::to_string(per_step) +
                 " (DeepSpeed asserts train_batch_size = micro batch x accumulation x world "
                 "size)");
        return;
      } else {
        f.gradient_accumulation = total / per_step;
      }
    } else {
      f.gradient_accumulation = accumulation.is_null() ? 1 : as_int(accumulation);
    }
    f.train_batch_size = f.micro_batch_size * f.gradient_accumulation * f.world_size;
  }

  const Json& values_;
  const SourcedValues* sources_;
  ContractCheck result_;
};

}  // namespace

ContractCheck check_deepspeed_values(const nlohmann::ordered_json& values,
                                     const SourcedValues* sources) {
  if (!values.is_object()) {
    ContractCheck result;
    result.problems.emplace_back(ErrorKind::Values, "values must be a JSON object", "", "/");
    return result;
  }
  return Checker(values, sources).run();
}

}  // namespace zf
