// SPDX-License-Identifier: MIT
// Activation memory of one training micro batch: what the forward pass keeps for backward,
// the loss's peak, and the one-layer working set of the backward pass, per attention
// implementation and checkpointing mode (docs/estimator.md, "Activations").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model_shape.hpp"

namespace zf::memory {

/// Weight/gradient precision: 16-bit mixed precision or plain fp32.
enum class Precision { Fp32, Fp16, Bf16 };
/// Activation checkpointing: none; selective (Korthikanti et al.: the attention core is
/// recomputed); full (only each layer's input kept, the layer recomputed in backward).
enum class Checkpointing { None, Selective, Full };
/// The attention kernel: eager keeps the s × s scores; sdpa (PyTorch's
/// scaled_dot_product_attention) and flash keep none.
enum class Attention { Eager, Sdpa, Flash };
/// The loss: hf upcasts the logits to fp32 in the cross entropy (Hugging Face's default);
/// fused is a fused/chunked cross entropy that never holds fp32 logits.
enum class Loss { Hf, Fused };

/// Activation bytes on one GPU for one micro batch.
struct Activations {
  std::int64_t stored = 0;    ///< kept for backward by all layers (layer inputs under full)
  std::int64_t loss = 0;      ///< final norm, logits and cross entropy at the loss's peak
  std::int64_t backward = 0;  ///< one layer's working set in backward (recompute included)
  std::int64_t peak = 0;      ///< stored + max(loss, backward)
};

/// The activation model (docs/estimator.md lists each term and the measurement it matches).
/// Throws std::invalid_argument when the result would not fit in 63 bits.
Activations activation_bytes(const ModelShape& shape, std::int64_t micro_batch,
                             Checkpointing checkpointing, Precision precision, Attention attention,
                             Loss loss);

/// The caching allocator's measured fragmentation, as a fraction of the activation peak:
/// 0.10 without checkpointing (selective too), 0.45 with full checkpointing, whose
/// recomputation frees and re-allocates every layer's tensors between kept layer inputs.
double default_headroom(Checkpointing checkpointing);

const char* to_string(Precision precision);
const char* to_string(Checkpointing checkpointing);
const char* to_string(Attention attention);
const char* to_string(Loss loss);
std::optional<Precision> precision_from_string(std::string_view text);
std::optional<Checkpointing> checkpointing_from_string(std::string_view text);
std::optional<Attention> attention_from_string(std::string_view text);
std::optional<Loss> loss_from_string(std::string_view text);

}  // namespace zf::memory
