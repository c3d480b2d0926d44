// SPDX-License-Identifier: MIT
// What tier auto-fit may choose: the one list (docs/estimator.md, "What auto-fit may choose",
// mirrors it and a test keeps them equal). Every other value is the fit's input.
#pragma once

#include <array>
#include <string_view>

namespace zf::memory {

/// A value auto-fit sets when no layer pins it (a family's values, a tier's family values, a
/// variant, a values file, --set, an earlier plugin or the template pin it; template
/// defaults and tier files do not).
struct FitChoice {
  std::string_view value;  ///< the value's name: `stage`
  std::string_view space;  ///< the auto_fit keys that say what it may choose
  std::string_view how;    ///< how the fit chooses it, in a few words
};

/// The choices, in the order the fit makes them.
inline constexpr std::array<FitChoice, 5> kFitChoices = {{
    {"stage", "stages", "the lowest rung of the ladder that fits (below)"},
    {"offload_optimizer", "offload_optimizer", "none, then cpu, then nvme, at the highest stage"},
    {"offload_param", "offload_param", "none, then cpu, then nvme, at stage 3"},
    {"micro_batch_size", "min_micro_batch_size, max_micro_batch_size",
     "the largest that fits and divides global_batch_size / world_size"},
    {"gradient_accumulation", "",
     "global_batch_size / (micro_batch_size x world_size), with a global batch only"},
}};

}  // namespace zf::memory
