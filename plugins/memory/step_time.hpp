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

/// The model's efficiency constants (docs/estimator.md, "Step time", says where each is from).
/// The fraction of the dense peak that the transformer's matmuls reach.
inline constexpr double kMatmulEfficiency = 0.5;
/// The fraction of a link's bandwidth that a ring collective's bus bandwidth reaches.
inline constexpr double kCollectiveEfficiency = 0.8;
/// The fraction of communication that runs behind compute (overlap_comm, prefetching),
/// never more than the compute it hides behind.
inline constexpr double kCommOverlap = 0.5;
/// DeepSpeed's CPU Adam: parameters one CPU core steps per second.
inline constexpr double kCpuAdamParamsPerCoreSecond = 1.0e8;

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
/// slower of it and the node's network shared by its GPUs; times kCollectiveEfficiency.
double ring_bandwidth_gbs(const Hardware& hw, std::int64_t gpus_per_node, std::int64_t nodes);

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
