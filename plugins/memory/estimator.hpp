// SPDX-License-Identifier: MIT
// The memory estimator's arithmetic: DeepSpeed's own ZeRO-2/ZeRO-3 model-state estimators,
// the ZeRO paper's per-GPU model states, Korthikanti et al.'s activations, and their sum.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zf::memory {

/// Where optimizer states or parameters live: `none` (GPU), `cpu`, `nvme`.
enum class Offload { None, Cpu, Nvme };
/// Weight/gradient precision: 16-bit mixed precision or plain fp32.
enum class Precision { Fp32, Fp16, Bf16 };
/// The optimizer decides K, the bytes of optimizer state per parameter.
enum class Optimizer { Adam, Sgd };
/// Activation checkpointing as Korthikanti et al. define it: none, selective (attention
/// core recomputed), full (only each layer's input kept).
enum class Checkpointing { None, Selective, Full };

/// DeepSpeed's result for the same inputs: (cpu, gpu) bytes as its estimator returns them.
struct DeepSpeedEstimate {
  std::int64_t cpu_bytes = 0;
  std::int64_t gpu_bytes = 0;
};

/// deepspeed/runtime/zero/stage_1_and_2.py `estimate_zero2_model_states_mem_needs` (the
/// formula since v0.14.3), with the same integer and float arithmetic.
DeepSpeedEstimate deepspeed_zero2(std::int64_t total_params, std::int64_t gpus_per_node,
                                  std::int64_t nodes, bool cpu_offload,
                                  double additional_buffer_factor);

/// deepspeed/runtime/zero/stage3.py `estimate_zero3_model_states_mem_needs`, same arithmetic.
DeepSpeedEstimate deepspeed_zero3(std::int64_t total_params, std::int64_t largest_layer_params,
                                  std::int64_t gpus_per_node, std::int64_t nodes, bool cpu_offload,
                                  bool cpu_offload_params, bool zero_init,
                                  double additional_buffer_factor);

/// A transformer's shape (what Korthikanti et al. need). All positive.
struct ModelShape {
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;
};

/// Ψ of a GPT-style decoder from its shape: L(12h² + 13h) + Vh + sh (Narayanan et al. 2021).
std::int64_t params_from_shape(const ModelShape& shape);
/// The largest single module: the embedding (Vh) or one MLP projection (4h² + 4h).
std::int64_t largest_layer_from_shape(const ModelShape& shape);

/// Everything one estimate needs. Defaults are DeepSpeed's and DESIGN.md's.
struct Inputs {
  std::int64_t params = 0;                ///< Ψ, total parameters
  std::int64_t largest_layer_params = 0;  ///< 0: Ψ/32 (see docs/estimator.md)
  std::optional<ModelShape> shape;        ///< activations are 0 without a shape
  int stage = 2;
  Offload offload_optimizer = Offload::None;
  Offload offload_param = Offload::None;
  Precision precision = Precision::Bf16;
  Optimizer optimizer = Optimizer::Adam;
  std::int64_t gpus_per_node = 1;
  std::int64_t nodes = 1;
  std::int64_t micro_batch_size = 1;
  Checkpointing checkpointing = Checkpointing::None;
  bool zero_init = true;                  ///< DeepSpeed's estimator input
  double additional_buffer_factor = 1.5;  ///< DeepSpeed's estimator input
  // What the config sets (DeepSpeed's defaults), in elements.
  std::int64_t reduce_bucket_size = 500000000;
  std::int64_t allgather_bucket_size = 500000000;
  std::int64_t stage3_prefetch_bucket_size = 50000000;
  std::int64_t stage3_max_live_parameters = 1000000000;
  double headroom = 0.10;                ///< fraction added for fragmentation
  double cuda_context_gib = 0.5;         ///< fixed per-GPU CUDA context and kernels
  std::optional<double> gpu_memory_gib;  ///< per GPU; no verdict without it
  std::optional<double> cpu_memory_gib;  ///< per node
};

/// One estimate, bytes. GPU figures are per GPU; CPU and NVMe figures are per node.
struct Estimate {
  std::int64_t params = 0;
  std::int64_t largest_layer_params = 0;
  std::int64_t world_size = 0;
  // Model states, ZeRO paper (Rajbhandari et al. 2020; Ren et al. 2021 for offload).
  std::int64_t model_states_gpu = 0;
  std::int64_t model_states_cpu = 0;
  std::int64_t model_states_nvme = 0;
  int optimizer_k = 12;
  // Activations (Korthikanti et al. 2022) and the output layer's logits.
  std::int64_t activations_layers = 0;
  std::int64_t activations_logits = 0;
  std::int64_t activations_gpu = 0;
  // What the config's buckets hold.
  std::int64_t stage3_working_set = 0;
  std::int64_t comm_buffers = 0;
  std::int64_t headroom = 0;
  std::int64_t cuda_context = 0;
  std::int64_t total_gpu = 0;
  std::int64_t total_cpu = 0;
  std::optional<DeepSpeedEstimate> deepspeed;  ///< stages 2 and 3 only
  std::optional<bool> gpu_fits;
  std::optional<bool> cpu_fits;
  std::int64_t gpu_capacity = 0;
  std::int64_t cpu_capacity = 0;
};

/// Checks `inputs` (positive sizes, offload only where DeepSpeed honours it) and estimates.
/// Throws std::invalid_argument with a one-line message on bad inputs.
Estimate estimate(const Inputs& inputs);

/// Activation bytes per GPU for one micro batch: {per-layer total, logits}.
std::pair<std::int64_t, std::int64_t> activation_bytes(const ModelShape& shape,
                                                       std::int64_t micro_batch,
                                                       Checkpointing checkpointing,
                                                       Precision precision);

const char* to_string(Offload offload);
const char* to_string(Precision precision);
const char* to_string(Optimizer optimizer);
const char* to_string(Checkpointing checkpointing);

/// The inverses of to_string: the value `text` names, or nullopt (the CLI and the values
/// hook both read these names).
std::optional<Offload> offload_from_string(std::string_view text);
std::optional<Precision> precision_from_string(std::string_view text);
std::optional<Checkpointing> checkpointing_from_string(std::string_view text);

}  // namespace zf::memory
