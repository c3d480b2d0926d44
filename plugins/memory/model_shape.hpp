// SPDX-License-Identifier: MIT
// A transformer's shape as the memory model needs it (GPT-2-style or Llama-style blocks,
// GQA, MLP width, tied embeddings, learned positions) and the parameter count it implies.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zf::memory {

/// The block family. It names more than the MLP, because the memory model follows the
/// Hugging Face code of each family: `Gelu` is a GPT-2-style block (LayerNorm with bias,
/// one fused q/k/v projection with biases, the tanh GELU computed op by op, 16-bit softmax
/// in eager attention, learned positions); `Swiglu` is a Llama-style block (RMSNorm computed
/// in fp32, separate q/k/v/o projections without bias, RoPE, SwiGLU, fp32 softmax in eager
/// attention).
enum class Mlp { Gelu, Swiglu };

/// A decoder-only transformer. Zero means "the default" for the optional fields.
struct ModelShape {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;
  std::int64_t kv_heads = 0;      ///< key/value heads (GQA/MQA); 0: = heads
  std::int64_t intermediate = 0;  ///< MLP width; 0: 4 × hidden
  Mlp mlp = Mlp::Gelu;
  std::optional<bool> tied_embeddings;  ///< unset: true for gelu, false for swiglu
  std::optional<std::int64_t>
      positions;  ///< learned position rows; unset: seq_len for gelu, 0 for swiglu (RoPE)

  std::int64_t kv_heads_or_default() const { return kv_heads > 0 ? kv_heads : heads; }
  std::int64_t intermediate_or_default() const {
    return intermediate > 0 ? intermediate : 4 * hidden;
  }
  bool tied() const { return tied_embeddings.value_or(mlp == Mlp::Gelu); }
  std::int64_t position_rows() const { return positions.value_or(mlp == Mlp::Gelu ? seq_len : 0); }
  /// Width of the key (or value) projection: head_dim × kv_heads.
  std::int64_t kv_dim() const { return hidden / heads * kv_heads_or_default(); }
};

/// Throws std::invalid_argument unless every size is positive, hidden divides by heads and
/// heads by kv_heads (as every GQA implementation requires).
void check_shape(const ModelShape& shape);

/// Ψ as PyTorch counts it for the Hugging Face model of this shape, with k = kv_dim() and
/// i = the MLP width. Per layer: gelu h(h + 2k) + h² + 2hi plus biases and LayerNorms
/// (h + 2k + h + i + h + 4h); swiglu h(h + 2k) + h² + 3hi + 2h. Then the final norm (2h or
/// h), the embedding Vh (2Vh when untied) and the learned positions (rows × h).
std::int64_t params_from_shape(const ModelShape& shape);

/// The largest single parameter tensor: the embedding (Vh), one MLP matrix (hi) or GPT-2's
/// fused q/k/v projection (h(h + 2k)).
std::int64_t largest_layer_from_shape(const ModelShape& shape);

const char* to_string(Mlp mlp);
std::optional<Mlp> mlp_from_string(std::string_view text);

}  // namespace zf::memory
