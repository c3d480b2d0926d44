// SPDX-License-Identifier: MIT
// fit_launch (fit_launch.hpp): each assumption of a fit, and how the launch
// carries it out. Sources: transformers TrainingArguments (gradient_checkpointing,
// use_liger_kernel; neither a sequence length nor an attention kernel is one of its fields),
// modeling_utils (`attn_implementation`: eager, sdpa, flash_attention_2).
#include "fit_launch.hpp"

#include <array>

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::string_view kSeqLen = "ZEROFORGE_SEQ_LEN";
constexpr std::string_view kAttention = "ZEROFORGE_ATTN_IMPLEMENTATION";
constexpr std::string_view kCheckpointing = "ZEROFORGE_ACTIVATION_CHECKPOINTING";
constexpr std::string_view kLoss = "ZEROFORGE_LOSS";

// The estimate's attention kernels, as transformers' `attn_implementation` names them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kAttentionNames = {{
    {"eager", "eager"},
    {"sdpa", "sdpa"},
    {"flash", "flash_attention_2"},
}};

}  // namespace

FitLaunch fit_launch(const FitAssumptions& fit, bool training_arguments, bool trainer_style) {
  FitLaunch out;
  const std::string& checkpointing = fit.activation_checkpointing;

  // Hugging Face's gradient_checkpointing recomputes every layer (the estimate's `full`).
  // Without it the activations of every layer stay: a launch without the flag needs what the
  // fit counted for `none`, several times what it sized.
  if (checkpointing == "full") out.training_arguments.emplace_back("gradient_checkpointing", true);
  if (checkpointing == "selective" && training_arguments) {
    out.problems.push_back(
        {"/auto_fit/activation_checkpointing",
         "auto-fit sized this config for selective activation checkpointing (only the "
         "attention core recomputed), which the Hugging Face Trainer cannot do: its "
         "gradient_checkpointing recomputes whole layers (full), and without it every layer's "
         "activations stay; choose full or none, or write only companions without training "
         "arguments (hostfile, deepspeed-env)"});
  }
  // The Trainer's fused cross entropy: Liger's fused linear cross entropy never holds the
  // fp32 logits (the estimate's `fused` loss). `hf` (upcast logits) is what the Trainer does
  // without it.
  out.training_arguments.emplace_back("use_liger_kernel", fit.loss == "fused");
  out.environment.push_back({std::string(kSeqLen), std::to_string(fit.seq_len), "seq_len"});
  // A script that takes no Trainer flags (launch.style deepspeed, accelerate, plain) learns
  // what the Trainer's gradient_checkpointing and use_liger_kernel would say from these, as
  // the record says it: selective is one such a script can carry out itself.
  if (!trainer_style) {
    out.environment.push_back(
        {std::string(kCheckpointing), checkpointing, "activation_checkpointing"});
    out.environment.push_back({std::string(kLoss), fit.loss, "loss"});
  }
  for (const auto& [estimate_name, transformers_name] : kAttentionNames) {
    if (fit.attention == estimate_name)
      out.environment.push_back(
          {std::string(kAttention), std::string(transformers_name), "attention"});
  }
  return out;
}

}  // namespace zf::pipeline
