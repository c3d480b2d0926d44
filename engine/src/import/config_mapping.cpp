// SPDX-License-Identifier: MIT
// Reading a DeepSpeed config into the values of deepspeed/config.json.j2 (see
// config_mapping.hpp). Each map_* function knows one partial of the template: which keys it
// writes at which stage and from which value. A binding is made only for a key the template
// would write from its value; what it cannot say stays in `extra`. Whatever the values
// contract or a render then refuses is demoted to `extra` by the caller (regenerate.cpp).
#include "import/config_mapping.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

// The keys the HF Trainer fills, in the order hf_auto lists them, and the batch keys in the
// order batch_keys lists them: the values contract's own lists.
const std::vector<std::string_view>& kTrainerKeys = trainer_filled_keys();
const std::vector<std::string_view>& kBatchKeys = deepspeed_batch_keys();

bool is_auto(const Json* v) { return v != nullptr && v->is_string() && *v == "auto"; }
bool is_true(const Json* v) { return v != nullptr && v->is_boolean() && v->get<bool>(); }
bool is_positive_integer(const Json* v) {
  if (v == nullptr || !v->is_number_integer()) return false;
  return v->is_number_unsigned() ? v->get<std::uint64_t>() > 0 : v->get<std::int64_t>() > 0;
}

// An integral float as an integer, for the knobs DeepSpeed's pydantic models read as ints
// (`5e8` and 500000000 are the same bucket): the family then says 500000000, not 500000000.0.
Json as_count(const Json& v) {
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      return static_cast<std::int64_t>(d);
    }
  }
  return v;
}

// The baseline: every value the template reads, in the form that writes nothing (or, for the
// switches, the form that adds nothing). Bindings set what the config has.
Json baseline() {
  return Json::parse(R"({
    "stage": null, "precision": "fp32", "offload_optimizer": "none", "offload_param": "none",
    "nvme_path": null, "micro_batch_size": 1, "gradient_accumulation": null,
    "global_batch_size": null, "batch_keys": [], "hf_auto": false,
    "gradient_clipping": null, "steps_per_print": null, "wall_clock_breakdown": null,
    "optimizer": null, "scheduler": null,
    "fp16": {"loss_scale": null, "initial_scale_power": null, "loss_scale_window": null,
             "hysteresis": null, "min_loss_scale": null},
    "zero": {"overlap_comm": null, "contiguous_gradients": null, "reduce_scatter": null,
             "reduce_bucket_size": null, "allgather_bucket_size": null,
             "round_robin_gradients": false, "sub_group_size": null,
             "stage3_prefetch_bucket_size": null, "stage3_param_persistence_threshold": null,
             "stage3_max_live_parameters": null, "stage3_max_reuse_distance": null,
             "stage3_gather_16bit_weights_on_model_save": null, "quantized_weights": false,
             "quantized_gradients": false, "hpz": false, "hpz_partition_size": null},
    "offload": {"pin_memory": null, "optimizer_buffer_count": null, "param_buffer_count": null,
                "param_buffer_size": null, "param_max_in_cpu": null},
    "aio": null, "activation_checkpointing": null, "monitor": null, "extra": {}})");
}

void set_path(Json& root, const Path& path, Json value) {
  Json* node = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (!node->is_object()) *node = Json::object();
    node = &(*node)[path[i]];
  }
  if (!node->is_object()) *node = Json::object();
  (*node)[path.back()] = std::move(value);
}

// Removes the key at `path` and every object left empty by the removal.
void erase_path(Json& root, const Path& path) {
  std::vector<Json*> chain{&root};
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    Json& node = *chain.back();
    if (!node.is_object() || !node.contains(path[i])) return;
    chain.push_back(&node[path[i]]);
  }
  if (!chain.back()->is_object()) return;
  chain.back()->erase(path.back());
  for (std::size_t i = chain.size() - 1; i > 0 && chain[i]->empty(); --i) {
    chain[i - 1]->erase(path[i - 1]);
  }
}

class Mapper {
 public:
  Mapper(const Json& config, const Cluster& cluster) : config_(config), cluster_(cluster) {
    mapping_.baseline = baseline();
  }

  ConfigMapping run() {
    map_batch();
    map_scalars();
    map_precision();
    map_optimizer();
    map_scheduler();
    map_zero();
    map_aio();
    map_checkpointing();
    map_monitor();
    return std::move(mapping_);
  }

