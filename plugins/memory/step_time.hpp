// SPDX-License-Identifier: MIT
// The step-time model: how long one optimizer step of a ZeRO config takes on a tier, and its
// parts (compute, communication, offload, the optimizer step); docs/estimator.md, "Step time".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "estimator.hpp"
#include "gpu_facts.hpp"

namespace zf::memory {

/// The model's fitted constants (docs/estimator.md, "Step time", "The constants", says where
/// each is from). The defaults are fitted by tests/data/step-time/fit.py on the 'fit' points of
/// tests/data/step-time/published.json only; `estimate --step-constant KEY=VALUE` overrides one
/// (the fit does, to search them through the real model).
struct StepConstants {
  /// The matmul efficiency (fraction of the dense peak) is a power of the per-GPU work
  /// w = micro batch x seq_len x hidden: efficiency_at_ref x (w / kMatmulReferenceWork) ^
  /// work_exponent, at most efficiency_max. Small micro batches and narrow layers run far
  /// below the peak (kernel launches, memory-bound elementwise work), wide ones near it.
  /// Fitted (tests/data/step-time/fit.py, 7 fit points; docs/estimator.md gives each error).
  double matmul_efficiency_at_ref = 0.245;
  double matmul_work_exponent = 0.37;
  double matmul_efficiency_max = 0.59;
  /// The fraction of a link's bandwidth that a ring collective's bus bandwidth reaches
  /// (assumed, not fitted).
  double collective_efficiency = 0.8;
  /// The fraction of communication that runs behind compute (overlap_comm, prefetching),
  /// never more than the compute it hides behind (assumed, not fitted).
  double comm_overlap = 0.5;
  /// DeepSpeed's CPU Adam: parameters one CPU core steps per second. Fitted with the above; the
  /// ZeRO-Offload tutorial's log (optimizer_step 6.2-6.5 s for 10 B parameters on a DGX-2's 48
  /// cores) says 3.3e7 directly.
  double cpu_adam_params_per_core_second = 3.5e7;
};
/// The work w at which StepConstants::matmul_efficiency_at_ref holds: 1e7 tokens x hidden (a
/// scale for the fit, not a fitted constant: about 2,500 tokens of a 4,096-wide model).
inline constexpr double kMatmulReferenceWork = 1.0e7;

/// Sets `key` (a StepConstants field name) of `constants` from `value`; throws
/// std::invalid_argument for an unknown key or a value that is not positive (or above 1 for a
/// fraction).
void set_step_constant(StepConstants& constants, const std::string& key, double value);

/// The fraction of the dense peak the matmuls of one micro batch of `micro_batch_size`
/// sequences of `shape` reach under `constants`.
double matmul_efficiency(const ModelShape& shape, std::int64_t micro_batch_size,
                         const StepConstants& constants);

/// What a tier (or the options) says about the hardware; what it leaves out is filled from the
/// GPU table and the defaults of docs/estimator.md.
struct HardwareGiven {
  std::optional<std::string> gpu;         ///< a name of known_gpus()
  std::optional<double> gpu_tflops;       ///< dense peak for the precision, per GPU
  std::optional<double> intra_node_gbs;   ///< per GPU, one direction
  std::optional<double> inter_node_gbs;   ///< the whole node's network, one direction
  std::optional<double> pcie_gbs;         ///< per GPU, one direction
  std::optional<std::int64_t> cpu_cores;  ///< per node
  std::optional<double> nvme_gbs;         ///< per node
  StepConstants constants;                ///< the fitted ones unless overridden
};

/// The GPU assumed when a tier names none: the shipped medium and large tiers' H100.
inline constexpr const char* kDefaultGpu = "H100-SXM5-80GB";
/// A node's network when a tier states none: 8 x 200 Gb/s HDR InfiniBand (a DGX A100).
inline constexpr double kDefaultInterNodeGbs = 200;
/// CPUs per node when a tier states none (the shipped small tier's 32).
inline constexpr std::int64_t kDefaultCpuCores = 32;
/// NVMe bandwidth per node when a tier states none: one PCIe Gen4 x4 drive.
inline constexpr double kDefaultNvmeGbs = 7;

/// The hardware the model computes with; `assumed` names each fact that came from a default
/// or the GPU table rather than from the tier or an option.
struct Hardware {
  std::string gpu;
  double gpu_tflops = 0;
  double memory_gbs = 0;
  double intra_node_gbs = 0;
  double inter_node_gbs = 0;
  double pcie_gbs = 0;
  std::int64_t cpu_cores = 0;
  double nvme_gbs = 0;
  StepConstants constants;
  std::vector<std::string> assumed;
};

/// Fills what `given` leaves out. Throws std::invalid_argument for an unknown GPU name
/// (`gpu: unknown GPU 'X' (known: ...)`) or a fact that is not positive.
Hardware resolve_hardware(const HardwareGiven& given, Precision precision);

/// FLOPs one GPU executes in the forward and backward passes of one micro batch (Megatron's
/// count, Narayanan et al. 2021, generalised to GQA and SwiGLU): 3 x (matmuls + attention
/// scores + LM head), plus the recomputed forward of the layers under full checkpointing or
/// the recomputed attention scores under selective checkpointing.
double forward_backward_flops(const ModelShape& shape, std::int64_t micro_batch_size,
                              Checkpointing checkpointing);

/// ZeRO's bytes per GPU for one step, split by when they are paid.
struct CommVolume {
  double per_micro_step = 0;  ///< each micro step: stage 2's reduce-scatter, stage 3's all
  double at_boundary = 0;     ///< once, in the last backward: stage 0-1's gradient reduction
  double after_step = 0;      ///< once, after the optimizer: stage 1-2's parameter all-gather
};
CommVolume comm_volume(int stage, std::int64_t params, std::int64_t world_size,
                       Precision precision);

/// The bandwidth (GB/s) one GPU's ring traffic gets: the intra-node link on one node, else the
/// slower of it and the node's network (a ring crosses each node's boundary once, and NCCL runs
/// one ring per NIC, so every GPU's stream leaves through the whole network, not a share of it);
/// times the collective efficiency.
double ring_bandwidth_gbs(const Hardware& hw, std::int64_t nodes);

/// One step's time, seconds, and its parts as they add up (communication is what overlap
/// leaves exposed).
struct StepTime {
  double seconds = 0;
  double compute = 0;
  double communication = 0;
  double communication_total = 0;  ///< before overlap
  double offload = 0;              ///< PCIe and NVMe transfers
  double optimizer = 0;
  double flops_per_gpu = 0;  ///< executed per step, recomputation included
  double tokens_per_second = 0;
  double samples_per_second = 0;
  double tflops_per_gpu = 0;
};

/// The step of `inputs` (which must have a shape) with `gradient_accumulation` micro steps on
/// `hw`. Throws std::invalid_argument without a shape or with accumulation < 1.
StepTime step_time(const Inputs& inputs, std::int64_t gradient_accumulation, const Hardware& hw);

}  // namespace zf::memory
