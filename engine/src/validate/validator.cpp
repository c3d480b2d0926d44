// SPDX-License-Identifier: MIT
// validate_config: runs the rule families in order over one config, plus the catalogue of
// rule ids and the text/JSON forms of findings.
#include "against_args.hpp"
#include "deepspeed/rules.hpp"
#include "deepspeed/world_size.hpp"

namespace zf {

std::vector<Finding> validate_config(const nlohmann::ordered_json& config,
                                     const ValidateOptions& options, const std::string& file) {
  std::vector<Finding> findings;
  std::vector<std::string> absent;
  deepspeed::Context ctx{config, options, file, findings, 0};
  ctx.release = deepspeed::require_release(options.deepspeed_version);
  ctx.absent_keys = &absent;
  ctx.stage = config.is_object() ? deepspeed::zero_stage(config) : 0;
  deepspeed::check_keys(ctx);
  if (!config.is_object()) return findings;
  deepspeed::check_accelerate_autotp(ctx);
  // Keys the release lacks do nothing there (ignored) or stop it (refused, reported above):
  // the other rules judge the config as that release reads it, without them. A copy is made
  // only for a config that has such keys.
  nlohmann::ordered_json pruned;
  if (!absent.empty()) {
    pruned = config;
    for (auto it = absent.rbegin(); it != absent.rend(); ++it) {
      nlohmann::ordered_json::json_pointer pointer(*it);
      pruned.at(pointer.parent_pointer()).erase(pointer.back());
    }
  }
  const nlohmann::ordered_json& read = absent.empty() ? config : pruned;
  // On the Trainer's path accelerate fills some "auto" before DeepSpeed sees the config: the
  // rest judge the config it hands on (the ZeRO stage among its fills).
  deepspeed::Context trainer_path{read, options, file, findings, ctx.stage};
  trainer_path.release = ctx.release;
  const std::optional<nlohmann::ordered_json> filled = deepspeed::accelerate_filled(trainer_path);
  const nlohmann::ordered_json& judged = filled ? *filled : read;
  deepspeed::Context rest{judged, options, file, findings,
                          filled ? deepspeed::zero_stage(judged) : ctx.stage};
  rest.release = ctx.release;
  deepspeed::check_auto(rest);
  deepspeed::check_accelerate_client_optimizer(rest);
  deepspeed::check_batch(rest);
  deepspeed::check_zero(rest);
  deepspeed::check_precision(rest);
  deepspeed::check_training(rest);
  deepspeed::check_compression(rest);
  deepspeed::check_regressions(rest);
  if (options.against) validate::check_against_args(rest, *options.against);
  return findings;
}

ValidateOptions validate_options_from_values(const nlohmann::ordered_json& values) {
  ValidateOptions options;
  if (!values.is_object()) return options;
  // Values hold many keys: each is looked up once.
  // Unset past 64 bits: the values contract reports that product at /nodes.
  if (auto world_size = deepspeed::world_size_of(values)) options.world_size = *world_size;
  // hf_auto is true, or a non-empty list of the keys left to the Trainer (docs/values.md).
  const nlohmann::ordered_json* hf = deepspeed::member(values, "hf_auto");
  options.hf =
      deepspeed::is_true(values, "hf_auto") || (hf != nullptr && hf->is_array() && !hf->empty());
  if (const nlohmann::ordered_json* version = deepspeed::member(values, "deepspeed_version");
      version != nullptr && version->is_string()) {
    options.deepspeed_version = version->get<std::string>();
  }
  if (const nlohmann::ordered_json* version = deepspeed::member(values, "accelerate_version");
      version != nullptr && version->is_string()) {
    options.accelerate_version = version->get<std::string>();
  }
  return options;
}

bool is_deepspeed_config(const nlohmann::ordered_json& document) {
  if (!document.is_object()) return false;
  const deepspeed::NodeFacts& root = deepspeed::root_facts();
  for (const auto& [key, value] : document.items()) {
    if (root.key(key) != nullptr) return true;
  }
  return false;
}

bool has_errors(const std::vector<Finding>& findings) noexcept {
  for (const auto& f : findings) {
    if (f.severity == Severity::Error) return true;
  }
  return false;
}

std::string format_finding(const Finding& f) {
  return f.file + ": " + (f.pointer.empty() ? "/" : f.pointer) + ": " + severity_name(f.severity) +
         " [" + f.rule + "]: " + f.message;
}

nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& f : findings) {
    out.push_back({{"file", f.file},
                   {"pointer", f.pointer},
                   {"severity", severity_name(f.severity)},
                   {"rule", f.rule},
                   {"message", f.message}});
  }
  return out;
}

