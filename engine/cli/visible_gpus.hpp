// SPDX-License-Identifier: MIT
// CUDA_VISIBLE_DEVICES as CUDA reads it, applied to the GPUs nvidia-smi lists (nvidia-smi
// itself ignores the variable): which GPUs a CUDA program started here would see.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_query.hpp"
#include "zeroforge/diagnostic.hpp"

namespace zf::cli {

/// What a job started with CUDA_VISIBLE_DEVICES would see.
struct VisibleGpus {
  std::vector<Gpu> gpus;  ///< in the order CUDA enumerates them
  /// Warnings (`probe.cuda-visible-ignored`, `probe.cuda-visible-order`; docs/cli.md), each
  /// printed `zeroforge: warning: ...`.
  std::vector<Diagnostic> warnings;
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

/// Hundredths of a GiB in `amount` of which `units_per_gib` make a GiB, rounded down: a tier
/// never claims more memory than the machine has.
std::int64_t centi_gib(std::int64_t amount, std::int64_t units_per_gib);

/// `centi` hundredths as a decimal with two places: 8000 -> "80.00".
std::string centi_text(std::int64_t centi);

/// `count` GPUs of one kind as probe names them: `8 x NVIDIA A100-SXM4-80GB (81920 MiB = 80.00
/// GiB)` (in the summary, and in `probe.mixed-gpus` for each kind).
std::string describe_gpu_kind(const std::string& name, std::int64_t memory_mib, int count);

/// When `gpus` (those a job sees) are not all alike in name and memory: the warning
/// `probe.mixed-gpus`, naming each kind in order of first appearance and the smallest memory,
/// which the tier takes for every GPU. `named_by_variable`: CUDA_VISIBLE_DEVICES chose them.
std::optional<Diagnostic> mixed_gpus_warning(const std::vector<Gpu>& gpus, bool named_by_variable);

}  // namespace zf::cli
