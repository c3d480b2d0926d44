// SPDX-License-Identifier: MIT
// Fuzz target: a memory estimate record (zeroforge/memory_estimate.hpp) as any plugin may
// publish it, read by the family report and drawn into its page. The record is a third party's
// JSON turned into bars, percentages and HTML: refused as zf::Error or drawn, nothing else.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "report/report_page.hpp"
#include "report/report_view.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::ordered_json record = zf::parse_json_text(text, "record.json");
    zf::report::ViewInputs in;
    in.tier_order = {"small"};
    in.manifest = {{"zeroforge_version", "0.1.0"},
                   {"family", "fuzz"},
                   {"configs",
                    {{{"path", "small/a.json"},
                      {"tier", "small"},
                      {"sha256", "0123456789abcdef"},
                      {"plugins", {{"fuzz_estimator", {{"memory_estimate", record}}}}}}}}};
    zf::report::render_page(zf::report::make_view(in));
  } catch (const zf::Error&) {
    // A record outside the schema is refused as zf::Error; anything else escapes.
  }
  return 0;
}
