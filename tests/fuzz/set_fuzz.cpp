// SPDX-License-Identifier: MIT
// Fuzz target: `--set KEY=VALUE` and `--plugin-opt NAME.KEY=VALUE` assignments, applied as a
// layer over other values the way the CLI layers them.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/values.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    zf::LayeredValues values;
    values.apply({zf::LayerKind::Tier, "tier"},
                 {{"stage", 2}, {"zero", {{"stage", 2}, {"buckets", {1, 2}}}}, {"name", "x"}});
    values.apply({zf::LayerKind::Set, "--set"}, zf::parse_set(text));
    values.leaves();
    values.merged().dump();  // as a plugin's input or `explain --json` shows them
    values.origin("/zero/stage");
  } catch (const zf::Error&) {
    // A malformed assignment is a zf::Error; anything else escapes.
  }
  try {
    zf::parse_plugin_option(text);
  } catch (const zf::Error&) {
  }
  return 0;
}
