// SPDX-License-Identifier: MIT
// Site profile parsing and checking, and the DeepSpeed key tables it checks against
// (DeepSpeed 0.19.6: runtime/config.py, zero/config.py, zero/offload_config.py, monitor/config.py,
// comm/config.py, precision_config.py; see ../shared/deepspeed-notes.md).
#include "profile.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace site_fields {
namespace {

const std::vector<std::string> kTopLevelKeys = {"activation_checkpointing",
                                                "aio",
                                                "amp",
                                                "autotuning",
                                                "bf16",
                                                "bfloat16",
                                                "checkpoint",
                                                "comet",
                                                "communication_data_type",
                                                "comms_logger",
                                                "compile",
                                                "compression_training",
                                                "csv_monitor",
                                                "curriculum_learning",
                                                "data_efficiency",
                                                "data_types",
                                                "dataloader_drop_last",
                                                "disable_allgather",
                                                "dump_state",
                                                "eigenvalue",
                                                "elasticity",
                                                "expert_parallel",
                                                "flops_profiler",
                                                "fp16",
                                                "gradient_accumulation_steps",
                                                "gradient_allreduce_op",
                                                "gradient_clipping",
                                                "gradient_predivide_factor",
                                                "graph_harvesting",
                                                "hybrid_engine",
                                                "log_level",
                                                "managed_gradient_accumulation",
                                                "memory_breakdown",
                                                "nebula",
                                                "optimizer",
                                                "pipeline",
                                                "prescale_gradients",
                                                "progressive_layer_drop",
                                                "quantize_training",
                                                "scheduler",
                                                "seq_parallel_communication_data_type",
                                                "sequence_parallel_size",
                                                "sparse_attention",
                                                "sparse_gradients",
                                                "steps_per_print",
                                                "tensor_parallel",
                                                "tensorboard",
                                                "timers",
                                                "torch_autocast",
                                                "train_batch_size",
                                                "train_micro_batch_size_per_gpu",
                                                "use_data_before_expert_parallelism",
                                                "vocabulary_size",
                                                "wall_clock_breakdown",
                                                "wandb",
                                                "weight_quantization",
                                                "zero_allow_untested_optimizer",
                                                "zero_force_ds_cpu_optimizer",
                                                "zero_optimization"};

// Pydantic sections (extra="forbid"): DeepSpeed rejects any key not listed.
const std::map<std::string, std::vector<std::string>> kSectionKeys = {
    {"tensorboard", {"enabled", "output_path", "job_name"}},
    {"csv_monitor", {"enabled", "output_path", "job_name"}},
    {"wandb", {"enabled", "group", "team", "project"}},
    {"comet",
     {"enabled", "samples_log_interval", "project", "workspace", "api_key", "experiment_name",
      "experiment_key", "online", "mode"}},
    {"comms_logger", {"enabled", "prof_all", "prof_ops", "verbose", "debug"}},
    {"fp16",
     {"enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window",
      "hysteresis", "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads"}},
    {"bf16",
     {"enabled", "immediate_grad_update", "check_grad_overflow", "bf16_master_weights_and_grads",
      "bf16_optimizer_states"}},
    {"zero_optimization",
     {"stage",
      "contiguous_gradients",
      "reduce_scatter",
      "reduce_bucket_size",
      "overlap_comm",
      "offload_optimizer",
      "offload_param",
      "zenflow",
      "allgather_bucket_size",
      "use_multi_rank_bucket_allreduce",
      "round_robin_gradients",
      "ignore_unused_parameters",
      "elastic_checkpoint",
      "sub_group_size",
      "stage3_prefetch_bucket_size",
      "prefetch_bucket_size",
      "stage3_param_persistence_threshold",
      "param_persistence_threshold",
      "stage3_model_persistence_threshold",
      "model_persistence_threshold",
      "stage3_max_live_parameters",
      "max_live_parameters",
      "stage3_max_reuse_distance",
      "max_reuse_distance",
      "stage3_gather_16bit_weights_on_model_save",
      "gather_16bit_weights_on_model_save",
      "stage3_module_granularity_threshold",
      "module_granularity_threshold",
      "stage3_use_all_reduce_for_fetch_params",
      "use_all_reduce_for_fetch_params",
      "stage3_allgather_sequential",
      "allgather_sequential",
      "zero_hpz_partition_size",
      "zero_quantized_weights",
      "zero_quantized_nontrainable_weights",
      "zeropp_loco_param",
      "memory_efficient_linear",
      "override_module_apply",
      "log_trace_cache_warnings",
      "enable_sanity_checks",
      "save_muon_momentum_buffer_in_memory",
      "leaf_module",
      "zero_quantized_gradients",
      "mics_shard_size",
      "mics_hierarchical_params_gather",
      "pipeline_loading_checkpoint",
      "load_from_fp32_weights",
      "allgather_partitions",
      "legacy_stage1",
      "cpu_offload",
      "cpu_offload_param",
      "cpu_offload_use_pin_memory",
      "stage3_gather_fp16_weights_on_model_save"}},
    {"zero_optimization/offload_optimizer",
     {"device", "nvme_path", "buffer_count", "pin_memory", "pipeline_read", "pipeline_write",
      "fast_init", "ratio", "super_offload", "cpuadam_cores_perc"}},
    {"zero_optimization/offload_param",
     {"device", "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory"}},
};

// The profile's own keys, in the order the patch applies them.
const std::vector<std::string> kMonitorSections = {"tensorboard", "wandb", "csv_monitor", "comet",
                                                   "comms_logger"};

bool contains(const std::vector<std::string>& list, const std::string& key) {
  return std::find(list.begin(), list.end(), key) != list.end();
}

constexpr const char* kReplace = "$replace";

// The entry of `list` that `entry` names (by `key`), or list.end().
Json::iterator same_entry(Json& list, const Json& entry, const char* key) {
  // No key (tolerations), or entries that are names themselves (hosts): equal entries.
  if (key == nullptr || *key == '\0') return std::find(list.begin(), list.end(), entry);
  if (!entry.is_object() || !entry.contains(key)) return list.end();
  return std::find_if(list.begin(), list.end(), [&](const Json& have) {
    return have.is_object() && have.contains(key) && have.at(key) == entry.at(key);
  });
}

// The config's list with the profile's merged in: a named entry replaces the config's of that
// name where it stands, anything else is appended (an equal one only once).
Json merge_list(const Json& current, const Json& profile, const char* key) {
  Json out = current;
  for (const Json& entry : profile) {
    auto at = same_entry(out, entry, key);
    if (at == out.end()) {
      out.push_back(entry);
    } else {
      *at = entry;
    }
  }
  return out;
}

class Checker {
 public:
  Checker(std::string source, bool allow_unknown)
      : source_(std::move(source)), allow_unknown_(allow_unknown) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw zf::sdk::Error("site profile " + source_ + ": " + pointer + ": " + message);
  }

