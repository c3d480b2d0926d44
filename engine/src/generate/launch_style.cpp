// SPDX-License-Identifier: MIT
// launch_style (launch_style.hpp). Sources: DeepSpeed deepspeed/__init__.py
// (_add_core_arguments: `--deepspeed` is a store_true flag, the file comes as
// `--deepspeed_config`); accelerate utils/launch.py (prepare_deepspeed_cmd_env: the variables
// accelerate launch sets for a DEEPSPEED process, which Accelerator() and DeepSpeedPlugin read:
// ACCELERATE_USE_DEEPSPEED, ACCELERATE_MIXED_PRECISION, ACCELERATE_DEEPSPEED_CONFIG_FILE,
// ACCELERATE_DEEPSPEED_ZERO3_INIT); torch/distributed/run.py, DeepSpeed launcher/runner.py and
// launch.py, accelerate commands/launch.py (`--no_python`: run the script without Python).
#include "launch_style.hpp"

#include "text_helpers.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

const std::vector<std::string_view>& launch_styles() {
  static const std::vector<std::string_view> styles = {"hf-trainer", "deepspeed", "accelerate",
                                                       "plain"};
  return styles;
}

std::string launch_style_problem(const Json& value) {
  std::string listed;
  for (auto style : launch_styles()) listed += (listed.empty() ? "" : ", ") + std::string(style);
  if (!value.is_string()) return "launch.style must be one of " + listed + ", got " + value.dump();
  const std::string& name = value.get_ref<const std::string&>();
  for (auto style : launch_styles())
    if (style == name) return "";
  std::string message = "unknown launch.style " + value.dump() + " (expected " + listed + ")";
  if (std::string guess = detail::nearest_name(name, launch_styles()); !guess.empty())
    message += "; did you mean '" + guess + "'?";
  return message;
}

StyleLaunch style_launch(std::string_view style, const DeepSpeedFacts& facts) {
  StyleLaunch out;
  if (style == "hf-trainer") return out;
  out.trainer_arguments = false;
  if (style == "deepspeed") {
    out.flags = {"--deepspeed"};
    out.config_flag = "--deepspeed_config";
    out.reserved_args = {"--deepspeed", "--deepspeed_config"};
  } else if (style == "plain") {
    out.config_flag = "--deepspeed_config";
    out.config_variables = {"ZEROFORGE_DS_CONFIG"};
    out.reserved_args = {"--deepspeed_config"};
  } else if (style == "accelerate") {
    // What accelerate launch sets from the accelerate config (deepspeed_config_file,
    // zero3_init_flag) and --mixed_precision, for a launcher that does not run it.
    out.config_variables = {"ACCELERATE_DEEPSPEED_CONFIG_FILE"};
    out.environment["ACCELERATE_USE_DEEPSPEED"] = "true";
    out.environment["ACCELERATE_MIXED_PRECISION"] =
        facts.precision == "fp32" ? std::string("no") : facts.precision;
    out.environment["ACCELERATE_DEEPSPEED_ZERO3_INIT"] = facts.stage == 3 ? "true" : "false";
  }
  return out;
}

bool runs_with_python(std::string_view script) { return script.ends_with(".py"); }

}  // namespace zf::pipeline
