// SPDX-License-Identifier: MIT
// Fuzz target: `validate --against-args "sbatch OPTIONS SCRIPT ARGS"` on any batch script: the
// command line's options, sbatch's own checks of the script, its #SBATCH directives
// (engine/src/validate/sbatch_script.cpp) and the launch it runs, then the validator's
// consistency checks of that launch against a fixed ZeRO-3 config.
//
// Input: the words after `sbatch` (options, the script's name, its arguments), a NUL, then the
// script's bytes. An input without a NUL is skipped. The script is fed as text: no file is
// read or written, so a launch naming a hostfile or an accelerate config reads nothing.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "validate/sbatch_script.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/validator.hpp"

namespace {

// A config whose batch keys and precision the launch's arguments are checked against.
const nlohmann::ordered_json& config() {
  static const nlohmann::ordered_json kConfig = {{"train_batch_size", 64},
                                                 {"train_micro_batch_size_per_gpu", 4},
                                                 {"gradient_accumulation_steps", 2},
                                                 {"bf16", {{"enabled", true}}},
                                                 {"zero_optimization", {{"stage", 3}}}};
  return kConfig;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  if (nul == std::string_view::npos) return 0;
  zf::ValidateOptions options;
  try {
    zf::TrainingCommand command =
        zf::parse_training_command("sbatch " + std::string(input.substr(0, nul)));
    if (!command.sbatch_script) return 0;  // the words were read as something else
    zf::detail::read_sbatch_script(command, std::string(input.substr(nul + 1)));
    options.against = std::move(command);
  } catch (const zf::Error&) {
    return 0;  // sbatch would refuse it, or no launch: an error naming the script's line
  }
  // The validator never throws for a launch it read: every disagreement is a finding.
  for (const auto& finding : zf::validate_config(config(), options, "ds.json"))
    zf::format_finding(finding);
  return 0;
}