  // Checks the keys of `object`, which sits at `section` ("" = top level) of a DeepSpeed config.
  void check(const Json& object, const std::string& section, const std::string& pointer) const {
    if (allow_unknown_ || !object.is_object()) return;
    for (const auto& [key, value] : object.items()) {
      std::string path = section.empty() ? key : section + "/" + key;
      std::string where = pointer + "/" + key;
      if (section.empty()) {
        if (!is_deepspeed_key(key)) {
          fail(where, "'" + key +
                          "' is not a DeepSpeed config key (DeepSpeed would ignore it); "
                          "set \"allow_unknown_keys\": true in the profile to emit it anyway");
        }
      } else if (const auto* keys = section_keys(section); keys && !contains(*keys, key)) {
        fail(where,
             "'" + key + "' is not a key of DeepSpeed's '" + section +
                 "' section (DeepSpeed would reject the config); set \"allow_unknown_keys\": "
                 "true in the profile to emit it anyway");
      }
      if (value.is_object() && (section_keys(path) || section.empty())) check(value, path, where);
    }
  }

 private:
  std::string source_;
  bool allow_unknown_;
};

// Deep merge that keeps nulls, so that a null in "fields" deletes the key from the config.
void merge_keeping_nulls(Json& target, const Json& patch) {
  for (const auto& [key, value] : patch.items()) {
    auto it = target.find(key);
    if (value.is_object() && it != target.end() && it->is_object()) {
      merge_keeping_nulls(*it, value);
    } else {
      target[key] = value;
    }
  }
}

// Whether a profile's list is written as {"$replace": [...]} (replace the config's list).
bool is_replace(const Json& value) { return value.is_object() && value.contains(kReplace); }

