// SPDX-License-Identifier: MIT
// The activation model. Every term counts the tensors autograd keeps, as the Hugging Face
// GPT-2 and Llama modules create them in PyTorch, and was checked against training steps
// measured on an H100 (tests/plugins/memory/gpu_memory/, docs/estimator.md): all 80 measured
// steps fall within 5% of it.
#include "activations.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zf::memory {
namespace {

// Bytes per token of one layer's kept tensors in 16-bit, outside the s × s scores.
double layer_bytes_per_token(const ModelShape& shape, Attention attention) {
  const double h = static_cast<double>(shape.hidden);
  const double k = static_cast<double>(shape.kv_dim());
  const double i = static_cast<double>(shape.intermediate_or_default());
  const double a = static_cast<double>(shape.heads);
  const bool gelu = shape.mlp == Mlp::Gelu;
  // Norms: LayerNorm keeps its input and its output feeds the next linear (2h + 2h per
  // norm); Llama's RMSNorm keeps an fp32 copy of its input and the 16-bit normalised input
  // of the weight multiply, and its output feeds the linears (4h + 2h + 2h).
  const double norms = gelu ? 8 * h : 16 * h;
  // MLP: GPT-2's tanh GELU is computed op by op and keeps four i-wide tensors (the input,
  // tanh's result, 0.5x and 1 + tanh), plus c_proj's input: 10i. SwiGLU keeps gate (SiLU's
  // input), SiLU's output, up and the product (down_proj's input): 8i.
  const double mlp = gelu ? 10 * i : 8 * i;
  double attn = 0;
  if (attention == Attention::Eager) {
    // q, the key and value repeated to every head (repeat_kv), and the contiguous copy of
    // the attention output that o_proj/c_proj keeps.
    attn = 8 * h;
  } else {
    // The kernel keeps q, k, v, its output and the fp32 log-sum-exp per head.
    attn = 4 * h + 4 * k + 4 * a;
    // GPT-2 splits one fused c_attn output into q/k/v: measured 4 bytes x kv width more per
    // layer than the count above (the kernel's contiguous copies of k and v, while the
    // q view keeps the fused output alive).
    if (gelu) attn += 4 * k;
  }
  return norms + mlp + attn;
}

void check_range(double bytes) {
  if (!(bytes < 9.0e18)) {
    throw std::invalid_argument(
        "the activations of this shape and micro batch exceed 8 EiB; check the sizes");
  }
}

}  // namespace