 private:
  const Json* at(const Path& path) const { return value_at(config_, path); }
  static Binding named(std::string what) {
    Binding b;
    b.what = std::move(what);
    return b;
  }
  // A binding that sets one value and writes one key.
  static Binding simple(std::string what, Path value_path, Json value, Path key) {
    Binding b = named(std::move(what));
    b.values.push_back({std::move(value_path), std::move(value)});
    b.keys.push_back(std::move(key));
    return b;
  }
  std::size_t add(Binding binding) {
    mapping_.bindings.push_back(std::move(binding));
    return mapping_.bindings.size() - 1;
  }
  void note(std::string pointer, Severity severity, std::string message) {
    mapping_.notes.push_back({std::move(pointer), severity, std::move(message)});
  }

  // The batch keys, solved as the template computes them: train_batch_size = micro x
  // accumulation x world. Keys said "auto" are the Trainer's (any number works for them).
  // A train_batch_size with both others given fixes the world size: the member gets it
  // (world_size on the tier, gpus_per_node without one), or the keys stay as written.
  void map_batch() {
    std::vector<std::string> present, autos;
    std::array<std::optional<std::int64_t>, 3> numbers;
    for (std::size_t i = 0; i < kBatchKeys.size(); ++i) {
      const std::string key(kBatchKeys[i]);
      const Json* v = at({key});
      if (v == nullptr) continue;
      if (is_auto(v)) {
        autos.push_back(key);
      } else if (is_positive_integer(v)) {
        numbers[i] = v->get<std::int64_t>();
      } else {
        return;  // a float, a string, 0: DeepSpeed's own verdict; carried as written
      }
      present.push_back(key);
    }
    if (present.empty()) return;
    const auto& [total, micro, accumulation] = numbers;
    Binding b = named("the batch keys");
    for (const auto& key : present) b.keys.push_back({key});
    b.batch_keys = present;
    b.hf_keys = autos;
    const std::int64_t world = cluster_.world();
    std::int64_t m = micro.value_or(1), g = accumulation.value_or(1);
    if (total) {
      const std::string t = std::to_string(*total);
      if (micro && accumulation) {
        const std::int64_t per_rank = *micro * *accumulation;
        const std::string arithmetic =
            std::to_string(*micro) + " x " + std::to_string(*accumulation) + " x world";
        if (*total % per_rank != 0) {
          note("/train_batch_size", Severity::Note,
               "train_batch_size " + t + " is not a multiple of micro batch x accumulation = " +
                   std::to_string(per_rank) +
                   ", so no world size makes DeepSpeed's batch equation hold: the batch keys are "
                   "carried as written (extra)");
          return;
        }
        const std::int64_t implied = *total / per_rank;
        const std::string equation =
            "train_batch_size " + t + " = " + arithmetic + " " + std::to_string(implied);
        if (implied != world) {
          if (!cluster_.tier.empty()) {
            if (cluster_.gpus % implied != 0) {
              note("/train_batch_size", Severity::Warning,
                   equation + ", but tier " + cluster_.tier + " has " +
                       std::to_string(cluster_.gpus) + " GPUs, which " + std::to_string(implied) +
                       " does not divide: the batch keys are carried as written (extra), and "
                       "DeepSpeed's batch assertion fails on this tier");
              return;
            }
            b.values.push_back({{"world_size"}, implied});
            note("/train_batch_size", Severity::Note,
                 equation + ": the member runs " + std::to_string(implied) + " ranks of tier " +
                     cluster_.tier + "'s " + std::to_string(cluster_.gpus) + " GPUs (world_size " +
                     std::to_string(implied) + ")");
          } else {
            b.values.push_back({{"gpus_per_node"}, implied});
            note("/train_batch_size", Severity::Note,
                 equation + ": the member is given gpus_per_node " + std::to_string(implied) +
                     " (import --tier NAME puts the family on a tier instead)");
          }
        }
      } else {
        // One or both of the others derived, as DeepSpeed derives them.
        const std::int64_t known = (micro ? *micro : 1) * (accumulation ? *accumulation : 1);
        if (*total % (known * world) != 0) {
          note("/train_batch_size", Severity::Note,
               "train_batch_size " + t + " is not a multiple of " +
                   (micro          ? "micro batch x "
                    : accumulation ? "accumulation x "
                                   : "") +
                   "world size " + std::to_string(world) +
                   ": the batch keys are carried as written (extra)");
          return;
        }
        const std::int64_t rest = *total / (known * world);
        if (micro) {
          g = rest;
        } else {
          m = rest;
        }
      }
    }
    b.values.push_back({{"micro_batch_size"}, m});
    b.values.push_back({{"gradient_accumulation"}, g == 1 ? Json() : Json(g)});
    add(std::move(b));
  }

