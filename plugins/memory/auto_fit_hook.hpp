// SPDX-License-Identifier: MIT
// The memory plugin's values hook: reads `auto_fit` and the tier facts from a config's
// values, runs auto_fit.hpp's search and answers with values, a manifest note or a finding.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "model_presets.hpp"

namespace zf::memory {

/// The values hook's work, free of the ABI: `input` is the hook input ({"values",
/// "origins", "context"}), `data_dir` where presets/models/ lives. Returns null when the
/// values have no `auto_fit` (or it is null), else {"values", "manifest"} or, when nothing
/// fits, {"findings": [...]}. Throws std::invalid_argument naming the JSON pointer of bad
/// input (unknown keys, bad sizes, unknown model preset, a global batch that no micro batch
/// and accumulation keep).
nlohmann::ordered_json auto_fit_values(const nlohmann::ordered_json& input,
                                       const std::string& data_dir, const FileReader& read);

}  // namespace zf::memory
