// SPDX-License-Identifier: MIT
// Launch styles (docs/companions.md, "Launch styles"): how the training script takes its
// DeepSpeed config, which decides the words every launcher and scheduler passes after the
// script and the environment it sets. `hf-trainer` (the Hugging Face Trainer's arguments) is
// the default; `deepspeed` is a script built on deepspeed.add_config_arguments, `accelerate`
// one that builds an Accelerator from the accelerate config, `plain` one that reads a path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/deepspeed_contract.hpp"

namespace zf::pipeline {

/// The styles, default first.
const std::vector<std::string_view>& launch_styles();

/// What is wrong with `value` as `launch.style`, or "": a string naming one of launch_styles()
/// (with a did-you-mean for a near one).
std::string launch_style_problem(const nlohmann::ordered_json& value);

/// What a style adds to the launch of a config (`job.style_*`, docs/companions.md).
struct StyleLaunch {
  /// The script takes the Trainer's arguments (`--deepspeed FILE` and the TrainingArguments
  /// that agree with the config): hf-trainer only.
  bool trainer_arguments = true;
  /// Flags after the script, before the config's path: `--deepspeed` (add_config_arguments'
  /// boolean flag).
  std::vector<std::string> flags;
  /// The option that names the config's file after the flags (`--deepspeed_config`), or "".
  std::string config_flag;
  /// Variables set to the config's path by every launcher but the one that reads it itself
  /// (`ZEROFORGE_DS_CONFIG`; `ACCELERATE_DEEPSPEED_CONFIG_FILE` where no accelerate launch
  /// reads the accelerate config).
  std::vector<std::string> config_variables;
  /// Variables with fixed values, for the launchers that are not `accelerate launch`: the
  /// accelerate style's ACCELERATE_* (what accelerate launch would set from its config).
  nlohmann::ordered_json environment = nlohmann::ordered_json::object();
  /// Words launch.args must not pass, since the companions pass them for this style.
  std::vector<std::string> reserved_args;
};

/// The launch of `style` (one of launch_styles()) for a config with `facts`.
StyleLaunch style_launch(std::string_view style, const DeepSpeedFacts& facts);

/// Whether a launcher runs `script` with Python: a name ending in `.py`. Any other script (a
/// shell wrapper, a binary) is executed as it is: the launchers are given `--no_python`.
bool runs_with_python(std::string_view script);

}  // namespace zf::pipeline
