// SPDX-License-Identifier: MIT
// The memory estimate record, header only: the one plugin record zeroforge itself reads back
// from the manifest (the family report draws its charts from it). docs/plugins.md, "Records
// the report reads", gives its JSON shape, units and an example.
//
//     // in a values hook's answer: the record goes into the config's manifest entry
//     return {{"manifest", {{zf::sdk::kMemoryEstimateKey, record}}}};
#pragma once

#include <string_view>

namespace zf::sdk {

/// The key of the record in a plugin's manifest annotation: whatever a plugin is called, the
/// report reads `plugins.NAME.memory_estimate` of each config's manifest entry, and only that.
inline constexpr std::string_view kMemoryEstimateKey = "memory_estimate";

/// The record's `schema_version`, the newest. A new field, or a changed meaning of one, is a
/// new version; zeroforge reads the versions it knows (kMemoryEstimateFirstVersion to this) and
/// refuses the others, naming the pointer. Version 2 adds `fit.objective`, `fit.candidates` and
/// `fit.ranking` (auto-fit's candidates by predicted throughput); a record without them may say
/// 1, and the memory plugin does, so that readers of version 1 still read it.
inline constexpr int kMemoryEstimateVersion = 2;
/// The oldest version zeroforge reads.
inline constexpr int kMemoryEstimateFirstVersion = 1;

/// The names of `fit.ranking[].parts` (version 2): one step's seconds, as the step-time model
/// splits them; they add up to the entry's `seconds` (to rounding).
inline constexpr std::string_view kMemoryEstimateStepParts[] = {"compute", "communication",
                                                                "offload", "optimizer"};

/// The names of `gpu.parts[].part`: what one GPU's peak is made of. A record lists the parts it
/// estimates, each at most once, in the order the report stacks them; their bytes add up to
/// `gpu.total_bytes`.
inline constexpr std::string_view kMemoryEstimateParts[] = {
    "model_states",        ///< weights, gradients and optimizer states on this GPU
    "stage3_working_set",  ///< ZeRO-3's gathered parameters and prefetch bucket
    "comm_buffers",        ///< reduce and all-gather buckets
    "activations",         ///< the activations at the peak of forward and backward
    "fragmentation",       ///< what the caching allocator keeps beyond the activations
    "optimizer_step",      ///< the step's fp32 gradients and temporaries, when it is the peak
    "kept_activations",    ///< activations the step cannot reuse, when it is the peak
    "cuda_context",        ///< memory outside PyTorch's allocator
};

/// The values of `gpu.peak`: which phase of a training step the parts describe.
inline constexpr std::string_view kMemoryEstimatePeaks[] = {"forward_backward", "optimizer_step"};

/// The values of `fit.chosen.offload_optimizer` and `.offload_param` (DeepSpeed's devices).
inline constexpr std::string_view kMemoryEstimateDevices[] = {"none", "cpu", "nvme"};

}  // namespace zf::sdk
