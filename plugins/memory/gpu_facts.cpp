// SPDX-License-Identifier: MIT
// The table of known GPUs. Every figure is the vendor's datasheet figure; dense Tensor Core
// rates are half the "with sparsity" figure the Ampere and Hopper datasheets print, as their
// footnotes say; link figures are halved from the datasheets' bidirectional totals.
#include "gpu_facts.hpp"

#include <array>
#include <cctype>

namespace zf::memory {
namespace {

constexpr std::array<GpuFacts, 6> kGpus = {{
    // Tesla V100 SXM2: "Tensor Performance 125 TFLOPS", "Single-Precision 15.7 TFLOPS",
    // "Memory Bandwidth 900 GB/s", "Interconnect Bandwidth NVLink 300 GB/s"; PCIe Gen3 x16
    // (32 GB/s both ways). No bf16.
    {"V100-SXM2-32GB", 0, 125, 15.7, 900, 150, 16, "NVIDIA Tesla V100 GPU datasheet (SXM2)"},
    // A100 40GB SXM: "BFLOAT16 Tensor Core 312 | 624 TFLOPS*", FP32 19.5, 1,555 GB/s,
    // "NVLink: 600 GB/s, PCIe Gen4: 64 GB/s".
    {"A100-SXM4-40GB", 312, 312, 19.5, 1555, 300, 32,
     "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM)"},
    // A100 80GB SXM: the same compute and links, 2,039 GB/s.
    {"A100-SXM4-80GB", 312, 312, 19.5, 2039, 300, 32,
     "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM)"},
    // H100 SXM: "BF16 Tensor Core 1,979 teraFLOPS*" (* with sparsity), FP32 67, 3.35 TB/s,
    // "NVLink: 900GB/s PCIe Gen5: 128GB/s".
    {"H100-SXM5-80GB", 989.5, 989.5, 67, 3350, 450, 64,
     "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM)"},
    // H200 SXM: the H100's compute and links, 4.8 TB/s.
    {"H200-SXM-141GB", 989.5, 989.5, 67, 4800, 450, 64,
     "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)"},
    // L40S: "BF16 Tensor Core 362.05 | 733* TFLOPS", FP32 91.6, 864 GB/s,
    // "PCIe Gen4 x16: 64GB/s bidirectional"; no NVLink.
    {"L40S", 362.05, 362.05, 91.6, 864, 0, 32, "NVIDIA L40S GPU datasheet"},
}};

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::span<const GpuFacts> known_gpus() { return kGpus; }

const GpuFacts* find_gpu(std::string_view name) {
  for (const GpuFacts& gpu : kGpus) {
    if (same_name(gpu.name, name)) return &gpu;
  }
  return nullptr;
}

std::string known_gpu_names() {
  std::string out;
  for (const GpuFacts& gpu : kGpus) out += (out.empty() ? "" : ", ") + std::string(gpu.name);
  return out;
}

double peak_tflops(const GpuFacts& gpu, Precision precision) {
  switch (precision) {
    case Precision::Bf16:
      return gpu.bf16_tflops > 0 ? gpu.bf16_tflops : gpu.fp32_tflops;
    case Precision::Fp16:
      return gpu.fp16_tflops;
    case Precision::Fp32:
      return gpu.fp32_tflops;
  }
  return gpu.fp32_tflops;
}

}  // namespace zf::memory
