// SPDX-License-Identifier: MIT
// The data-parallel world size: one rule, read by the values contract, the validator, the
// companion planner, the manifest and import. DeepSpeed starts one rank per GPU, so the world
// is gpus_per_node x nodes unless `world_size` says otherwise; each place used to work this
// out itself, and two of them disagreed about a missing `nodes`.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>

namespace zf::deepspeed {

/// gpus_per_node x nodes, or nullopt when the product does not fit in 64 bits (the caller
/// reports that at the value's pointer; no cluster has that many GPUs).
std::optional<std::int64_t> gpu_count(std::int64_t gpus_per_node, std::int64_t nodes);

/// The world size `values` describe: `world_size` when it is an integer; else gpus_per_node x
/// nodes, a missing one counting as 1 (a tier without `nodes` is one node), when at least one
/// of them is given and every given one is an integer. nullopt otherwise (nothing said, a
/// value of the wrong type: the values contract reports it) or past 64 bits.
std::optional<std::int64_t> world_size_of(const nlohmann::ordered_json& values);

}  // namespace zf::deepspeed
