// SPDX-License-Identifier: MIT
// Rule family "precision": fp16 / bf16 / amp combinations DeepSpeedConfig refuses
// (_do_error_check, DeepSpeedFP16Config validators, engine checks) or silently ignores.
#include "rules.hpp"

namespace zf::deepspeed {
namespace {

const char* const kLossScaleKeys[] = {"loss_scale", "initial_scale_power",    "loss_scale_window",
                                      "hysteresis", "consecutive_hysteresis", "min_loss_scale"};

const char* offload_device(const json& config) {
  const json* zero = at_pointer(config, "/zero_optimization/offload_optimizer/device");
  if (zero == nullptr || !zero->is_string()) return "none";
  return zero->get_ref<const std::string&>() == "cpu"    ? "cpu"
         : zero->get_ref<const std::string&>() == "nvme" ? "nvme"
                                                         : "none";
}

}  // namespace

void check_precision(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  const json& c = ctx.config;
  const json* fp16 = member(c, "fp16");
  const json* bf16 = bf16_section(c);
  const char* bf16_name = member(c, "bf16") != nullptr ? "/bf16" : "/bfloat16";

  if (enabled_true(fp16) && enabled_true(bf16)) {
    ctx.report(std::string(bf16_name) + "/enabled", Severity::Error, "fp16-bf16-both",
               "fp16.enabled and bf16.enabled are both true; DeepSpeed asserts that at most one is "
               "(\"bfloat16 and "
               "fp16 modes cannot be simultaneously enabled\"): keep one");
  }
  if (enabled_true(bf16) && fp16 != nullptr && fp16->is_object() && !enabled_true(fp16)) {
    std::string present;
    for (const char* key : kLossScaleKeys) {
      if (member(*fp16, key) != nullptr)
        present += (present.empty() ? "" : ", ") + std::string(key);
    }
    if (!present.empty()) {
      ctx.report("/fp16", Severity::Warning, "loss-scale-with-bf16",
                 "bf16 is enabled and fp16 is not, so the fp16 loss-scaling settings (" + present +
                     ") have no effect: bf16 needs no loss scaling; remove the fp16 section");
    }
  }
  if (fp16 != nullptr && fp16->is_object()) {
    const json* scale = member(*fp16, "loss_scale");
    bool dynamic = scale == nullptr || (scale->is_number() && scale->get<double>() == 0);
    for (const char* key : {"loss_scale_window", "min_loss_scale"}) {
      const json* it = member(*fp16, key);
      if (dynamic && it != nullptr && it->is_number() && it->get<double>() <= 0) {
        ctx.report(pointer_join("/fp16", key), Severity::Error, "bounds",
                   std::string("with dynamic loss scaling (loss_scale 0) DeepSpeed needs ") + key +
                       " > 0");
      }
    }
  }

  // Master weights and optimizer states in 16 bit: ZeRO stages 1-3 only, and CPU offload with
  // DeepSpeedCPUAdam (the engine refuses other setups at initialize).
  struct Master {
    const json* section;
    const char* pointer;
    const char* key;
  };
  const Master masters[] = {{fp16, "/fp16", "fp16_master_weights_and_grads"},
                            {bf16, bf16_name, "bf16_master_weights_and_grads"},
                            {bf16, bf16_name, "bf16_optimizer_states"}};
  for (const auto& m : masters) {
    if (m.section == nullptr || !is_true(*m.section, m.key)) continue;
    std::string pointer = pointer_join(m.pointer, m.key);
    const bool fp16_key = std::string_view(m.key) == "fp16_master_weights_and_grads";
    if (fp16_key && ctx.stage != 2 && ctx.has("check:fp16-master-weights-stage-2-only")) {
      ctx.report(pointer, Severity::Error, "master-weights",
                 std::string(m.key) + " is only supported with ZeRO stage 2 in " + ctx.deepspeed() +
                     " (\"only supported with ZeRO Stage 2 for now\"; " +
                     "stages 1-3 from 0.18.3 on); it refuses it at stage " +
                     std::to_string(ctx.stage));
    } else if (ctx.stage == 0) {
      ctx.report(
          pointer, Severity::Error, "master-weights",
          std::string(m.key) +
              " is only supported with ZeRO stage 1, 2 or 3; DeepSpeed refuses it at stage 0");
    } else if (std::string(m.key) == "bf16_optimizer_states" &&
               !is_true(*m.section, "bf16_master_weights_and_grads")) {
      ctx.report(pointer, Severity::Error, "master-weights",
                 "bf16_optimizer_states requires bf16_master_weights_and_grads to be true");
    } else if (std::string(m.key) != "bf16_optimizer_states" &&
               std::string(offload_device(c)) != "cpu") {
      ctx.report(pointer, Severity::Error, "master-weights",
                 std::string(m.key) +
                     " needs zero_optimization.offload_optimizer.device \"cpu\" (with "
                     "DeepSpeedCPUAdam); DeepSpeed refuses it otherwise at initialize");
    }
  }

  if (enabled_true(member(c, "amp"))) {
    std::string with;
    if (ctx.stage > 0) with = "ZeRO";
    if (enabled_true(fp16)) with += std::string(with.empty() ? "" : " and ") + "fp16";
    if (enabled_true(bf16)) with += std::string(with.empty() ? "" : " and ") + "bf16";
    if (!with.empty()) {
      ctx.report("/amp/enabled", Severity::Error, "amp-conflict",
                 "apex AMP cannot be combined with " + with +
                     "; DeepSpeed refuses it at initialize: use fp16 or bf16 "
                     "instead of amp");
    }
  }
}

}  // namespace zf::deepspeed
