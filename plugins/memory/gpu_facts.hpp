// SPDX-License-Identifier: MIT
// The GPUs the step-time model knows by name: each one's dense peak per precision, memory
// bandwidth and links, as its vendor datasheet states them (docs/estimator.md lists the sources).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "activations.hpp"

namespace zf::memory {

/// One GPU as its datasheet gives it. Bandwidths are GB/s (10^9 bytes) in one direction,
/// per GPU: NVIDIA quotes NVLink and PCIe both ways at once ("600 GB/s"), which is twice this.
struct GpuFacts {
  std::string_view name;    ///< "A100-SXM4-80GB", as a tier's `gpu` names it
  double bf16_tflops = 0;   ///< dense Tensor Core peak (the datasheet's "with sparsity" / 2)
  double fp16_tflops = 0;   ///< the same for fp16
  double fp32_tflops = 0;   ///< plain FP32, not TF32: PyTorch's default for fp32 matmuls
  double memory_gbs = 0;    ///< HBM/GDDR bandwidth (the GPU optimizer step is bound by it)
  double nvlink_gbs = 0;    ///< NVLink per GPU, one direction; 0: none (PCIe between GPUs)
  double pcie_gbs = 0;      ///< the host link, one direction
  std::string_view source;  ///< the datasheet the figures are from
};

/// Every known GPU, in a fixed order.
std::span<const GpuFacts> known_gpus();

/// The GPU named `name` (exact, case-insensitive), or nullptr.
const GpuFacts* find_gpu(std::string_view name);

/// "V100-SXM2-32GB, A100-SXM4-40GB, ...": the known names, for messages.
std::string known_gpu_names();

/// The dense peak of `gpu` for `precision` (bf16 on a GPU without bf16 Tensor Cores is the
/// fp32 rate: V100 has none).
double peak_tflops(const GpuFacts& gpu, Precision precision);

}  // namespace zf::memory
