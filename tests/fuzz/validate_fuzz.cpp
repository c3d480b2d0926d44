// SPDX-License-Identifier: MIT
// Fuzz target: the DeepSpeed config validator on any JSON document, with the options the
// first byte picks (world size, hf, strict, a training command to check against), and the
// finding formatters on what it found.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

// Input: one flags byte, then the config. With flag bit 3 the config is preceded by a training
// command line and a NUL byte (`deepspeed --num_gpus 8 train.py ...\0{...}`).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  zf::ValidateOptions options;
  nlohmann::ordered_json config;
  try {
    if ((flags & 8) != 0) {
      const auto nul = text.find('\0');
      if (nul == std::string_view::npos) return 0;
      options.against = zf::parse_training_command(text.substr(0, nul));
      text.remove_prefix(nul + 1);
    }
    config = zf::parse_json_text(text, "fuzz.json");
    zf::is_deepspeed_config(config);
    zf::validate_options_from_values(config);
  } catch (const zf::Error&) {
    return 0;  // a malformed command line or JSON text never reaches the validator
  }
  if ((flags & 1) != 0) options.world_size = (flags >> 4) == 15 ? 0 : 1LL << (flags >> 4);
  options.hf = (flags & 2) != 0;
  options.strict = (flags & 4) != 0;
  // The validator never throws for a bad config: every problem is a finding.
  auto findings = zf::validate_config(config, options, "fuzz.json");
  for (const auto& finding : findings) zf::format_finding(finding);
  zf::findings_to_json(findings);
  return 0;
}
