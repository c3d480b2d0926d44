// SPDX-License-Identifier: MIT
// The fit assumptions record, header only: what a plugin that sizes configs (an auto-fit)
// assumed about the training run, which `generate --companions` reads back from the manifest
// and writes into the launch (Trainer arguments, environment variables). docs/plugins.md,
// "The fit assumptions record", gives its JSON shape and an example.
//
//     // in a values hook's answer: the record goes into the config's manifest entry
//     return {{"values", chosen}, {"manifest", {{zf::sdk::kFitAssumptionsKey, record}}}};
#pragma once

#include <string_view>

namespace zf::sdk {

/// The key of the record in a plugin's manifest annotation: whatever a plugin is called, the
/// companions read `plugins.NAME.fit_assumptions` of each config's manifest entry, and only
/// that; at most one plugin may publish it for a config.
inline constexpr std::string_view kFitAssumptionsKey = "fit_assumptions";

/// The record's `schema_version`. A new field, or a changed meaning of one, is a new version;
/// zeroforge reads the versions it knows and refuses the others, naming the pointer.
inline constexpr int kFitAssumptionsVersion = 1;

/// The values of `activation_checkpointing`: which activations the run recomputes.
inline constexpr std::string_view kFitCheckpointing[] = {
    "none",       ///< none: every layer's activations stay
    "selective",  ///< only the attention core (the Hugging Face Trainer cannot do it)
    "full",       ///< every layer (the Trainer's gradient_checkpointing)
};

/// The values of `attention`: the attention kernel the run uses.
inline constexpr std::string_view kFitAttention[] = {"eager", "sdpa", "flash"};

/// The values of `loss`: `hf` holds the fp32 logits, `fused` never does (Liger's kernel).
inline constexpr std::string_view kFitLoss[] = {"hf", "fused"};

}  // namespace zf::sdk
