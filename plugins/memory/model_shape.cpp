// SPDX-License-Identifier: MIT
// Parameter counts of the two block families, term by term as the Hugging Face modules hold
// them (GPT2Model / LlamaModel); tests check them against PyTorch's counts in the recorded
// measurements.
#include "model_shape.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "checked.hpp"

namespace zf::memory {
namespace {

void require_positive(std::int64_t value, const char* name) {
  if (value <= 0) {
    throw std::invalid_argument(std::string(name) + " must be positive, got " +
                                std::to_string(value));
  }
}

}  // namespace

void check_shape(const ModelShape& s) {
  require_positive(s.layers, "layers");
  require_positive(s.hidden, "hidden");
  require_positive(s.heads, "heads");
  require_positive(s.vocab, "vocab");
  require_positive(s.seq_len, "seq_len");
  if (s.kv_heads < 0) require_positive(s.kv_heads, "kv_heads");
  if (s.intermediate < 0) require_positive(s.intermediate, "intermediate_size");
  if (s.positions && *s.positions < 0) {
    throw std::invalid_argument("positions must not be negative, got " +
                                std::to_string(*s.positions));
  }
  if (s.hidden % s.heads != 0) {
    throw std::invalid_argument("hidden=" + std::to_string(s.hidden) +
                                " is not a multiple of heads=" + std::to_string(s.heads));
  }
  if (s.heads % s.kv_heads_or_default() != 0) {
    throw std::invalid_argument(
        "heads=" + std::to_string(s.heads) +
        " is not a multiple of kv_heads=" + std::to_string(s.kv_heads_or_default()));
  }
  // Shapes past 10^7 in any dimension are typos. That keeps each dimension's product with
  // another below 2^63; the parameter count, a product of three, is checked in full.
  for (auto [value, name] : {std::pair{s.layers, "layers"},
                             {s.hidden, "hidden"},
                             {s.vocab, "vocab"},
                             {s.seq_len, "seq_len"},
                             {s.intermediate_or_default(), "intermediate_size"},
                             {s.position_rows(), "positions"}}) {
    if (value > 10'000'000) {
      throw std::invalid_argument(std::string(name) + "=" + std::to_string(value) +
                                  " is beyond any model this estimator describes (max 10000000)");
    }
  }
}

std::int64_t params_from_shape(const ModelShape& s) {
  // Each dimension is at most 10^7 once checked, so a layer's count fits easily; only the
  // product with the layer count can pass 2^63.
  check_shape(s);
  const std::int64_t h = s.hidden, k = s.kv_dim(), i = s.intermediate_or_default();
  std::int64_t layer = 0, final_norm = 0;
  if (s.mlp == Mlp::Gelu) {
    // c_attn (fused q/k/v, bias), c_proj (bias), c_fc and the MLP's c_proj (biases), ln_1
    // and ln_2 (weight and bias each).
    layer = h * (h + 2 * k) + (h + 2 * k) + h * h + h + 2 * h * i + i + h + 4 * h;
    final_norm = 2 * h;
  } else {
    // q/k/v/o without bias, gate/up/down, two RMSNorm weights.
    layer = h * (h + 2 * k) + h * h + 3 * h * i + 2 * h;
    final_norm = h;
  }
  const std::int64_t embeddings = s.vocab * h * (s.tied() ? 1 : 2) + s.position_rows() * h;
  const std::optional<std::int64_t> layers = checked_product({s.layers, layer});
  if (!layers || *layers > INT64_MAX - final_norm - embeddings) {
    throw std::invalid_argument(
        beyond_int64("the parameter count of layers=" + std::to_string(s.layers) + " x " +
                     std::to_string(layer) + " per layer") +
        "; check the sizes");
  }
  return *layers + final_norm + embeddings;
}

std::int64_t largest_layer_from_shape(const ModelShape& s) {
  check_shape(s);  // each dimension at most 10^7: no product of two passes 2^63
  const std::int64_t h = s.hidden;
  return std::max({s.vocab * h, h * s.intermediate_or_default(), h * (h + 2 * s.kv_dim())});
}

const char* to_string(Mlp mlp) { return mlp == Mlp::Gelu ? "gelu" : "swiglu"; }

std::optional<Mlp> mlp_from_string(std::string_view text) {
  if (text == "gelu") return Mlp::Gelu;
  if (text == "swiglu") return Mlp::Swiglu;
  return std::nullopt;
}

}  // namespace zf::memory