const std::vector<RuleInfo>& validation_rules() {
  using S = Severity;
  static const std::vector<RuleInfo> rules = {
      // keys, types and values
      {"unknown-key", S::Error, "a key a strictly validated (pydantic) section does not have"},
      {"ignored-key", S::Warning,
       "a key DeepSpeed does not read at the top level or in a .get-read section"},
      {"type", S::Error, "a value of the wrong JSON type"},
      {"integer-required", S::Error, "a float where DeepSpeed needs a real integer (batch keys)"},
      {"bounds", S::Error, "a number outside the range DeepSpeed accepts"},
      {"enum", S::Error, "a value that is not one of the allowed choices"},
      {"alias", S::Note, "an accepted alternative spelling; names the canonical one"},
      {"alias-conflict", S::Warning, "a setting given under two names"},
      {"deprecated", S::Warning,
       "a deprecated key or form DeepSpeed still maps to its replacement"},
      {"deprecated-conflict", S::Error, "a deprecated key together with its replacement"},
      // "auto"
      {"auto-without-hf", S::Error,
       "\"auto\" in a config raw DeepSpeed reads, where the string reaches its code"},
      {"auto-dropped", S::Warning,
       "\"auto\" raw DeepSpeed drops in a pydantic section, running with the default"},
      {"auto-not-filled", S::Error,
       "\"auto\" on a key neither the HF Trainer nor accelerate fills (accelerate raises)"},
      {"hf-warmup-auto", S::Warning, "warmup_num_steps \"auto\" becomes 0 unless warmup is set"},
      {"accelerate-no-zero", S::Error,
       "a config the Trainer hands to accelerate without zero_optimization (accelerate raises)"},
      {"accelerate-autotp-release", S::Error,
       "automatic tensor parallelism on a DeepSpeed release accelerate refuses it for"},
      {"accelerate-client-optimizer", S::Error,
       "the Trainer's own optimizer under the deprecated cpu_offload, which accelerate does not "
       "swap for DeepSpeedCPUAdam (DeepSpeed raises)"},
      {"hf-warmup-zero", S::Error,
       "warmup_num_steps \"auto\" with a launch that sets no warmup: 0, which DeepSpeed refuses"},
      {"accelerate-inserts", S::Note,
       "a key accelerate's DeepSpeedPlugin writes into a config that lacks it (gradient "
       "accumulation 1)"},
      {"accelerate-fills", S::Note,
       "an \"auto\" accelerate's DeepSpeedPlugin fills with its default (stage 2, no offload)"},
      // batch
      {"batch-missing", S::Error, "neither train_batch_size nor train_micro_batch_size_per_gpu"},
      {"batch-mismatch", S::Error,
       "the batch equation fails (at the given world size, or at every one)"},
      {"batch-world-size", S::Note, "the world sizes the batch keys are consistent with"},
      {"elasticity-batch", S::Error, "batch keys together with elasticity"},
      // ZeRO
      {"zero-disabled-keys", S::Warning, "ZeRO options at stage 0"},
      {"zero-key-stage", S::Warning, "a ZeRO key that has no effect at the configured stage"},
      {"no-effect", S::Warning, "a key DeepSpeed accepts and reads nowhere"},
      {"offload-optimizer-stage", S::Warning, "offload_optimizer at stage 0"},
      {"offload-param-stage", S::Warning, "offload_param below stage 3"},
      {"offload-nvme-stage", S::Warning, "NVMe optimizer offload below stage 3 (CPU is used)"},
      {"offload-ratio-stage", S::Error, "partial optimizer offload (ratio < 1) below stage 3"},
      {"nvme-path-missing", S::Error, "NVMe offload without nvme_path"},
      {"pin-memory-no-offload", S::Warning, "pin_memory without an offload device"},
      {"allreduce-sum", S::Error, "gradient_allreduce_op sum with stage 3, ZenFlow or DeepCompile"},
      {"hpz-partition-size", S::Error,
       "a ZeRO++ hpZ partition size that does not divide the world"},
      {"autocast-quantized-weights", S::Error, "ZeRO++ quantized weights with torch_autocast"},
      // precision
      {"fp16-bf16-both", S::Error, "fp16 and bf16 both enabled"},
      {"loss-scale-with-bf16", S::Warning, "fp16 loss-scaling settings while bf16 is the mode"},
      {"master-weights", S::Error,
       "16-bit master weights or optimizer states without their requirements"},
      {"amp-conflict", S::Error, "apex AMP with ZeRO, fp16 or bf16"},
      // optimizer, scheduler, other sections
      {"required-key", S::Error, "a key a section cannot do without"},
      {"optimizer-type", S::Error, "an optimizer type neither DeepSpeed nor torch.optim has"},
      {"optimizer-zero", S::Error, "an optimizer ZeRO refuses"},
      {"lamb-loss-scale", S::Error, "LAMB or 1-bit LAMB with a static loss scale"},
      {"optimizer-params", S::Error,
       "an optimizer parameter the class DeepSpeed builds does not take, or refuses"},
      {"optimizer-param-ignored", S::Warning, "an optimizer parameter DeepSpeed drops (Muon)"},
      {"scheduler-type", S::Error, "a scheduler type neither DeepSpeed nor torch has"},
      {"scheduler-params", S::Error, "a parameter a DeepSpeed scheduler does not take"},
      {"warmup-steps", S::Error, "warmup_num_steps that is not a positive integer"},
      {"vocabulary-size", S::Warning, "a vocabulary size that is not a multiple of 8"},
      {"known-regression", S::Warning,
       "a pinned release with a reported regression the config's stage meets (note: slower)"},
      // against the training command
      {"args-world-size", S::Error, "--world-size and the launcher disagree"},
      {"args-batch", S::Error, "batch keys that disagree with the training arguments"},
      {"args-precision", S::Error, "fp16/bf16 that disagree with --fp16/--bf16"},
      {"args-value", S::Error,
       "gradient clipping, optimizer or scheduler values that disagree with the arguments"},
      {"args-activation-checkpointing", S::Warning,
       "activation checkpointing configured but not turned on"},
      {"args-deepspeed-file", S::Warning, "the command's --deepspeed names another file"},
      {"args-accelerate", S::Error,
       "an accelerate config that does not run this DeepSpeed config, or that accelerate "
       "refuses next to it"},
  };
  return rules;
}

}  // namespace zf