// The list of a {"$replace": [...]}, which must hold nothing else.
const Json& replace_list(const Json& value, const std::string& pointer, const Checker& checker) {
  if (value.size() != 1)
    checker.fail(pointer, std::string("\"") + kReplace +
                              "\" stands alone: {\"$replace\": [...]} replaces the list");
  const Json& list = value.at(kReplace);
  if (!list.is_array())
    checker.fail(pointer + "/" + kReplace, std::string("expected a list, got ") + list.type_name());
  return list;
}

// "$replace" anywhere but on a list that merges is a mistake (it would reach the launch).
void refuse_stray_replace(const Json& value, const std::string& pointer, const Checker& checker) {
  if (!value.is_object()) return;
  for (const auto& [key, child] : value.items()) {
    const std::string where = pointer + "/" + key;
    if (key == kReplace) {
      std::string lists;
      for (const MergedList& list : merged_lists())
        lists += std::string(lists.empty() ? "" : ", ") + (list.pointer + 1);
      checker.fail(where, std::string("\"") + kReplace +
                              "\" replaces a list that merges with the family's (" + lists +
                              "); this value is not one");
    }
    refuse_stray_replace(child, where, checker);
  }
}

}  // namespace

const std::vector<MergedList>& merged_lists() {
  static const std::vector<MergedList> lists = {{"/hosts", ""},
                                                {"/kubernetes/volumes", "name"},
                                                {"/kubernetes/volume_mounts", "mountPath"},
                                                {"/kubernetes/tolerations", nullptr},
                                                {"/kubernetes/env", "name"},
                                                {"/kubernetes/env_from", nullptr}};
  return lists;
}

bool is_deepspeed_key(const std::string& key) { return contains(kTopLevelKeys, key); }

const std::vector<std::string>* section_keys(const std::string& section) {
  auto it = kSectionKeys.find(section);
  return it == kSectionKeys.end() ? nullptr : &it->second;
}

