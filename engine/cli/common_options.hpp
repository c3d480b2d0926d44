// SPDX-License-Identifier: MIT
// Options several commands share (--template-dir, --values, --set, --tier) and turning them
// into an Environment and layered values.
#pragma once

#include <boost/program_options/options_description.hpp>
#include <string>
#include <vector>

#include "plugin_options.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::cli {

/// What the shared options collected.
struct CommonInputs {
  std::vector<std::string> template_dirs;
  std::vector<std::string> values_files;
  std::vector<std::string> sets;
  std::string tier;
  bool trim_blocks = false;
  bool lstrip_blocks = false;
};

/// Adds --template-dir, --trim-blocks and --lstrip-blocks.
void add_template_options(boost::program_options::options_description& options,
                          CommonInputs& inputs);
/// Adds --values, --set and --tier.
void add_value_options(boost::program_options::options_description& options, CommonInputs& inputs);

/// A request for TEMPLATE with the shared options and the CLI's data directories (render,
/// explain, list); plugins' messages are printed to stderr as they are logged.
ConfigRequest config_request(const std::string& template_name, const CommonInputs& inputs,
                             const PluginInputs& plugin_inputs);

/// What --validate and --no-validate collected.
struct ValidationInputs {
  std::string mode = "contract";
  bool off = false;  ///< --no-validate
};

/// Adds --validate contract|deepspeed|none and --no-validate (`what_no_validate` says what
/// --no-validate writes).
void add_validation_options(boost::program_options::options_description& options,
                            ValidationInputs& inputs, const char* what_no_validate);

/// The Validation the options ask for; throws zf::Error (Usage) for an unknown mode.
Validation validation_of(const ValidationInputs& inputs);

/// A whole-number option as given (Boost reads it as a signed number, so `-j -1` is -1, not
/// 4294967295): `value` when it lies in [min, max], else zf::Error (Usage)
/// `COMMAND: --OPTION must be a whole number from MIN to MAX, got VALUE`. Every numeric option
/// of every command is checked here.
long long checked_number(const char* command, const char* option, long long value, long long min,
                         long long max);

/// Threads for `generate` and `report` (--jobs): `jobs` as given (1-256, checked_number), or
/// one per core when `given` is false.
unsigned checked_jobs(const char* command, bool given, long long jobs);

/// A request for FAMILY with the shared options (templates, values, plugins) and the CLI's
/// data directories; generate and explain fill in the rest.
GenerateRequest family_request(const std::string& family, const CommonInputs& inputs,
                               const PluginInputs& plugin_inputs);

}  // namespace zf::cli
