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
      // pydantic would take true as 1; from 0.19.3 a validator refuses booleans first.
      if (it != nullptr && it->is_boolean() && ctx.has("check:fp16-scale-params-checked")) {
        ctx.report(pointer_join("/fp16", key), Severity::Error, "type",
                   ctx.deepspeed() + " refuses a boolean here (\"fp16." + key +
                       " must be an integer, not bool\"); write the integer you mean");
      }
      if (dynamic && it != nullptr && it->is_number() && it->get<double>() <= 0) {
        ctx.report(pointer_join("/fp16", key), Severity::Error, "bounds",
                   std::string("with dynamic loss scaling (loss_scale 0) DeepSpeed needs ") + key +
                       " > 0");
      }
    }
  }

  // Master weights and optimizer states in 16 bit (DeepSpeed's _configure_master_weights and
  // the ZeRO optimizers' offload validators): ZeRO stages 1-3 only; fp16 master weights, and bf16
  // ones whose optimizer states stay fp32, need the optimizer offloaded (stages 1-2: to the CPU;
  // stage 3: to the CPU or NVMe) with DeepSpeedCPUAdam. bf16 optimizer states may stay on the
  // GPU; offloaded too, they are held to the same validator where the release checks it
  // (check:bf16-optimizer-states-offload-checked, 0.19.1 on).
  struct Master {
    const json* section;
    const char* pointer;
    const char* key;
  };
  const Master masters[] = {{fp16, "/fp16", "fp16_master_weights_and_grads"},
                            {bf16, bf16_name, "bf16_master_weights_and_grads"},
                            {bf16, bf16_name, "bf16_optimizer_states"}};
  const std::string device = offload_device(c);
  const bool offloaded = ctx.stage == 3 ? device != "none" : device == "cpu";
  for (const auto& m : masters) {
    if (m.section == nullptr || !is_true(*m.section, m.key)) continue;
    std::string pointer = pointer_join(m.pointer, m.key);
    const std::string_view key = m.key;
    const bool fp16_key = key == "fp16_master_weights_and_grads";
    const bool states = key == "bf16_optimizer_states";
    if (fp16_key && ctx.stage != 2 && ctx.has("check:fp16-master-weights-stage-2-only")) {
      ctx.report(pointer, Severity::Error, "master-weights",
                 std::string(m.key) + " is only supported with ZeRO stage 2 in " + ctx.deepspeed() +
                     " (\"only supported with ZeRO Stage 2 for now\"; " +
                     "stages 1-3 from 0.18.3 on); it refuses it at stage " +
                     std::to_string(ctx.stage));
      continue;
    }
    if (ctx.stage == 0) {
      ctx.report(
          pointer, Severity::Error, "master-weights",
          std::string(m.key) +
              " is only supported with ZeRO stage 1, 2 or 3; DeepSpeed refuses it at stage 0");
      continue;
    }
    if (states && !is_true(*m.section, "bf16_master_weights_and_grads")) {
      ctx.report(pointer, Severity::Error, "master-weights",
                 "bf16_optimizer_states requires bf16_master_weights_and_grads to be true");
      continue;
    }
    // Which settings DeepSpeed holds to the offload validator.
    const bool with_states = !fp16_key && is_true(*m.section, "bf16_optimizer_states");
    bool validated = fp16_key || (!states && !with_states);
    if (states && offloaded && ctx.has("check:bf16-optimizer-states-offload-checked"))
      validated = true;
    if (!validated) continue;
    const std::string where = ctx.stage == 3 ? "\"cpu\" or \"nvme\"" : "\"cpu\"";
    if (!offloaded) {
      ctx.report(
          pointer, Severity::Error, "master-weights",
          std::string(m.key) + " needs zero_optimization.offload_optimizer.device " + where +
              " at stage " + std::to_string(ctx.stage) + " (with DeepSpeedCPUAdam)" +
              (key == "bf16_master_weights_and_grads" ? " unless bf16_optimizer_states is true too"
                                                      : "") +
              "; DeepSpeed refuses it otherwise at initialize");
      continue;
    }
    // DeepSpeed builds DeepSpeedCPUAdam for the config's Adam or AdamW when the optimizer is
    // offloaded, and torch's Adam with torch_adam; any other optimizer fails the validator.
    const json* optimizer = member(ctx.config, "optimizer");
    const json* type = optimizer != nullptr ? member(*optimizer, "type") : nullptr;
    if (type == nullptr || !type->is_string()) continue;  // a client optimizer: unknown here
    const std::string name = lower(type->get<std::string>());
    const json* params = member(*optimizer, "params");
    const bool torch_adam = params != nullptr && is_true(*params, "torch_adam");
    if ((name != "adam" && name != "adamw") || torch_adam) {
      ctx.report(pointer, Severity::Error, "master-weights",
                 std::string(m.key) +
                     " needs DeepSpeedCPUAdam, which DeepSpeed builds for an "
                     "offloaded \"Adam\" or \"AdamW\" without torch_adam; with " +
                     (torch_adam ? "torch_adam" : "\"" + type->get<std::string>() + "\"") +
                     " it refuses the config at initialize (\"Master weights feature requires "
                     "ZeRO Offload with DeepSpeedCPUAdam\")");
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