Profile::Profile(const Json& profile, std::string source, const LaunchCheck& launch_text_problem)
    : source_(std::move(source)) {
  bool allow_unknown = false;
  Checker checker(source_, false);
  if (!profile.is_object())
    checker.fail("/", "expected an object, got " + std::string(profile.type_name()));
  if (auto it = profile.find("allow_unknown_keys"); it != profile.end()) {
    if (!it->is_boolean()) checker.fail("/allow_unknown_keys", "expected true or false");
    allow_unknown = it->get<bool>();
  }
  Checker fields_checker(source_, allow_unknown);
  for (const auto& [key, value] : profile.items()) {
    std::string pointer = "/" + key;
    if (key == "allow_unknown_keys") continue;
    if (key == "nvme_path") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        checker.fail(pointer, "expected a non-empty path string");
      }
      nvme_path_ = value;
    } else if (key == "steps_per_print") {
      if (!value.is_number_integer() || value.get<long long>() <= 0) {
        checker.fail(pointer, "expected a positive integer");
      }
      sections_[key] = value;
    } else if (contains(kMonitorSections, key)) {
      if (!value.is_object()) checker.fail(pointer, "expected an object");
      Json section = value;
      // Naming a monitor in the profile turns it on unless the profile says otherwise.
      if (!section.contains("enabled")) {
        Json enabled = {{"enabled", true}};
        enabled.update(section);
        section = std::move(enabled);
      }
      fields_checker.check(Json{{key, section}}, "", "");
      sections_[key] = std::move(section);
    } else if (key == "hosts") {
      const bool replace = is_replace(value);
      const Json& hosts = replace ? replace_list(value, pointer, checker) : value;
      const std::string at = replace ? pointer + "/" + kReplace : pointer;
      if (replace) replaced_lists_.push_back(pointer);
      if (!hosts.is_array() || hosts.empty())
        checker.fail(at, "expected a non-empty list of host names");
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        const std::string where = at + "/" + std::to_string(i);
        if (!hosts[i].is_string())
          checker.fail(where, "expected a host name (a string), got " + hosts[i].dump());
        std::string problem = launch_text_problem(ZF_LAUNCH_HOST_NAME, hosts[i].get<std::string>());
        if (!problem.empty()) checker.fail(where, problem);
      }
      hosts_ = hosts;
    } else if (key == "environment") {
      if (!value.is_object())
        checker.fail(pointer, "expected an object of variable name to string value");
      for (const auto& [name, text] : value.items()) {
        std::string where = pointer + "/" + name;
        std::string problem = launch_text_problem(ZF_LAUNCH_VARIABLE_NAME, name);
        if (!problem.empty()) checker.fail(where, problem);
        if (!text.is_string()) checker.fail(where, "expected a string, got " + text.dump());
        problem = launch_text_problem(ZF_LAUNCH_VARIABLE_VALUE, text.get<std::string>());
        if (!problem.empty()) checker.fail(where, problem);
      }
      environment_ = value;
    } else if (key == "slurm") {
      // launch.slurm for every config: checked, with the values it merges with, where the
      // slurm companion reads it (its refusals name this plugin and /launch/slurm/KEY).
      if (!value.is_object())
        checker.fail(pointer, "expected an object (launch.slurm: partition, account, ...)");
      refuse_stray_replace(value, pointer, checker);
      slurm_ = value;
    } else if (key == "kubernetes") {
      // launch.kubernetes likewise, checked where the kubernetes companion reads it.
      if (!value.is_object())
        checker.fail(pointer, "expected an object (launch.kubernetes: namespace, image, ...)");
      kubernetes_ = value;
      // Its lists that merge may be given as {"$replace": [...]}: kept unwrapped, and noted.
      for (const MergedList& list : merged_lists()) {
        const std::string_view name(list.pointer);
        if (!name.starts_with("/kubernetes/")) continue;
        auto it =
            kubernetes_.find(std::string(name.substr(std::string_view("/kubernetes/").size())));
        if (it == kubernetes_.end() || !is_replace(*it)) continue;
        Json unwrapped = replace_list(*it, std::string(name), checker);
        *it = std::move(unwrapped);
        replaced_lists_.emplace_back(name);
      }
      refuse_stray_replace(kubernetes_, pointer, checker);
    } else if (key == "fields") {
      if (!value.is_object())
        checker.fail(pointer, "expected an object (merged into every config)");
      fields_checker.check(value, "", pointer);
      fields_ = value;
    } else {
      checker.fail(pointer, "unknown profile key '" + key +
                                "' (expected nvme_path, tensorboard, wandb, csv_monitor, comet, "
                                "comms_logger, steps_per_print, fields, allow_unknown_keys, "
                                "hosts, environment, slurm, kubernetes)");
    }
  }
}

Json Profile::launch_values(const Json& values) const {
  if (hosts_.is_null() && environment_.empty() && slurm_.is_null() && kubernetes_.is_null())
    return nullptr;
  Json launch = Json::object();
  if (!hosts_.is_null()) launch["hosts"] = hosts_;
  if (!environment_.empty()) launch["environment"] = environment_;
  if (!slurm_.is_null()) launch["slurm"] = slurm_;
  if (!kubernetes_.is_null()) launch["kubernetes"] = kubernetes_;
  // The lists of named things merge with the config's own, unless the profile replaces them.
  const Json* config_launch =
      values.is_object() && values.contains("launch") && values.at("launch").is_object()
          ? &values.at("launch")
          : nullptr;
  for (const MergedList& list : merged_lists()) {
    const Json::json_pointer at(list.pointer);
    if (!launch.contains(at) || contains(replaced_lists_, list.pointer)) continue;
    if (config_launch == nullptr || !config_launch->contains(at)) continue;
    const Json& current = config_launch->at(at);
    if (!current.is_array()) continue;  // the profile's replaces a value of another kind
    launch[at] = merge_list(current, launch.at(at), list.key);
  }
  return {{"launch", std::move(launch)}};
}

Json Profile::patch_for(const Json& config) const {
  Json patch = sections_;
  if (!nvme_path_.is_null() && config.is_object()) {
    auto zero = config.find("zero_optimization");
    if (zero != config.end() && zero->is_object()) {
      for (const char* offload : {"offload_optimizer", "offload_param"}) {
        auto section = zero->find(offload);
        if (section == zero->end() || !section->is_object()) continue;
        auto device = section->find("device");
        if (device == section->end() || *device != "nvme") continue;
        patch["zero_optimization"][offload]["nvme_path"] = nvme_path_;
      }
    }
  }
  merge_keeping_nulls(patch, fields_);
  return patch;
}

}  // namespace site_fields
