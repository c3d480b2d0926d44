// SPDX-License-Identifier: MIT
// Asking nvidia-smi which GPUs this machine has: finding it on PATH, running it, and reading
// its `--query-gpu=name,memory.total --format=csv,noheader,nounits` lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zf::cli {

/// One GPU as nvidia-smi reports it.
struct Gpu {
  std::string name;             ///< e.g. "NVIDIA H100 80GB HBM3"
  std::int64_t memory_mib = 0;  ///< memory.total, MiB (what the card reports, not its label)
};

/// Parses nvidia-smi's CSV (one `NAME, MIB` line per GPU; blank lines ignored). Throws
/// zf::Error (Usage) naming the line and what was expected when a line is malformed, or when
/// there is no GPU at all.
std::vector<Gpu> parse_gpu_list(std::string_view csv);

/// Runs the first `nvidia-smi` on PATH and parses its answer. Throws zf::Error (Usage) with
/// the fix when there is none on PATH, when it fails (its first line of stderr, else stdout),
/// when it hangs for a minute, and as parse_gpu_list does.
std::vector<Gpu> query_gpus();

}  // namespace zf::cli
