// SPDX-License-Identifier: MIT
// What `zeroforge estimate` suggests when a configuration does not fit: the smallest change
// that does, found the way tier auto-fit searches (docs/estimator.md, "When it does not fit").
#pragma once

#include <optional>
#include <string>

#include "auto_fit.hpp"

namespace zf::memory {

/// A change that fits, or why nothing does.
struct Suggestion {
  bool fits = false;
  std::optional<Rung> rung;                      ///< when the stage or offload changes
  std::optional<std::int64_t> micro_batch_size;  ///< when the micro batch changes
  bool full_checkpointing = false;               ///< when checkpointing must be turned on
  Estimate estimate;                             ///< at the suggested change
  std::string text;                              ///< one line, e.g. "micro batch 2 fits (...)"
};

/// For inputs that do not fit (gpu_memory_gib given): first a smaller micro batch with the
/// same options; else auto-fit's ladder from the given stage up (CPU offload, and NVMe
/// offload when `nvme_available`: the tier has an nvme_path), micro batches from 1 up to the
/// given one; else the same with full activation checkpointing. A missing cpu_memory_gib
/// counts as unlimited, and the text then states the host memory the change needs; NVMe's
/// capacity is not checked (tiers do not state it).
Suggestion suggest(const Inputs& inputs, bool nvme_available);

}  // namespace zf::memory
