// SPDX-License-Identifier: MIT
// `zeroforge validate CONFIG.json...`: DeepSpeed-aware findings for hand-written or generated
// configs, as text lines or a JSON array; exit 0 (clean or warnings), 1 (errors), 2 (bad input).
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf::cli {
namespace po = boost::program_options;

namespace {

// Read once, with located errors and duplicate keys refused, keeping `1e3` a float as
// Python's json module does, because DeepSpeed treats such a number as a float.
nlohmann::ordered_json load_config(const std::string& path) {
  return parse_json_text(read_file(path), path, JsonNumbers::AsWritten);
}

}  // namespace

int run_validate(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  long long world_size = 0;
  std::string against;
  std::string format = "text";
  std::string deepspeed_version;
  std::string accelerate_version;
  po::options_description options("zeroforge validate CONFIG.json... [options]");
  options.add_options()("help,h", "show this help")(
      "world-size", po::value(&world_size), "data-parallel world size DeepSpeed will run with")(
      "hf",
      "the Hugging Face Trainer loads the config (it fills \"auto\" on the keys it knows and "
      "hands it to accelerate, which fills a few more and refuses the rest)")(
      "strict", "treat warnings (keys that have no effect) as errors")(
      "against-args", po::value(&against),
      "the training command line (its launcher's --hostfile or --config_file file is read "
      "too); report every disagreement with it")(
      "deepspeed-version", po::value(&deepspeed_version),
      ("judge by this DeepSpeed release (" + deepspeed_versions().front() + " to " +
       deepspeed_versions().back() + "; default " + deepspeed_versions().back() + ")")
          .c_str())("accelerate-version", po::value(&accelerate_version),
                    ("with --hf: the accelerate release the Trainer hands the config to (" +
                     accelerate_versions().front() + " to " + accelerate_versions().back() +
                     "; default " + accelerate_versions().back() + ")")
                        .c_str())("format", po::value(&format), "text (default) or json");
  po::options_description hidden;
  hidden.add_options()("config", po::value(&files));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("config", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Checks DeepSpeed configs against DeepSpeed's own schema and rules (see "
                 "docs/validate.md).\n"
                 "Lines: FILE: /json/pointer: error|warning|note [rule-id]: message.\n"
                 "Exit 0: no errors; 1: errors; 2: unreadable or malformed input.\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (files.empty()) throw Error(ErrorKind::Usage, "validate: missing CONFIG.json");
  if (format != "text" && format != "json") {
    throw Error(ErrorKind::Usage, "validate: --format must be text or json, not '" + format + "'");
  }
  if (format == "json") report_errors_as_json();
  ValidateOptions validate_options;
  if (vm.count("world-size")) {
    validate_options.world_size =
        checked_number("validate", "world-size", world_size, 1, kMaxWorldSize);
  }
  if (vm.count("deepspeed-version")) {
    try {
      check_deepspeed_version(deepspeed_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "validate: --deepspeed-version: " + e.message());
    }
    validate_options.deepspeed_version = deepspeed_version;
  }
  validate_options.hf = vm.count("hf") > 0;
  if (vm.count("accelerate-version")) {
    if (!validate_options.hf) {
      throw Error(ErrorKind::Usage,
                  "validate: --accelerate-version needs --hf (accelerate reads the config only "
                  "on the Trainer's path)");
    }
    try {
      check_accelerate_version(accelerate_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "validate: --accelerate-version: " + e.message());
    }
    validate_options.accelerate_version = accelerate_version;
  }
  validate_options.strict = vm.count("strict") > 0;
  if (vm.count("against-args")) {
    validate_options.against = parse_training_command(against);
    load_launcher_files(*validate_options.against);  // --hostfile, --config_file
  }

  std::vector<nlohmann::ordered_json> configs;
  configs.reserve(files.size());
  for (const auto& file : files) configs.push_back(load_config(file));  // exit 2 before any output
  std::vector<Finding> findings;
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto found = validate_config(configs[i], validate_options, files[i]);
    findings.insert(findings.end(), found.begin(), found.end());
  }
  if (format == "json") {
    std::cout << to_json_text(findings_to_json(findings));
  } else {
    std::size_t errors = 0, warnings = 0, notes = 0;
    for (const auto& f : findings) {
      print_message(std::cout, format_finding(f));
      (f.severity == Severity::Error     ? errors
       : f.severity == Severity::Warning ? warnings
                                         : notes) += 1;
    }
    std::cout << plural(files.size(), "config") << ": " << plural(errors, "error") << ", "
              << plural(warnings, "warning") << ", " << plural(notes, "note") << '\n';
  }
  std::cout.flush();
  return has_errors(findings) ? kFindings : kSuccess;
}

}  // namespace zf::cli