  void map_scalars() {
    if (const Json* v = at({"gradient_clipping"})) {
      if (is_auto(v)) {
        Binding b = named("gradient_clipping");
        b.keys.push_back({"gradient_clipping"});
        b.hf_keys.push_back("gradient_clipping");
        add(std::move(b));
      } else if (v->is_number() && v->get<double>() >= 0) {
        add(simple("gradient_clipping", {"gradient_clipping"}, *v, {"gradient_clipping"}));
      }
    }
    // 1e5 is 100000 as a JSON value (LLaVA writes it so).
    if (const Json* v = at({"steps_per_print"}); v != nullptr) {
      const Json count = as_count(*v);
      if (is_positive_integer(&count)) {
        add(simple("steps_per_print", {"steps_per_print"}, count, {"steps_per_print"}));
      }
    }
    if (const Json* v = at({"wall_clock_breakdown"}); v != nullptr && v->is_boolean()) {
      add(simple("wall_clock_breakdown", {"wall_clock_breakdown"}, *v, {"wall_clock_breakdown"}));
    }
  }

  // fp16 / bf16: a section is written when `precision` names it or hf_auto lists its
  // "enabled"; the template cannot write both enabled (DeepSpeed refuses that anyway).
  void map_precision() {
    const Json* fp16 = at({"fp16", "enabled"});
    const Json* bf16 = at({"bf16", "enabled"});
    const bool fp16_on = is_true(fp16), bf16_on = is_true(bf16);
    if (fp16_on && bf16_on) return;
    Binding b = named("precision");
    bool fp16_written = false;
    if (fp16_on || is_auto(fp16)) {
      fp16_written = true;
      b.keys.push_back({"fp16", "enabled"});
      b.roots.push_back({"fp16"});
      if (is_auto(fp16)) b.hf_keys.push_back("fp16.enabled");
    }
    if (bf16_on || is_auto(bf16)) {
      b.keys.push_back({"bf16", "enabled"});
      b.roots.push_back({"bf16"});
      if (is_auto(bf16)) b.hf_keys.push_back("bf16.enabled");
    }
    if (b.keys.empty()) return;
    // What DeepSpeed runs, where the config says; with "auto" on both the Trainer decides and
    // the template's default stays.
    if (fp16_on || (is_auto(fp16) && !is_auto(bf16))) b.values.push_back({{"precision"}, "fp16"});
    if (bf16_on || (is_auto(bf16) && !is_auto(fp16))) b.values.push_back({{"precision"}, "bf16"});
    add(std::move(b));
    if (!fp16_written) return;
    for (const char* key : {"loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis",
                            "min_loss_scale"}) {
      if (const Json* v = at({"fp16", key}); v != nullptr && v->is_number()) {
        add(simple(std::string("fp16.") + key, {"fp16", key},
                   std::string_view(key) == "min_loss_scale" ? *v : as_count(*v), {"fp16", key}));
      }
    }
  }

