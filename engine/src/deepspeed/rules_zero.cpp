// SPDX-License-Identifier: MIT
// Rule family "zero": keys that act only at some ZeRO stages (DeepSpeed accepts them
// everywhere and silently ignores them elsewhere), offload blocks, NVMe paths and the
// stage-dependent errors of DeepSpeedZeroConfig and DeepSpeedConfig._do_error_check, and
// what DeepSpeed refuses of ZeRO++.
#include <algorithm>

#include "rules.hpp"

namespace zf::deepspeed {
namespace {

bool is_offload_key(std::string_view key) {
  return key == "offload_optimizer" || key == "offload_param" || key == "cpu_offload" ||
         key == "cpu_offload_param" || key == "cpu_offload_use_pin_memory";
}

// The `device` of an offload block (a view into the config, or "none").
std::string_view device_of(const json* block) {
  const json* device = block != nullptr ? member(*block, "device") : nullptr;
  return device != nullptr && device->is_string()
             ? std::string_view(device->get_ref<const std::string&>())
             : std::string_view("none");
}

bool has_nvme_path(const json& block) {
  const json* path = member(block, "nvme_path");
  return path != nullptr && path->is_string() && !path->get_ref<const std::string&>().empty();
}

void check_stage_keys(const Context& ctx, const json& zero, const NodeFacts& zero_section) {
  std::vector<std::string> idle;  // keys with no effect at stage 0
  for (const auto& [key, value] : zero.get_ref<const json::object_t&>()) {
    if (std::string_view(key) == "stage" || is_offload_key(key)) continue;
    const NodeFacts* known = zero_section.key(key);
    if (known == nullptr) continue;
    const NodeFacts& facts = known->alias ? *known->canonical : *known;
    if (!facts.has_stages) continue;
    if (ctx.stage == 0) {
      idle.push_back(key);
      continue;
    }
    if (facts.no_effect) {
      ctx.report(pointer_join("/zero_optimization", key), Severity::Warning, "no-effect",
                 "\"" + key + "\" has no effect: " + std::string(*facts.no_effect) + "; remove it");
      continue;
    }
    if (!facts.acts_at(ctx.stage)) {
      ctx.report(pointer_join("/zero_optimization", key), Severity::Warning, "zero-key-stage",
                 "\"" + key + "\" has no effect at ZeRO stage " + std::to_string(ctx.stage) +
                     ": DeepSpeed reads it only at stage " + stages_text(facts.stage_mask) +
                     "; remove it or change the stage");
    }
  }
  if (!idle.empty()) {
    std::string list;
    for (const auto& key : idle) list += (list.empty() ? "" : ", ") + key;
    ctx.report("/zero_optimization", Severity::Warning, "zero-disabled-keys",
               "ZeRO is off (stage 0), so these keys have no effect: " + list +
                   "; set stage 1-3 to use them, or remove them");
  }
}

void check_offload_block(const Context& ctx, const json& zero, const char* name) {
  const json* found = member(zero, name);
  if (found == nullptr || !found->is_object()) return;
  const json& block = *found;
  const std::string pointer = pointer_join("/zero_optimization", name);
  std::string_view device = device_of(&block);
  bool optimizer = std::string_view(name) == "offload_optimizer";
  if (device == "none") {
    if (member(block, "pin_memory") != nullptr) {
      ctx.report(pointer + "/pin_memory", Severity::Warning, "pin-memory-no-offload",
                 "pin_memory has no effect: " + std::string(name) +
                     ".device is \"none\" (the default); set device to \"cpu\" or \"nvme\", or "
                     "remove the block");
    }
  } else if (optimizer) {
    if (ctx.stage == 0) {
      ctx.report(pointer, Severity::Warning, "offload-optimizer-stage",
                 "offload_optimizer has no effect at ZeRO stage 0; DeepSpeed offloads optimizer "
                 "states only at "
                 "stages 1-3: set stage to 1, 2 or 3, or remove the block");
    } else if (device == "nvme" && ctx.stage < 3) {
      ctx.report(pointer + "/device", Severity::Warning, "offload-nvme-stage",
                 "NVMe optimizer offload works only at ZeRO stage 3; at stage " +
                     std::to_string(ctx.stage) +
                     " DeepSpeed offloads to CPU memory instead: use \"cpu\" or stage 3");
    }
  } else if (ctx.stage < 3) {
    ctx.report(pointer, Severity::Warning, "offload-param-stage",
               "offload_param has no effect at ZeRO stage " + std::to_string(ctx.stage) +
                   ": only stage 3 partitions (and so offloads) parameters; use stage 3 or remove "
                   "the block");
  }
  if (device == "nvme" && ctx.stage == 3 && !has_nvme_path(block)) {
    ctx.report(pointer, Severity::Error, "nvme-path-missing",
               std::string(name) +
                   " has device \"nvme\" but no nvme_path; DeepSpeed fails at initialize: "
                   "set nvme_path to a directory on the NVMe drive");
  }
  if (optimizer && ctx.stage != 3) {
    if (const json* ratio = member(block, "ratio");
        ratio != nullptr && ratio->is_number() && ratio->get<double>() < 1.0) {
      ctx.report(pointer + "/ratio", Severity::Error, "offload-ratio-stage",
                 "a ratio below 1 (partial offload) is refused below ZeRO stage 3 (\"Partial "
                 "offloading only "
                 "supported for ZeRO Stage 3.\"); remove ratio or use stage 3");
    }
  }
}

// ZeRO++ (zero/config.py; stage3.py, utils/groups.py, torch_autocast.py): what DeepSpeed
// refuses. Keys at other stages are zero-key-stage's (their `stages` in the schema data).
void check_zeropp(const Context& ctx, const json& zero) {
  const json* hpz = member(zero, "zero_hpz_partition_size");
  std::optional<long long> size = hpz != nullptr ? as_integer(*hpz) : std::nullopt;
  if (ctx.stage == 3 && size && *size > 1 && ctx.options.world_size &&
      *ctx.options.world_size > 0) {
    // groups._create_zero_param_parallel_group: the group is min(size, world) contiguous ranks.
    long long world = *ctx.options.world_size;
    long long group = std::min(*size, world);
    if (world % group != 0) {
      ctx.report("/zero_optimization/zero_hpz_partition_size", Severity::Error,
                 "hpz-partition-size",
                 "zero_hpz_partition_size " + std::to_string(*size) +
                     " does not divide the world size " + std::to_string(world) +
                     ": DeepSpeed asserts it does when it builds the hpZ groups; use the GPUs "
                     "per node (or a divisor of them)");
    }
  }
  const json* autocast = member(ctx.config, "torch_autocast");
  if (is_true(zero, "zero_quantized_weights") && enabled_true(autocast)) {
    ctx.report("/zero_optimization/zero_quantized_weights", Severity::Error,
               "autocast-quantized-weights",
               "zero_quantized_weights together with torch_autocast.enabled: DeepSpeed asserts "
               "\"Cannot enable both torch autocast and zero quantized weights\" at initialize; "
               "turn one off");
  }
}

}  // namespace

void check_zero(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  const json* zero_found = member(ctx.config, "zero_optimization");
  if (zero_found != nullptr && zero_found->is_object()) {
    const json& zero = *zero_found;
    check_stage_keys(ctx, zero, *root_facts().key("zero_optimization"));
    check_offload_block(ctx, zero, "offload_optimizer");
    check_offload_block(ctx, zero, "offload_param");
    check_zeropp(ctx, zero);
    if (member(zero, "cpu_offload_use_pin_memory") != nullptr &&
        member(zero, "cpu_offload") == nullptr && member(zero, "cpu_offload_param") == nullptr &&
        device_of(member(zero, "offload_optimizer")) == "none" &&
        device_of(member(zero, "offload_param")) == "none") {
      ctx.report("/zero_optimization/cpu_offload_use_pin_memory", Severity::Warning,
                 "pin-memory-no-offload",
                 "cpu_offload_use_pin_memory has no effect without offload; remove it");
    }
  }
  const json* op = member(ctx.config, "gradient_allreduce_op");
  if (op != nullptr && op->is_string() && op->get_ref<const std::string&>() == "sum") {
    const json* zenflow = zero_found != nullptr ? member(*zero_found, "zenflow") : nullptr;
    std::string why;
    if (ctx.stage == 3) {
      why = "ZeRO stage 3";
    } else if (zenflow != nullptr && !zenflow->is_null()) {
      why = "ZenFlow";
    } else if (const json* compile = member(ctx.config, "compile");
               compile != nullptr && is_true(*compile, "deepcompile")) {
      why = "DeepCompile";
    }
    if (!why.empty()) {
      ctx.report("/gradient_allreduce_op", Severity::Error, "allreduce-sum",
                 "gradient_allreduce_op \"sum\" is refused with " + why + "; use \"mean\"");
    }
  }
}

}  // namespace zf::deepspeed
