// SPDX-License-Identifier: MIT
// Fuzz target: a fit assumptions record (zeroforge/fit_assumptions.hpp) as any plugin may
// publish it, read as `generate --companions` reads it and turned into the launch's Trainer
// arguments and environment. Refused as zf::Error or read, nothing else.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "generate/fit_assumptions.hpp"
#include "generate/fit_launch.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::ordered_json record = zf::parse_json_text(text, "record.json");
    // Under two plugins' names when the input is an array of two: the second record refused.
    nlohmann::ordered_json plugins = {{"fuzz_fitter", {{"fit_assumptions", record}}}};
    if (record.is_array() && record.size() == 2) {
      plugins = {{"fuzz_fitter", {{"fit_assumptions", record[0]}}},
                 {"other_fitter", {{"fit_assumptions", record[1]}}}};
    }
    if (const auto fit = zf::pipeline::read_fit_assumptions(plugins)) {
      (void)zf::pipeline::fit_launch(*fit, true);
      (void)zf::pipeline::fit_launch(*fit, false);
    }
  } catch (const zf::Error&) {
    // A record outside the schema is refused as zf::Error; anything else escapes.
  }
  return 0;
}