  // A parameter section (`optimizer.params`, `scheduler.params`): one binding per parameter
  // the template writes, the value or "auto".
  void map_params(const char* section, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      const Json* v = at({section, "params", name});
      if (v == nullptr) continue;
      const std::string trainer_key = std::string(section) + ".params." + name;
      Binding b = named(trainer_key);
      b.keys.push_back({section, "params", name});
      if (is_auto(v)) {
        b.hf_keys.push_back(trainer_key);
      } else {
        b.values.push_back({{section, name}, *v});
      }
      add(std::move(b));
    }
  }

  void map_optimizer() {
    const Json* type = at({"optimizer", "type"});
    const Json* params = at({"optimizer", "params"});
    if (type == nullptr || !type->is_string() || params == nullptr || !params->is_object()) return;
    Json value = {{"type", *type},
                  {"lr", nullptr},
                  {"betas", nullptr},
                  {"eps", nullptr},
                  {"weight_decay", nullptr}};
    Binding b = simple("optimizer", {"optimizer"}, std::move(value), {"optimizer", "type"});
    b.roots.push_back({"optimizer"});
    add(std::move(b));
    map_params("optimizer", {"lr", "betas", "eps", "weight_decay"});
  }

  void map_scheduler() {
    const Json* type = at({"scheduler", "type"});
    const Json* params = at({"scheduler", "params"});
    if (type == nullptr || !type->is_string() || params == nullptr || !params->is_object()) return;
    const bool decay = *type == "WarmupDecayLR";
    Json value = {{"type", *type},
                  {"warmup_min_lr", nullptr},
                  {"warmup_max_lr", nullptr},
                  {"warmup_num_steps", nullptr}};
    if (decay) value["total_num_steps"] = nullptr;
    Binding b = simple("scheduler", {"scheduler"}, std::move(value), {"scheduler", "type"});
    b.roots.push_back({"scheduler"});
    add(std::move(b));
    if (decay) {
      map_params("scheduler",
                 {"warmup_min_lr", "warmup_max_lr", "warmup_num_steps", "total_num_steps"});
    } else {
      map_params("scheduler", {"warmup_min_lr", "warmup_max_lr", "warmup_num_steps"});
    }
  }

  // A ZeRO knob written at this stage from zero.<name> (the key DeepSpeed reads is `key`).
  void map_knob(const char* key, const char* name, bool count, bool may_be_auto) {
    const Json* v = at({"zero_optimization", key});
    if (v == nullptr) return;
    Binding b = named(std::string("zero.") + name);
    b.keys.push_back({"zero_optimization", key});
    if (may_be_auto && is_auto(v)) {
      b.hf_keys.push_back(std::string("zero_optimization.") + key);
    } else {
      b.values.push_back({{"zero", name}, count ? as_count(*v) : *v});
    }
    add(std::move(b));
  }

  // An offload block at a stage whose template writes it: the device and, on NVMe, the path
  // and buffers. Returns the binding, or none when the block is not one the template writes.
  std::optional<std::size_t> map_offload(
      const char* block, const char* value_name,
      std::initializer_list<std::pair<const char*, const char*>> nvme_keys) {
    const Json* device = at({"zero_optimization", block, "device"});
    if (device == nullptr || (*device != "cpu" && *device != "nvme")) return std::nullopt;
    Binding b = simple(value_name, {value_name}, *device, {"zero_optimization", block, "device"});
    b.roots.push_back({"zero_optimization", block});
    if (*device == "nvme") {
      if (const Json* path = at({"zero_optimization", block, "nvme_path"})) {
        b.values.push_back({{"nvme_path"}, *path});
        b.keys.push_back({"zero_optimization", block, "nvme_path"});
      }
      for (const auto& [key, name] : nvme_keys) {
        if (const Json* v = at({"zero_optimization", block, key})) {
          b.values.push_back({{"offload", name}, as_count(*v)});
          b.keys.push_back({"zero_optimization", block, key});
        }
      }
    }
    return add(std::move(b));
  }

  void map_zero() {
    const Json* stage_value = at({"zero_optimization", "stage"});
    if (stage_value == nullptr || !stage_value->is_number_integer()) return;
    const std::int64_t stage = stage_value->get<std::int64_t>();
    if (stage < 0 || stage > 3) return;
    Binding b = simple("stage", {"stage"}, stage, {"zero_optimization", "stage"});
    b.roots.push_back({"zero_optimization"});
    add(std::move(b));
    if (stage == 0) return;
    std::vector<std::size_t> blocks;
    if (auto i = map_offload("offload_optimizer", "offload_optimizer",
                             {{"buffer_count", "optimizer_buffer_count"}})) {
      blocks.push_back(*i);
    }
    if (stage == 3) {
      if (auto i = map_offload("offload_param", "offload_param",
                               {{"buffer_count", "param_buffer_count"},
                                {"buffer_size", "param_buffer_size"},
                                {"max_in_cpu", "param_max_in_cpu"}})) {
        blocks.push_back(*i);
      }
    }
    map_pin_memory(blocks);
    for (const char* key : {"overlap_comm", "contiguous_gradients", "reduce_scatter"}) {
      map_knob(key, key, false, false);
    }
    map_knob("reduce_bucket_size", "reduce_bucket_size", true, true);
    if (stage < 3) {
      map_knob("allgather_bucket_size", "allgather_bucket_size", true, false);
      if (is_true(at({"zero_optimization", "round_robin_gradients"}))) {
        map_knob("round_robin_gradients", "round_robin_gradients", false, false);
      }
      return;
    }
    map_knob("sub_group_size", "sub_group_size", true, false);
    map_knob("stage3_prefetch_bucket_size", "stage3_prefetch_bucket_size", true, true);
    map_knob("stage3_param_persistence_threshold", "stage3_param_persistence_threshold", true,
             true);
    map_knob("stage3_max_live_parameters", "stage3_max_live_parameters", true, false);
    map_knob("stage3_max_reuse_distance", "stage3_max_reuse_distance", true, false);
    map_knob("stage3_gather_16bit_weights_on_model_save",
             "stage3_gather_16bit_weights_on_model_save", false, false);
    // ZeRO++: written only when on.
    for (const auto& [key, name] : {std::pair{"zero_quantized_weights", "quantized_weights"},
                                    std::pair{"zero_quantized_gradients", "quantized_gradients"}}) {
      if (is_true(at({"zero_optimization", key}))) map_knob(key, name, false, false);
    }
    if (const Json* v = at({"zero_optimization", "zero_hpz_partition_size"});
        is_positive_integer(v)) {
      Binding hpz = simple("zero.hpz", {"zero", "hpz"}, true,
                           {"zero_optimization", "zero_hpz_partition_size"});
      hpz.values.push_back({{"zero", "hpz_partition_size"}, *v});
      add(std::move(hpz));
    }
  }

  // offload.pin_memory is one value for both blocks: bound when every written block says the
  // same, else each block's pin_memory stays in extra.
  void map_pin_memory(const std::vector<std::size_t>& blocks) {
    if (blocks.empty()) return;
    std::optional<Json> shared;
    std::vector<Path> keys;
    for (std::size_t i : blocks) {
      Path key = mapping_.bindings[i].roots.front();
      key.push_back("pin_memory");
      const Json* v = at(key);
      if (v == nullptr) return;
      if (shared && *shared != *v) return;
      shared = *v;
      keys.push_back(std::move(key));
    }
    Binding b = named("offload.pin_memory");
    b.values.push_back({{"offload", "pin_memory"}, *shared});
    b.keys = std::move(keys);
    add(std::move(b));
  }

  // aio: written with NVMe offload, from aio.<key>; a missing key is left out.
  void map_aio() {
    std::vector<std::size_t> nvme;
    for (std::size_t i = 0; i < mapping_.bindings.size(); ++i) {
      const Binding& b = mapping_.bindings[i];
      if ((b.what == "offload_optimizer" || b.what == "offload_param") &&
          b.values.front().second == "nvme") {
        nvme.push_back(i);
      }
    }
    const Json* aio = at({"aio"});
    if (nvme.empty() || aio == nullptr || !aio->is_object()) return;
    Json value = Json::object();
    Binding b = named("aio");
    b.roots.push_back({"aio"});
    b.requires_any = nvme;
    for (const char* key :
         {"block_size", "queue_depth", "intra_op_parallelism", "single_submit", "overlap_events"}) {
      std::string name = key;
      const Json* v = at({"aio", name});
      // DeepSpeed before 0.16.4 names intra_op_parallelism thread_count; the template writes
      // that name for such a deepspeed_version, and the fit carries it in extra for a newer one.
      if (v == nullptr && name == "intra_op_parallelism") {
        name = "thread_count";
        v = at({"aio", name});
      }
      value[key] = v != nullptr ? (v->is_boolean() ? *v : as_count(*v)) : Json();
      if (v != nullptr) b.keys.push_back({"aio", name});
    }
    b.values.push_back({{"aio"}, std::move(value)});
    add(std::move(b));
  }

  // activation_checkpointing: the keys given, and profile (the template writes false when it
  // is not given, so a config without it says null).
  void map_checkpointing() {
    const Json* section = at({"activation_checkpointing"});
    if (section == nullptr || !section->is_object()) return;
    Json value = Json::object();
    Binding b = named("activation_checkpointing");
    b.roots.push_back({"activation_checkpointing"});
    for (const char* key :
         {"partition_activations", "cpu_checkpointing", "contiguous_memory_optimization",
          "number_checkpoints", "synchronize_checkpoint_boundary", "profile"}) {
      if (const Json* v = at({"activation_checkpointing", key})) {
        value[key] = *v;
        b.keys.push_back({"activation_checkpointing", key});
      }
    }
    if (!value.contains("profile")) value["profile"] = nullptr;
    b.values.push_back({{"activation_checkpointing"}, std::move(value)});
    add(std::move(b));
  }

  // tensorboard, csv_monitor, wandb: a section that says "enabled": true, with its keys.
  void map_monitor() {
    for (const auto& [section, names] : {std::pair<const char*, std::vector<const char*>>{
                                             "tensorboard", {"output_path", "job_name"}},
                                         {"csv_monitor", {"output_path", "job_name"}},
                                         {"wandb", {"project", "group", "team"}}}) {
      if (!is_true(at({section, "enabled"}))) continue;
      Json value = Json::object();
      Binding b = named(std::string("monitor.") + section);
      b.keys.push_back({section, "enabled"});
      b.roots.push_back({section});
      for (const char* name : names) {
        if (const Json* v = at({section, name})) {
          value[name] = *v;
          b.keys.push_back({section, name});
        }
      }
      b.values.push_back({{"monitor", section}, std::move(value)});
      add(std::move(b));
    }
  }

  const Json& config_;
  const Cluster& cluster_;
  ConfigMapping mapping_;
};

