// SPDX-License-Identifier: MIT
// The memory estimate record (plugins/sdk zeroforge/memory_estimate.hpp, docs/plugins.md) read
// from a config's manifest entry: the only plugin data the report reads, found by its key
// whatever the plugin that published it is called.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report_view.hpp"

namespace zf::report {

/// Fills `config.memory`, `config.auto_fit` and `config.no_memory` from the
/// `plugins.NAME.memory_estimate` record of `entry` (a manifest entry at JSON pointer `base`,
/// `/configs/3`). No record: `no_memory` says that nothing named a model. Throws zf::Error
/// (Plugin, naming `manifest.json`, the pointer and the plugin) for a record that does not
/// follow the schema, and for a second record (two estimators for one config).
void read_estimate_record(const nlohmann::ordered_json& entry, const std::string& base,
                          Config& config);

}  // namespace zf::report
