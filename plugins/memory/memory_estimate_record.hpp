// SPDX-License-Identifier: MIT
// The memory plugin's estimates published through the SDK's memory estimate record
// (zeroforge/memory_estimate.hpp, docs/plugins.md): what the family report draws from.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace zf::memory {

/// The `memory_estimate` record of `estimate` (the plugin's `estimate` record: what
/// `zeroforge estimate --format json` prints, with `model.name`) and, for a config auto-fit
/// chose, of `auto_fit` (its `auto_fit` record; nullptr for none). Pure: reads the plugin's
/// own records, which it wrote just before, so a missing key is a bug (nlohmann's exception).
nlohmann::ordered_json memory_estimate_record(const nlohmann::ordered_json& estimate,
                                              const nlohmann::ordered_json* auto_fit);

/// The record of a config the plugin could not estimate: `why` says what is wrong.
nlohmann::ordered_json skipped_record(const std::string& why);

}  // namespace zf::memory
