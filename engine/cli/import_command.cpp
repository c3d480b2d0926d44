// SPDX-License-Identifier: MIT
// `zeroforge import CONFIG.json... -o FAMILY.json`: existing DeepSpeed configs into one family
// whose members regenerate them, with validate's findings on each input and the import's notes;
// exit 0, 1 (an input has errors: the family is still written) or 2 (bad input: nothing written).
#include <boost/program_options.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/import.hpp"
#include "zeroforge/output.hpp"

namespace zf::cli {
namespace po = boost::program_options;

int run_import(const std::vector<std::string>& args) {
  ImportRequest request;
  std::string output;
  std::string format = "text";
  std::vector<std::string> template_dirs;
  long long world_size = 0;
  std::string deepspeed_version;
  po::options_description options("zeroforge import CONFIG.json... -o FAMILY.json [options]");
  options.add_options()("help,h", "show this help")("output,o", po::value(&output),
                                                    "the family file to write (atomically)")(
      "template", po::value(&request.template_name),
      "the template the family renders (default: deepspeed/config.json.j2)")(
      "tier", po::value(&request.tier),
      "put the family on this tier (name or file): its GPUs are the world size the batch keys "
      "are solved for, and the inputs are judged at it")(
      "template-dir", po::value(&template_dirs),
      "directory searched for templates before the built-in ones (repeatable)")(
      "world-size", po::value(&world_size),
      "judge the inputs at this data-parallel world size, as validate --world-size (default: "
      "the tier's, else 1)")(
      "deepspeed-version", po::value(&deepspeed_version),
      ("judge the inputs by this DeepSpeed release, as validate --deepspeed-version, and pin it "
       "in the family (deepspeed_version), so generate writes the keys that release reads "
       "(default: the newest, " +
       deepspeed_versions().back() + ", unpinned)")
          .c_str())("strict",
                    "treat warnings (keys that have no effect) as errors, as validate "
                    "--strict")("format", po::value(&format),
                                "text (default) or json: the findings");
  // Options that change how validate judges a config belong in request.validate, so import
  // judges its inputs the same way.
  po::options_description hidden;
  hidden.add_options()("config", po::value(&request.configs));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("config", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Reads existing DeepSpeed configs and writes one family whose members regenerate\n"
                 "each of them (zeroforge generate FAMILY.json -o DIR gives every input back,\n"
                 "under its own path). Each input is judged as validate judges it; the import\n"
                 "adds notes: keys carried as written (extra), names that promise another stage,\n"
                 "precision or offload, inputs that differ in one key (see docs/import.md).\n"
                 "Exit 0; 1: an input has errors (the family is still written); 2: bad input.\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (request.configs.empty()) throw Error(ErrorKind::Usage, "import: missing CONFIG.json");
  if (output.empty()) throw Error(ErrorKind::Usage, "import: missing -o FAMILY.json");
  if (format != "text" && format != "json") {
    throw Error(ErrorKind::Usage, "import: --format must be text or json, not '" + format + "'");
  }
  if (format == "json") report_errors_as_json();
  if (vm.count("deepspeed-version")) {
    try {
      check_deepspeed_version(deepspeed_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "import: --deepspeed-version: " + e.message());
    }
    request.validate.deepspeed_version = deepspeed_version;
  }
  if (vm.count("world-size")) {
    request.validate.world_size =
        checked_number("import", "world-size", world_size, 1, kMaxWorldSize);
  }
  request.validate.strict = vm.count("strict") > 0;
  request.family_file = output;
  for (const auto& dir : template_dirs) request.template_dirs.emplace_back(dir);
  request.data_dir = data_dir();

  const ImportResult result = import_configs(request);
  print_diagnostics(std::cerr, result.warnings);
  write_file_atomically(output, to_json_text(result.family));

  std::size_t errors = 0, warnings = 0, notes = 0, carried = 0;
  for (const auto& f : result.findings) {
    (f.severity == Severity::Error     ? errors
     : f.severity == Severity::Warning ? warnings
                                       : notes) += 1;
  }
  for (const auto& c : result.configs) carried += c.passthrough.size();
  if (format == "json") {
    std::cout << to_json_text(findings_to_json(result.findings));
  } else {
    for (const auto& f : result.findings) print_message(std::cout, format_finding(f));
    std::cout << plural(result.configs.size(), "config") << ": " << plural(errors, "error") << ", "
              << plural(warnings, "warning") << ", " << plural(notes, "note") << '\n';
    print_message(std::cout, "zeroforge: wrote family '" +
                                 result.family.at("name").get<std::string>() + "' to " + output +
                                 ": " + plural(result.configs.size(), "member") + ", " +
                                 plural(result.shared_values, "shared value") + ", " +
                                 plural(carried, "key") + " carried as written (extra)");
  }
  return errors > 0 ? kFindings : kSuccess;
}

}  // namespace zf::cli
