// SPDX-License-Identifier: MIT
// The shared options and the layering they describe.
#include "common_options.hpp"

#include <algorithm>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/error.hpp"

namespace zf::cli {
namespace po = boost::program_options;

void add_template_options(po::options_description& options, CommonInputs& inputs) {
  options.add_options()("template-dir", po::value(&inputs.template_dirs)->composing(),
                        "directory searched for templates before the built-in ones (repeatable)")(
      "trim-blocks", po::bool_switch(&inputs.trim_blocks),
      "remove the first newline after a block tag (Jinja2 trim_blocks)")(
      "lstrip-blocks", po::bool_switch(&inputs.lstrip_blocks),
      "strip whitespace before a block tag at the start of a line (Jinja2 lstrip_blocks)");
}

void add_value_options(po::options_description& options, CommonInputs& inputs) {
  options.add_options()("values", po::value(&inputs.values_files)->composing(),
                        "JSON values file, applied in order (repeatable)")(
      "set", po::value(&inputs.sets)->composing(),
      "KEY=VALUE with a dotted KEY; VALUE is JSON if it parses, else a string (repeatable)")(
      "tier", po::value(&inputs.tier),
      "tier name (NAME.json on the tier search path: ./tiers, ZEROFORGE_TIER_PATH, the "
      "shipped tiers) or tier file");
}

void add_validation_options(po::options_description& options, ValidationInputs& inputs,
                            const char* what_no_validate) {
  options.add_options()(
      "validate", po::value(&inputs.mode),
      "which JSON output the DeepSpeed validator checks: contract (default: templates under "
      "the DeepSpeed values contract), deepspeed (any JSON template) or none")(
      "no-validate", po::bool_switch(&inputs.off), what_no_validate);
}

Validation validation_of(const ValidationInputs& inputs) {
  if (inputs.off || inputs.mode == "none") return Validation::Off;
  if (inputs.mode == "contract") return Validation::ByContract;
  if (inputs.mode == "deepspeed") return Validation::DeepSpeed;
  throw Error(ErrorKind::Usage,
              "--validate must be contract, deepspeed or none, got '" + inputs.mode + "'");
}

long long checked_number(const char* command, const char* option, long long value, long long min,
                         long long max) {
  if (value < min || value > max) {
    throw Error(ErrorKind::Usage, std::string(command) + ": --" + option +
                                      " must be a whole number from " + std::to_string(min) +
                                      " to " + std::to_string(max) + ", got " +
                                      std::to_string(value));
  }
  return value;
}

unsigned checked_jobs(const char* command, bool given, long long jobs) {
  constexpr unsigned kMaxJobs = 256;
  if (!given) return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxJobs);
  return static_cast<unsigned>(checked_number(command, "jobs", jobs, 1, kMaxJobs));
}

GenerateRequest family_request(const std::string& family, const CommonInputs& inputs,
                               const PluginInputs& plugin_inputs) {
  GenerateRequest request;
  request.family = family;
  for (const auto& dir : inputs.template_dirs) request.template_dirs.emplace_back(dir);
  for (const auto& file : inputs.values_files) request.values_files.emplace_back(file);
  request.sets = inputs.sets;
  request.trim_blocks = inputs.trim_blocks;
  request.lstrip_blocks = inputs.lstrip_blocks;
  request.plugins = plugin_inputs.plugins;
  for (const auto& dir : plugin_inputs.plugin_dirs) request.plugin_dirs.emplace_back(dir);
  request.plugin_options = plugin_inputs.plugin_opts;
  request.data_dir = data_dir();
  request.builtin_plugin_dir = builtin_plugins_dir();
  return request;
}

ConfigRequest config_request(const std::string& template_name, const CommonInputs& inputs,
                             const PluginInputs& plugin_inputs) {
  ConfigRequest request;
  request.template_name = template_name;
  request.tier = inputs.tier;
  for (const auto& file : inputs.values_files) request.values_files.emplace_back(file);
  request.sets = inputs.sets;
  for (const auto& dir : inputs.template_dirs) request.template_dirs.emplace_back(dir);
  request.plugins = plugin_inputs.plugins;
  for (const auto& dir : plugin_inputs.plugin_dirs) request.plugin_dirs.emplace_back(dir);
  request.plugin_options = plugin_inputs.plugin_opts;
  request.trim_blocks = inputs.trim_blocks;
  request.lstrip_blocks = inputs.lstrip_blocks;
  request.data_dir = data_dir();
  request.builtin_plugin_dir = builtin_plugins_dir();
  request.on_diagnostic = [](const Diagnostic& d) { print_diagnostic(std::cerr, d); };
  return request;
}

}  // namespace zf::cli
