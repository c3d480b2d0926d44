// SPDX-License-Identifier: MIT
// The memory estimator's arithmetic: DeepSpeed's own ZeRO-2/ZeRO-3 model-state estimators,
// the ZeRO paper's per-GPU model states, the measured activation and optimizer-step model,
// and the peak they add up to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "activations.hpp"
#include "model_shape.hpp"

namespace zf::memory {

/// Where optimizer states or parameters live: `none` (GPU), `cpu`, `nvme`.
enum class Offload { None, Cpu, Nvme };
/// The optimizer decides K, the bytes of optimizer state per parameter.
enum class Optimizer { Adam, Sgd };

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

/// The fraction of each GPU's memory a verdict leaves free by default (docs/estimator.md,
/// "The safety margin"): 5%, more than the largest underestimate of any recorded step with
/// sdpa attention (3.9%, tests/plugins/memory/gpu_memory/; GpuMemoryTest checks it).
inline constexpr double kDefaultGpuMemoryMargin = 0.05;

/// Everything one estimate needs. Defaults are DeepSpeed's and the values contract's
/// (docs/values.md).
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
  Attention attention = Attention::Sdpa;  ///< what transformers uses by default
  Loss loss = Loss::Hf;
  bool zero_init = true;                  ///< DeepSpeed's estimator input
  double additional_buffer_factor = 1.5;  ///< DeepSpeed's estimator input
  // What the config sets (DeepSpeed's defaults), in elements.
  std::int64_t reduce_bucket_size = 500000000;
  std::int64_t allgather_bucket_size = 500000000;
  std::int64_t stage3_prefetch_bucket_size = 50000000;
  std::int64_t stage3_max_live_parameters = 1000000000;
  /// The allocator's fragmentation as a fraction of the activation peak; unset: the
  /// measured default_headroom(checkpointing).
  std::optional<double> headroom;
  double cuda_context_gib = 0.8;         ///< memory outside PyTorch's allocator, per GPU
  std::optional<double> gpu_memory_gib;  ///< per GPU; no verdict without it
  /// The fraction of gpu_memory_gib left free for what the estimate cannot see (0 <= m < 1):
  /// the estimate fits when its GPU total is within gpu_memory_gib x (1 - m).
  double gpu_memory_margin = kDefaultGpuMemoryMargin;
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
  // Activations (activations.hpp): kept by the layers, the loss's peak, one layer's
  // backward working set, and the peak of the forward and backward passes.
  std::int64_t activations_layers = 0;
  std::int64_t activations_logits = 0;
  std::int64_t activations_backward = 0;
  std::int64_t activations_gpu = 0;
  // The optimizer step: the fp32 copy of the gradients it steps on and the optimizer's
  // temporaries; plus the activation memory it cannot reuse (see estimate()).
  std::int64_t optimizer_step = 0;
  std::int64_t step_unreused = 0;
  bool step_is_peak = false;  ///< the optimizer step, not forward/backward, is the peak
  // What the config's buckets hold.
  std::int64_t stage3_working_set = 0;
  std::int64_t comm_buffers = 0;
  double headroom_fraction = 0;
  std::int64_t headroom = 0;  ///< the allocator's fragmentation during forward/backward
  std::int64_t cuda_context = 0;
  std::int64_t total_gpu = 0;
  std::int64_t total_cpu = 0;
  std::optional<DeepSpeedEstimate> deepspeed;  ///< stages 2 and 3 only
  std::optional<bool> gpu_fits;
  std::optional<bool> cpu_fits;
  std::int64_t gpu_capacity = 0;  ///< the card's memory, as gpu_memory_gib says
  std::int64_t gpu_usable = 0;    ///< gpu_capacity less the safety margin: what gpu_fits uses
  double gpu_margin = 0;          ///< the margin's fraction
  std::int64_t cpu_capacity = 0;
};

/// Checks `inputs` (positive sizes, offload only where DeepSpeed honours it) and estimates.
/// Throws std::invalid_argument with a one-line message on bad inputs.
Estimate estimate(const Inputs& inputs);

/// "23.98 GiB less the 5% safety margin" (the usable GPU memory's origin), or "" without a
/// margin or a capacity.
std::string describe_margin(const Estimate& estimate);

const char* to_string(Offload offload);
const char* to_string(Optimizer optimizer);

/// The inverses of to_string: the value `text` names, or nullopt (the CLI and the values
/// hook both read these names).
std::optional<Offload> offload_from_string(std::string_view text);

}  // namespace zf::memory
