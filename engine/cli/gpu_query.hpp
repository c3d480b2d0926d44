// SPDX-License-Identifier: MIT
// Asking nvidia-smi which GPUs this machine has: finding it on PATH, running it (bounded in
// time and output), and reading its
// `--query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits` lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zf::cli {

/// One GPU as nvidia-smi reports it.
struct Gpu {
  int index = 0;                ///< nvidia-smi's index (PCI bus order)
  std::string uuid;             ///< e.g. "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"
  std::string name;             ///< e.g. "NVIDIA H100 80GB HBM3"
  std::int64_t memory_mib = 0;  ///< memory.total, MiB (what the card reports, not its label)
};

/// The most memory.total probe believes of one GPU, in MiB (16 TiB; the largest GPUs have
/// about 0.3 TiB): a larger figure is a broken nvidia-smi, not a GPU.
inline constexpr std::int64_t kMaxGpuMemoryMib = std::int64_t{1} << 24;
/// The most nvidia-smi may print on stdout (a line per GPU is well under 200 bytes).
inline constexpr std::size_t kMaxGpuQueryOutput = std::size_t{1} << 20;

/// Parses nvidia-smi's CSV (one `INDEX, UUID, NAME, MIB` line per GPU; blank lines ignored).
/// Throws zf::Error (Usage) naming the line and what was expected when a line is malformed or
/// its memory is out of range (1 to kMaxGpuMemoryMib), or when there is no GPU at all.
std::vector<Gpu> parse_gpu_list(std::string_view csv);

/// Runs the first `nvidia-smi` on PATH and parses its answer. Throws zf::Error (Usage) with
/// the fix when there is none on PATH, when it fails (its first line of stderr, else stdout),
/// when it does not finish within `timeout` or prints more than kMaxGpuQueryOutput bytes (it
/// and whatever it started are killed then), and as parse_gpu_list does.
std::vector<Gpu> query_gpus(std::chrono::seconds timeout);

}  // namespace zf::cli
