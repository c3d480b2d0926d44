// SPDX-License-Identifier: MIT
// `zeroforge estimate --tier NAME|FILE`: the cluster facts a tier file states, read the way
// a family's tiers are found (presets/tiers/NAME.json, or a path), for the estimate's verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model_presets.hpp"

namespace zf::memory {

/// What a tier says about the cluster; a key the tier leaves out stays empty. Training
/// values a tier may also hold (micro_batch_size, offload_optimizer, ...) are not read: the
/// estimate takes those from its own options.
struct TierFacts {
  std::string name;  ///< the tier's file stem: `small`, `mybox`
  std::string file;  ///< the file it was read from
  std::optional<std::int64_t> gpus_per_node, nodes;
  std::optional<double> gpu_memory_gib, cpu_memory_gib, gpu_memory_margin;
  std::optional<std::string> nvme_path;  ///< NVMe offload is possible when set (not empty)
  // The step-time model's hardware (docs/tiers.md): GPU name, rates and CPUs.
  std::optional<std::string> gpu;
  std::optional<double> gpu_tflops, intra_node_gbs, inter_node_gbs, pcie_gbs, nvme_gbs;
  std::optional<std::int64_t> cpu_cores;
};

/// The file of a tier name or path; throws std::exception with a one-line message.
using TierFinder = std::function<std::string(const std::string& name_or_path)>;

/// Reads `name_or_path`, found by `find`: the host's zf_host::find_tier, the tier search path
/// every command uses (./tiers, ZEROFORGE_TIER_PATH, the shipped tiers, docs/tiers.md). With
/// no `find` (a host without the service): a path when it holds a `/` or ends in `.json`, else
/// `DATA_DIR/presets/tiers/NAME.json`. Throws std::invalid_argument with one line naming the
/// file and key of a bad value:
/// `tiers/x.json: /gpu_memory_gib: expected a positive number of GiB (at most 1048576), got 0`.
TierFacts load_estimate_tier(const std::string& name_or_path, const std::string& data_dir,
                             const FileReader& read, const TierFinder& find = {});

}  // namespace zf::memory
