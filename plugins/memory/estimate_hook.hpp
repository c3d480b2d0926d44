// SPDX-License-Identifier: MIT
// The memory plugin's estimate record: with the plugin option `estimate` (a model), every
// config that auto-fit does not fit is estimated as its values stand, for the manifest and the
// family report, and nothing about the config changes.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "model_presets.hpp"

namespace zf::memory {

/// The keys the `estimate` option takes: the model keys of `auto_fit`.
inline constexpr const char* kEstimateKeys[] = {
    "model", "seq_len",  "activation_checkpointing", "attention",
    "loss",  "headroom", "cuda_context_gib"};

/// Estimates one config's values (`input` is the values hook's input) with the model that
/// `option` (the plugin's `estimate` option) names, at the config's own `stage`, offloads,
/// `micro_batch_size`, precision and tier. Returns {"manifest": {"estimate": RECORD}}, RECORD
/// being what `zeroforge estimate --format json` prints for the same inputs (its "suggestion",
/// "step" and inputs.gradient_accumulation_steps aside); when the config's values cannot be
/// estimated (a value of the wrong type, offload where DeepSpeed ignores it) RECORD is {"skipped":
/// "why"} instead, and the values contract reports what is wrong with them. Throws
/// std::invalid_argument naming `estimate.KEY` for a bad option.
nlohmann::ordered_json estimate_values(const nlohmann::ordered_json& input,
                                       const nlohmann::ordered_json& option,
                                       const std::string& data_dir, const FileReader& read);

}  // namespace zf::memory
