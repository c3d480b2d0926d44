// SPDX-License-Identifier: MIT
// CUDA_VISIBLE_DEVICES as CUDA reads it, applied to the GPUs nvidia-smi lists (nvidia-smi
// itself ignores the variable): which GPUs a CUDA program started here would see.
#pragma once

#include <string>
#include <vector>

#include "gpu_query.hpp"

namespace zf::cli {

/// What a job started with CUDA_VISIBLE_DEVICES would see.
struct VisibleGpus {
  std::vector<Gpu> gpus;              ///< in the order CUDA enumerates them
  std::vector<std::string> warnings;  ///< one line each, without "zeroforge: warning: "
  /// When no GPU is left (`gpus` is empty): the error that says so, to follow the warnings.
  std::string none_left;
};

/// Applies `cuda_visible_devices` (the variable's value; nullptr when it is unset: every GPU)
/// to `all`, as CUDA does: a comma-separated list of nvidia-smi indices or `GPU-` UUIDs (a
/// prefix naming one GPU is enough), enumerated in that order; at the first entry that names
/// no GPU of this machine CUDA stops, and so does this (with a warning). When no GPU is left
/// (the variable is empty, or its first entry names none), `none_left` says so. Throws
/// zf::Error (Usage) when one GPU is named twice, and for a MIG instance (`MIG-`), whose
/// memory nvidia-smi's GPU list does not show.
VisibleGpus visible_gpus(const std::vector<Gpu>& all, const char* cuda_visible_devices,
                         const char* cuda_device_order);

}  // namespace zf::cli
