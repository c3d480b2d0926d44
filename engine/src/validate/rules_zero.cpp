// SPDX-License-Identifier: MIT
// Rule family "zero": keys that act only at some ZeRO stages (DeepSpeed accepts them
// everywhere and silently ignores them elsewhere), offload blocks, NVMe paths and the
// stage-dependent errors of DeepSpeedZeroConfig and DeepSpeedConfig._do_error_check.
#include <algorithm>

#include "rules.hpp"

namespace zf::validate {
namespace {

bool is_offload_key(const std::string& key) {
  return key == "offload_optimizer" || key == "offload_param" || key == "cpu_offload" ||
         key == "cpu_offload_param" || key == "cpu_offload_use_pin_memory";
}

std::string device_of(const json& block) {
  if (!block.is_object()) return "none";
  auto it = block.find("device");
  return it != block.end() && it->is_string() ? it->get<std::string>() : "none";
}

bool has_nvme_path(const json& block) {
  auto it = block.find("nvme_path");
  return it != block.end() && it->is_string() && !it->get<std::string>().empty();
}

// The node of `key` in zero_optimization, following aliases.
const json& zero_key_node(const Context& ctx, const json& zero_section, const std::string& key) {
  static const json none;
  const json* raw = child_node(ctx.schema, zero_section, key);
  if (raw == nullptr) return none;
  const json& node = resolve(ctx.schema, *raw);
  if (facts_of(ctx.schema, *raw).alias) {
    return resolve(ctx.schema, zero_section.at("keys").at(node.at("alias_of").get<std::string>()));
  }
  return node;
}

void check_stage_keys(const Context& ctx, const json& zero, const json& zero_section) {
  std::vector<std::string> idle;  // keys with no effect at stage 0
  for (const auto& [key, value] : zero.items()) {
    if (key == "stage" || is_offload_key(key)) continue;
    const json& node = zero_key_node(ctx, zero_section, key);
    if (node.is_null()) continue;
    const NodeFacts& facts = facts_of(ctx.schema, node);
    if (facts.stages == nullptr) continue;
    if (ctx.stage == 0) {
      idle.push_back(key);
      continue;
    }
    if (facts.no_effect != nullptr) {
      ctx.report(
          pointer_join("/zero_optimization", key), Severity::Warning, "no-effect",
          "\"" + key + "\" has no effect: " + facts.no_effect->get<std::string>() + "; remove it");
      continue;
    }
    const json& stages = *facts.stages;
    bool acts = std::any_of(stages.begin(), stages.end(),
                            [&](const json& s) { return s.get<int>() == ctx.stage; });
    if (!acts) {
      ctx.report(pointer_join("/zero_optimization", key), Severity::Warning, "zero-key-stage",
                 "\"" + key + "\" has no effect at ZeRO stage " + std::to_string(ctx.stage) +
                     ": DeepSpeed reads it only at stage " + stages_text(stages) +
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
  auto it = zero.find(name);
  if (it == zero.end() || !it->is_object()) return;
  const json& block = *it;
  std::string pointer = pointer_join("/zero_optimization", name);
  std::string device = device_of(block);
  bool optimizer = std::string(name) == "offload_optimizer";
  if (device == "none") {
    if (block.contains("pin_memory")) {
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
    if (auto ratio = block.find("ratio");
        ratio != block.end() && ratio->is_number() && ratio->get<double>() < 1.0) {
      ctx.report(pointer + "/ratio", Severity::Error, "offload-ratio-stage",
                 "a ratio below 1 (partial offload) is refused below ZeRO stage 3 (\"Partial "
                 "offloading only "
                 "supported for ZeRO Stage 3.\"); remove ratio or use stage 3");
    }
  }
}

}  // namespace

void check_zero(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  auto zero_it = ctx.config.find("zero_optimization");
  if (zero_it != ctx.config.end() && zero_it->is_object()) {
    const json& zero = *zero_it;
    const json& zero_section =
        resolve(ctx.schema, root_node(ctx.schema).at("keys").at("zero_optimization"));
    check_stage_keys(ctx, zero, zero_section);
    check_offload_block(ctx, zero, "offload_optimizer");
    check_offload_block(ctx, zero, "offload_param");
    if (auto pin = zero.find("cpu_offload_use_pin_memory");
        pin != zero.end() && !zero.contains("cpu_offload") && !zero.contains("cpu_offload_param") &&
        device_of(zero.value("offload_optimizer", json())) == "none" &&
        device_of(zero.value("offload_param", json())) == "none") {
      ctx.report("/zero_optimization/cpu_offload_use_pin_memory", Severity::Warning,
                 "pin-memory-no-offload",
                 "cpu_offload_use_pin_memory has no effect without offload; remove it");
    }
  }
  auto op = ctx.config.find("gradient_allreduce_op");
  if (op != ctx.config.end() && op->is_string() && op->get<std::string>() == "sum") {
    std::string why;
    if (ctx.stage == 3) {
      why = "ZeRO stage 3";
    } else if (zero_it != ctx.config.end() && zero_it->is_object() &&
               zero_it->contains("zenflow") && !zero_it->at("zenflow").is_null()) {
      why = "ZenFlow";
    } else if (auto compile = ctx.config.find("compile");
               compile != ctx.config.end() && is_true(*compile, "deepcompile")) {
      why = "DeepCompile";
    }
    if (!why.empty()) {
      ctx.report("/gradient_allreduce_op", Severity::Error, "allreduce-sum",
                 "gradient_allreduce_op \"sum\" is refused with " + why + "; use \"mean\"");
    }
  }
}

}  // namespace zf::validate
