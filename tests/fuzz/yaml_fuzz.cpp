// SPDX-License-Identifier: MIT
// Fuzz target: the YAML subset reader `validate --against-args` reads accelerate's config files
// with (engine/src/validate/yaml_subset.cpp), on any text, and the JSON it makes written out.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "validate/yaml_subset.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::ordered_json parsed;
  try {
    parsed = zf::validate::parse_yaml_subset(text, "fuzz.yaml");
  } catch (const zf::Error&) {
    return 0;  // outside the subset, or malformed: an error at its line and column
  }
  // What it read is valid JSON (UTF-8 strings, finite numbers), as the validator needs.
  zf::to_json_text(parsed);
  return 0;
}