// The Trainer keys `hf_auto: true` makes the template write for these values.
std::set<std::string> keys_true_writes(const Json& values) {
  std::set<std::string> out;
  for (const auto& key : values.at("batch_keys")) out.insert(key.get<std::string>());
  out.insert("gradient_clipping");
  out.insert("fp16.enabled");
  out.insert("bf16.enabled");
  if (!values.at("optimizer").is_null()) {
    for (const char* p : {"lr", "betas", "eps", "weight_decay"}) {
      out.insert(std::string("optimizer.params.") + p);
    }
  }
  if (const Json& scheduler = values.at("scheduler"); !scheduler.is_null()) {
    for (const char* p : {"warmup_min_lr", "warmup_max_lr", "warmup_num_steps"}) {
      out.insert(std::string("scheduler.params.") + p);
    }
    if (scheduler.value("type", "") == "WarmupDecayLR") {
      out.insert("scheduler.params.total_num_steps");
    }
  }
  const Json& stage = values.at("stage");
  if (stage.is_number_integer() && stage.get<int>() >= 1) {
    out.insert("zero_optimization.reduce_bucket_size");
    if (stage.get<int>() == 3) {
      out.insert("zero_optimization.stage3_prefetch_bucket_size");
      out.insert("zero_optimization.stage3_param_persistence_threshold");
    }
  }
  return out;
}

