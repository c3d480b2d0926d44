// SPDX-License-Identifier: MIT
// The fit assumptions record (plugins/sdk zeroforge/fit_assumptions.hpp, docs/plugins.md) read
// from a config's plugin annotations: the only plugin data `generate --companions` reads, found
// by its key whatever the plugin that published it is called.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace zf::pipeline {

/// What a fit assumed about the training run, as one plugin's record says it.
struct FitAssumptions {
  std::string plugin;                    ///< the plugin that published the record: `memory`
  std::string activation_checkpointing;  ///< none, selective or full
  std::string attention;                 ///< eager, sdpa or flash
  std::string loss;                      ///< hf or fused
  std::int64_t seq_len = 0;              ///< >= 1
};

/// The `fit_assumptions` record among `plugins` (a manifest entry's annotations, plugin name to
/// annotation), or nullopt when no plugin published one. Throws zf::Error (Plugin, located at
/// `plugin NAME` and the pointer inside its annotation, `/fit_assumptions/seq_len`) for a record
/// outside the schema and for a second plugin's record (two fits for one config).
std::optional<FitAssumptions> read_fit_assumptions(const nlohmann::ordered_json& plugins);

}  // namespace zf::pipeline