Activations activation_bytes(const ModelShape& shape, std::int64_t micro_batch,
                             Checkpointing checkpointing, Precision precision, Attention attention,
                             Loss loss) {
  const double s = static_cast<double>(shape.seq_len);
  const double tokens = static_cast<double>(micro_batch) * s;
  const double h = static_cast<double>(shape.hidden);
  const double a = static_cast<double>(shape.heads);
  const double v = static_cast<double>(shape.vocab);
  const double L = static_cast<double>(shape.layers);
  const bool gelu = shape.mlp == Mlp::Gelu;
  // fp32 activations are twice as wide; the fp32 logits and the loss are not.
  const double width = precision == Precision::Fp32 ? 2.0 : 1.0;

  double layer = layer_bytes_per_token(shape, attention);
  // Eager attention keeps the softmax's output per score: 16-bit in GPT-2 (2 bytes); Llama
  // computes it in fp32 and keeps a 16-bit cast too (6 bytes). Its backward needs more for
  // one layer at a time: the gradients of the scores (4 bytes per score in GPT-2 by count;
  // 9 in Llama, fitted to the measured steps at sequence 2048: 9.07 and 9.13). The 16-bit
  // causal mask (b × s × s) is built once and shared by every layer.
  double scores = 0, score_grads = 0, mask = 0;
  // The backward pass of one layer without s × s scores: the gradients of the MLP's
  // intermediates and of the residual stream (by count; never the peak in the measurements).
  double grads = 4 * static_cast<double>(shape.intermediate_or_default()) + 4 * h;
  if (attention == Attention::Eager) {
    scores = (gelu ? 2 : 6) * a * s;
    score_grads = (gelu ? 4 : 9) * a * s;
    mask = 2 * s;
    grads = 0;  // the fitted score term covers this layer's backward
  }
  // The loss (Hugging Face's ForCausalLMLoss): at the backward of the cross entropy, the
  // saved fp32 log-softmax, the incoming gradient and log_softmax's gradient are live at
  // once: 12 bytes per vocabulary entry. A fused loss keeps the 16-bit logits and their
  // gradient at most (4v). The final norm adds LayerNorm's 4h or RMSNorm's 8h.
  const double loss_per_token = (loss == Loss::Hf ? 12 * v : 4 * v) + width * (gelu ? 4 : 8) * h;

  double stored = 0, backward = 0;
  switch (checkpointing) {
    case Checkpointing::None:
      stored = L * width * (layer + scores) + mask;
      backward = width * (score_grads + grads);
      break;
    case Checkpointing::Selective:
      // The attention core is recomputed: no layer keeps its scores; the layer in backward
      // holds them (and their gradients) once.
      stored = L * width * layer + mask;
      backward = width * (scores + score_grads + grads);
      break;
    case Checkpointing::Full:
      // Each layer keeps only its 16-bit input (2h); backward recomputes one layer at a
      // time, which then holds all its activations and its backward working set.
      stored = L * width * 2 * h + mask;
      backward = width * (layer + scores + score_grads + grads);
      break;
  }
  const double peak = stored + std::max(loss_per_token, backward);
  check_range(peak * tokens);
  Activations out;
  out.stored = std::llround(stored * tokens);
  out.loss = std::llround(loss_per_token * tokens);
  out.backward = std::llround(backward * tokens);
  out.peak = out.stored + std::max(out.loss, out.backward);
  return out;
}

double default_headroom(Checkpointing checkpointing) {
  // Measured (reserved - allocated) / activations over the recorded steps: up to 0.08 at
  // large batches without checkpointing (0.16 at a few mid sizes, absorbed by the optimizer
  // step's own term), 0.17-0.47 with full checkpointing.
  return checkpointing == Checkpointing::Full ? 0.45 : 0.10;
}

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::Fp32:
      return "fp32";
    case Precision::Fp16:
      return "fp16";
    case Precision::Bf16:
      return "bf16";
  }
  return "?";
}

const char* to_string(Checkpointing checkpointing) {
  switch (checkpointing) {
    case Checkpointing::None:
      return "none";
    case Checkpointing::Selective:
      return "selective";
    case Checkpointing::Full:
      return "full";
  }
  return "?";
}

const char* to_string(Attention attention) {
  switch (attention) {
    case Attention::Eager:
      return "eager";
    case Attention::Sdpa:
      return "sdpa";
    case Attention::Flash:
      return "flash";
  }
  return "?";
}

const char* to_string(Loss loss) { return loss == Loss::Hf ? "hf" : "fused"; }

namespace {

// The enumerator whose to_string is `text`, trying each of `all`.
template <typename Enum, std::size_t N>
std::optional<Enum> named(std::string_view text, const Enum (&all)[N]) {
  for (Enum value : all) {
    if (text == to_string(value)) return value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Precision> precision_from_string(std::string_view text) {
  return named(text, {Precision::Bf16, Precision::Fp16, Precision::Fp32});
}

std::optional<Checkpointing> checkpointing_from_string(std::string_view text) {
  return named(text, {Checkpointing::None, Checkpointing::Selective, Checkpointing::Full});
}

std::optional<Attention> attention_from_string(std::string_view text) {
  return named(text, {Attention::Eager, Attention::Sdpa, Attention::Flash});
}

std::optional<Loss> loss_from_string(std::string_view text) {
  return named(text, {Loss::Hf, Loss::Fused});
}

}  // namespace zf::memory