bool depends_on(const Binding& dependent, const Binding& gone) {
  for (const auto& key : dependent.keys) {
    for (const auto& root : gone.roots) {
      if (is_prefix(root, key)) return true;
    }
  }
  return false;
}

}  // namespace

std::string to_pointer(const Path& path) {
  std::string out;
  for (const auto& key : path) out += "/" + escape_pointer_segment(key);
  return out;
}

Path from_pointer(std::string_view pointer) {
  Path out;
  while (!pointer.empty()) {
    pointer.remove_prefix(1);
    std::size_t end = pointer.find('/');
    std::string_view raw = pointer.substr(0, end);
    std::string key;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        key += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        key += raw[i];
      }
    }
    out.push_back(std::move(key));
    pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
  }
  return out;
}

const Json* value_at(const Json& root, const Path& path) {
  const Json* node = &root;
  for (const auto& key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

bool is_prefix(const Path& prefix, const Path& path) {
  return prefix.size() <= path.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

ConfigMapping map_config(const Json& config, const Cluster& cluster) {
  return Mapper(config, cluster).run();
}

Json assemble(const ConfigMapping& mapping, const Json& config) {
  Json values = mapping.baseline;
  std::set<std::string> autos;
  std::set<std::string> batch;
  Json extra = config;
  for (const Binding& b : mapping.bindings) {
    if (!b.active) continue;
    for (const auto& [path, value] : b.values) set_path(values, path, value);
    autos.insert(b.hf_keys.begin(), b.hf_keys.end());
    batch.insert(b.batch_keys.begin(), b.batch_keys.end());
    for (const auto& key : b.keys) erase_path(extra, key);
  }
  Json& batch_keys = values["batch_keys"] = Json::array();
  for (auto key : kBatchKeys) {
    if (batch.contains(std::string(key))) batch_keys.push_back(key);
  }
  if (autos.empty()) {
    values["hf_auto"] = false;
  } else if (autos == keys_true_writes(values)) {
    values["hf_auto"] = true;
  } else {
    Json& list = values["hf_auto"] = Json::array();
    for (auto key : kTrainerKeys) {
      if (autos.contains(std::string(key))) list.push_back(key);
    }
  }
  values["extra"] = std::move(extra);
  return values;
}

void demote(ConfigMapping& mapping, std::size_t index, const std::string& because) {
  mapping.bindings[index].active = false;
  mapping.bindings[index].demoted_because = because;
  const std::string with = "it goes with " + mapping.bindings[index].what;
  // Until nothing changes: a demoted binding can take others with it.
  for (bool changed = true; changed;) {
    changed = false;
    for (Binding& b : mapping.bindings) {
      if (!b.active) continue;
      bool gone =
          std::any_of(mapping.bindings.begin(), mapping.bindings.end(),
                      [&](const Binding& other) { return !other.active && depends_on(b, other); });
      if (!gone && !b.requires_any.empty()) {
        gone = std::none_of(b.requires_any.begin(), b.requires_any.end(),
                            [&](std::size_t i) { return mapping.bindings[i].active; });
      }
      if (gone) {
        b.active = false;
        b.demoted_because = with;
        changed = true;
      }
    }
  }
}

std::optional<std::size_t> owner_of_value(const ConfigMapping& mapping, const Json& values,
                                          std::string_view pointer) {
  const Path path = from_pointer(pointer);
  auto with_key = [&](auto&& has) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < mapping.bindings.size(); ++i) {
      if (mapping.bindings[i].active && has(mapping.bindings[i])) return i;
    }
    return std::nullopt;
  };
  if (!path.empty() && path[0] == "hf_auto" && path.size() == 2) {
    const Json& list = values.at("hf_auto");
    std::size_t i = std::stoul(path[1]);
    if (!list.is_array() || i >= list.size()) return std::nullopt;
    const std::string key = list[i].get<std::string>();
    return with_key([&](const Binding& b) {
      return std::find(b.hf_keys.begin(), b.hf_keys.end(), key) != b.hf_keys.end();
    });
  }
  if (!path.empty() && path[0] == "batch_keys") {
    return with_key([](const Binding& b) { return !b.batch_keys.empty(); });
  }
  std::optional<std::size_t> best;
  std::size_t best_length = 0;
  for (std::size_t i = 0; i < mapping.bindings.size(); ++i) {
    const Binding& b = mapping.bindings[i];
    if (!b.active) continue;
    for (const auto& [value_path, value] : b.values) {
      if (is_prefix(value_path, path) && (!best || value_path.size() > best_length)) {
        best = i;
        best_length = value_path.size();
      }
    }
  }
  return best;
}

const Binding* binding_of_key(const ConfigMapping& mapping, std::string_view pointer) {
  const Path path = from_pointer(pointer);
  for (const Binding& b : mapping.bindings) {
    for (const auto& key : b.keys) {
      if (is_prefix(path, key) || is_prefix(key, path)) return &b;
    }
  }
  return nullptr;
}

std::vector<std::size_t> owners_of_key(const ConfigMapping& mapping, std::string_view pointer) {
  const Path path = from_pointer(pointer);
  std::vector<std::size_t> out;
  std::optional<std::size_t> section;  // the deepest root around the pointer
  std::size_t section_depth = 0;
  for (std::size_t i = 0; i < mapping.bindings.size(); ++i) {
    const Binding& b = mapping.bindings[i];
    if (!b.active) continue;
    auto overlaps = [&](const Path& key) { return is_prefix(key, path) || is_prefix(path, key); };
    auto encloses = [&](const Path& root) { return is_prefix(path, root); };
    if (std::any_of(b.keys.begin(), b.keys.end(), overlaps) ||
        std::any_of(b.roots.begin(), b.roots.end(), encloses)) {
      out.push_back(i);
    }
    for (const auto& root : b.roots) {
      if (is_prefix(root, path) && (!section || root.size() > section_depth)) {
        section = i;
        section_depth = root.size();
      }
    }
  }
  // A key no binding writes, inside an object one makes the template write (a team's template
  // that writes more): the object is carried whole.
  if (out.empty() && section) out.push_back(*section);
  return out;
}

}  // namespace zf::importer
