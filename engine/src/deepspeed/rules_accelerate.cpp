// SPDX-License-Identifier: MIT
// Rule family "accelerate": on the Trainer's path (--hf) the config goes on from transformers'
// HfTrainerDeepSpeedConfig to accelerate's DeepSpeedPlugin (TrainingArguments builds it with
// hf_ds_config), which refuses a config without zero_optimization and fills "auto" on the ZeRO
// stage, the offload devices, the NVMe paths and stage3_gather_16bit_weights_on_model_save
// with its defaults, and whose Accelerator.prepare refuses automatic tensor parallelism on a
// DeepSpeed release older than the one it needs. The other families then judge the config as
// DeepSpeed receives it.
#include <cstdint>

#include "deepspeed/accelerate_facts.hpp"
#include "rules.hpp"

namespace zf::deepspeed {
namespace {

std::string accelerate_name(const ValidateOptions& options) {
  return "accelerate" +
         (options.accelerate_version.empty() ? std::string() : " " + options.accelerate_version);
}

}  // namespace

std::string dotted_key(const std::string& pointer) {
  std::string dotted;
  json::json_pointer rest(pointer);
  while (!rest.empty()) {
    dotted = rest.back() + (dotted.empty() ? std::string() : "." + dotted);
    rest.pop_back();
  }
  return dotted;
}

std::optional<json> accelerate_filled(const Context& ctx) {
  if (!ctx.options.hf || !ctx.config.is_object()) return std::nullopt;
  const json& facts = accelerate_facts(ctx.options.accelerate_version);
  const std::string who = accelerate_name(ctx.options);
  for (const auto& required : facts.at("requires")) {
    const auto& pointer = required.get_ref<const std::string&>();
    if (at_pointer(ctx.config, pointer) == nullptr) {
      ctx.report(pointer, Severity::Error, "accelerate-no-zero",
                 "the HF Trainer hands the config to " + who +
                     "'s DeepSpeedPlugin, which raises ValueError (\"Please specify the ZeRO "
                     "optimization config in the DeepSpeed config.\") without \"" +
                     pointer.substr(1) + "\"; write \"zero_optimization\": {\"stage\": 0} " +
                     "for plain data parallelism");
    }
  }
  std::optional<json> filled;
  // DeepSpeedPlugin writes gradient_accumulation_steps 1 into a config that has none, so the
  // batch keys are judged with it (train_batch_size 8 and micro batch 4 on one GPU no longer
  // derive 2 steps): measured through the Trainer's path on DeepSpeedExamples' configs.
  if (const json* inserts = member(facts, "inserts"); inserts != nullptr) {
    for (const auto& insert : *inserts) {
      const auto& pointer = insert.at("pointer").get_ref<const std::string&>();
      if (at_pointer(filled ? *filled : ctx.config, pointer) != nullptr) continue;
      if (!filled) filled = ctx.config;
      filled->operator[](json::json_pointer(pointer)) = insert.at("value");
      // Said where it changes the run: raw DeepSpeed derives the steps from the two batch sizes
      // when both are written; with one of them its own default is the same 1.
      const bool derived = pointer == "/gradient_accumulation_steps" &&
                           ctx.config.contains("train_batch_size") &&
                           ctx.config.contains("train_micro_batch_size_per_gpu");
      if (derived || pointer != "/gradient_accumulation_steps") {
        ctx.report(pointer, Severity::Note, "accelerate-inserts",
                   who + "'s DeepSpeedPlugin writes " + show(insert.at("value")) +
                       " here, as the config has no \"" + pointer.substr(1) + "\"" +
                       (derived ? " (raw DeepSpeed derives it from the two batch sizes)" : "") +
                       "; the config is judged with it");
      }
    }
  }
  for (const auto& fill : facts.at("fills")) {
    const auto& pointer = fill.at("pointer").get_ref<const std::string&>();
    // The Trainer fills first (TrainingArguments runs trainer_config_process before it builds
    // the plugin); what it filled is no longer "auto" when accelerate looks.
    if (trainer_fill(pointer) != nullptr) continue;
    const json* value = at_pointer(filled ? *filled : ctx.config, pointer);
    if (value == nullptr || !is_auto(*value)) continue;
    if (!filled) filled = ctx.config;
    filled->at(json::json_pointer(pointer)) = fill.at("value");
    ctx.report(pointer, Severity::Note, "accelerate-fills",
               who + "'s DeepSpeedPlugin fills \"auto\" with " + show(fill.at("value")) + " (its " +
                   fill.at("field").get<std::string>() +
                   " default, no ACCELERATE_* variable set); the config is judged with it");
  }
  return filled;
}

// Accelerator._prepare_deepspeed reads tensor_parallel.autotp_size before anything else and,
// above 1, raises ImportError on a DeepSpeed release older than the one it names. It reads the
// config as written: a release that lacks tensor_parallel does not hide it from accelerate.
void check_accelerate_autotp(const Context& ctx) {
  if (!ctx.options.hf || !ctx.config.is_object()) return;
  const json& facts = accelerate_facts(ctx.options.accelerate_version);
  const json* needs = member(facts, "autotp_needs_deepspeed");
  if (needs == nullptr || !needs->is_string()) return;
  const json* size = at_pointer(ctx.config, "/tensor_parallel/autotp_size");
  if (size == nullptr || !size->is_number_integer() || size->get<std::int64_t>() <= 1) return;
  const auto& needed = needs->get_ref<const std::string&>();
  const auto needed_release = find_release(needed);
  if (!needed_release || ctx.release >= *needed_release) return;
  ctx.report("/tensor_parallel/autotp_size", Severity::Error, "accelerate-autotp-release",
             "the HF Trainer hands the config to " + accelerate_name(ctx.options) +
                 ", whose Accelerator.prepare raises ImportError (\"Deepspeed TP requires "
                 "deepspeed >= " +
                 needed + "\") for autotp_size " + size->dump() + " on " + ctx.deepspeed() +
                 "; use DeepSpeed " + needed + " or newer, or leave tensor_parallel out");
}

// A config without "optimizer" runs the Trainer's own optimizer (torch's AdamW, a client
// optimizer to DeepSpeed). Accelerator._prepare_deepspeed swaps it for DeepSpeedCPUAdam only when
// the key its release reads (swaps_optimizer_when: offload_optimizer.device in every release from
// 0.18.0) says other than "none" in the config it hands on, while DeepSpeed's engine offloads for
// the deprecated cpu_offload: true as well, and then refuses a client optimizer that is not its
// CPU Adam or Lion unless zero_force_ds_cpu_optimizer is false (every release 0.12 to 0.19).
// Measured: DeepSpeed's Megatron_GPT2 test configs through the Trainer's path raise it.
void check_accelerate_client_optimizer(const Context& ctx) {
  if (!ctx.options.hf || !ctx.config.is_object() || ctx.config.contains("optimizer")) return;
  if (!optimizer_offloaded(ctx.config)) return;
  if (const json* force = member(ctx.config, "zero_force_ds_cpu_optimizer");
      force != nullptr && force->is_boolean() && !force->get<bool>())
    return;
  const json* swap =
      member(accelerate_facts(ctx.options.accelerate_version), "swaps_optimizer_when");
  std::string how = " never swaps it for DeepSpeedCPUAdam";
  if (swap != nullptr && swap->is_string()) {
    const auto& pointer = swap->get_ref<const std::string&>();
    const json* value = at_pointer(ctx.config, pointer);
    if (value != nullptr && value->is_string() && value->get_ref<const std::string&>() != "none")
      return;  // accelerate swaps the Trainer's optimizer for DeepSpeedCPUAdam
    how = " swaps it for DeepSpeedCPUAdam only when " + dotted_key(pointer) + " is set";
  }
  const bool deprecated = is_true(*member(ctx.config, "zero_optimization"), "cpu_offload");
  ctx.report(deprecated ? "/zero_optimization/cpu_offload" : "/zero_optimization/offload_optimizer",
             Severity::Error, "accelerate-client-optimizer",
             "the config has no \"optimizer\", so the HF Trainer brings its own (torch's AdamW), "
             "and " +
                 accelerate_name(ctx.options) + how + "; " + ctx.deepspeed() + " offloads" +
                 (deprecated ? " for the deprecated cpu_offload too" : " the optimizer") +
                 ", and its initialize raises ZeRORuntimeException (\"You are using ZeRO-Offload "
                 "with a client provided optimizer\"); " +
                 (deprecated ? "write \"offload_optimizer\": {\"device\": \"cpu\"} instead of "
                               "cpu_offload, or an \"optimizer\" section"
                             : "write an \"optimizer\" section"));
}

}  // namespace zf::deepspeed
