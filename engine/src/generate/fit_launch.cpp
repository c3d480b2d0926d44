// SPDX-License-Identifier: MIT
// fit_launch (fit_launch.hpp): each assumption of the memory plugin's fit, and how the launch
// carries it out. Sources: transformers TrainingArguments (gradient_checkpointing,
// use_liger_kernel; neither a sequence length nor an attention kernel is one of its fields),
// modeling_utils (`attn_implementation`: eager, sdpa, flash_attention_2).
#include "fit_launch.hpp"

#include <array>
#include <optional>

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::string_view kSeqLen = "ZEROFORGE_SEQ_LEN";
constexpr std::string_view kAttention = "ZEROFORGE_ATTN_IMPLEMENTATION";

// The estimate's attention kernels, as transformers' `attn_implementation` names them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kAttentionNames = {{
    {"eager", "eager"},
    {"sdpa", "sdpa"},
    {"flash", "flash_attention_2"},
}};

class RecordReader {
 public:
  RecordReader(const Json& record, FitLaunch& out) : record_(record), out_(out) {}

  // The string at model.KEY, one of `allowed`, or nullopt after a problem.
  std::optional<std::string> choice(const char* key,
                                    std::initializer_list<std::string_view> allowed) {
    const Json* v = model(key);
    if (v != nullptr && v->is_string()) {
      for (auto name : allowed) {
        if (*v == name) return v->get<std::string>();
      }
    }
    missing(key, v);
    return std::nullopt;
  }

  std::optional<std::int64_t> positive(const char* key) {
    const Json* v = model(key);
    if (v != nullptr && v->is_number_integer() && v->get<std::int64_t>() > 0)
      return v->get<std::int64_t>();
    missing(key, v);
    return std::nullopt;
  }

 private:
  const Json* model(const char* key) const {
    if (!record_.is_object()) return nullptr;
    auto m = record_.find("model");
    if (m == record_.end() || !m->is_object()) return nullptr;
    auto it = m->find(key);
    return it == m->end() ? nullptr : &*it;
  }
  // A record the companions cannot read: another plugin named `memory`, or a newer one.
  void missing(const char* key, const Json* found) {
    out_.problems.push_back(
        {"/auto_fit", std::string("the memory plugin's record (plugins.memory.auto_fit) has ") +
                          (found ? "model." + std::string(key) + "=" + found->dump()
                                 : "no model." + std::string(key)) +
                          ", so the companions cannot say what auto-fit assumed"});
  }

  const Json& record_;
  FitLaunch& out_;
};

}  // namespace

FitLaunch fit_launch(const Json& record, bool training_arguments) {
  FitLaunch out;
  RecordReader r(record, out);
  const auto checkpointing = r.choice("activation_checkpointing", {"none", "selective", "full"});
  const auto loss = r.choice("loss", {"hf", "fused"});
  const auto attention = r.choice("attention", {"eager", "sdpa", "flash"});
  const auto seq_len = r.positive("seq_len");

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
  if (loss) out.training_arguments.emplace_back("use_liger_kernel", *loss == "fused");
  if (seq_len)
    out.environment.push_back({std::string(kSeqLen), std::to_string(*seq_len), "seq_len"});
  if (attention) {
    for (const auto& [estimate_name, transformers_name] : kAttentionNames) {
      if (*attention == estimate_name)
        out.environment.push_back(
            {std::string(kAttention), std::string(transformers_name), "attention"});
    }
  }
  return out;
}

}  // namespace zf::pipeline
