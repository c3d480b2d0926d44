// SPDX-License-Identifier: MIT
// `zeroforge report FAMILY [-o FILE]`: the CLI over zf::report_family (zeroforge/report.hpp).
// It takes generate's options for what the family makes, plus where the page goes, where the
// configs are and a model to estimate with; it prints what went wrong as generate does.
#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/report.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct ReportOptions {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string family;
  std::string output = "report.html";
  std::string dir;
  std::string model;
  ValidationInputs validation;
  bool quiet = false;
  long long jobs = 0;
};

int print_help(const po::options_description& options) {
  std::cout
      << "Writes FILE: the family (a family file, or the name of one in presets/families/) as\n"
         "one self-contained HTML page. Per tier, a chart of each config's GPU and host\n"
         "memory against the tier's capacity (the memory plugin's estimates), the stage,\n"
         "offload and batch arithmetic, auto-fit's trail, validator findings, links to the\n"
         "configs in DIR, and what changed against DIR/manifest.json. Makes the configs as\n"
         "generate does, in memory: nothing else is written.\n\n"
      << options << '\n';
  return kSuccess;
}

// What generate would have said, ending with "no report was written".
void print_failure(const GenerateResult& result) {
  if (result.failure) {
    print_diagnostic(std::cerr, result.failure->diagnostic);
    print_diagnostic(std::cerr, report_variant_note(result));
    return;
  }
  // generate's refusals and values problems (failure_diagnostics), then every finding of the
  // validator, warnings too; the closing line is this command's own.
  for (const auto& d : failure_diagnostics(result)) {
    if (d.code != codes::generate_not_generated && d.code != codes::validate_finding)
      print_diagnostic(std::cerr, d);
  }
  for (const auto& finding : result.findings) print_message(std::cerr, format_finding(finding));
  print_diagnostic(std::cerr, not_reported_error(result));
}

}  // namespace

int run_report(const std::vector<std::string>& args) {
  ReportOptions opt;
  po::options_description options("zeroforge report FAMILY [-o FILE] [options]");
  options.add_options()("help,h", "show this help")(
      "output,o", po::value(&opt.output),
      "the HTML file to write (default: report.html; - for stdout, links relative to the "
      "working directory)")(
      "dir", po::value(&opt.dir),
      "where the configs are, or zeroforge generate -o DIR writes them: the page links to "
      "them there and marks what changed against DIR/manifest.json (default: FILE's "
      "directory)")("model", po::value(&opt.model),
                    "estimate the memory of configs that name no model (no auto_fit) with this "
                    "model preset or file, as estimate --model; the configs do not change")(
      "jobs,j", po::value(&opt.jobs),
      "threads (1-256) that make the configs (default: one per core; families with plugins "
      "use one)")("values", po::value(&opt.inputs.values_files)->composing(),
                  "JSON values file applied to every config, in order (repeatable)")(
      "set", po::value(&opt.inputs.sets)->composing(),
      "KEY=VALUE applied to every config (repeatable; see zeroforge render --help)")(
      "quiet,q", po::bool_switch(&opt.quiet),
      "print nothing when the run succeeds (errors are still printed)");
  add_validation_options(options, opt.validation,
                         "report configs even when the validator finds errors in them");
  add_template_options(options, opt.inputs);
  add_plugin_options(options, opt.plugin_inputs);
  po::options_description hidden;
  hidden.add_options()("family", po::value(&opt.family));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("family", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) return print_help(options);
  po::notify(vm);
  if (opt.family.empty()) throw Error(ErrorKind::Usage, "report: missing FAMILY");
  if (opt.output.empty()) throw Error(ErrorKind::Usage, "report: -o needs a file name");
  const unsigned jobs = checked_jobs("report", vm.count("jobs") != 0, opt.jobs);

  ReportRequest request;
  request.generate = family_request(opt.family, opt.inputs, opt.plugin_inputs);
  // The configs' directory defaults to the report's: `-o out/report.html` links into out/.
  const bool to_stdout = opt.output == "-";
  const fs::path dir = !opt.dir.empty() ? fs::path(opt.dir)
                       : to_stdout      ? fs::path(".")
                                        : fs::path(opt.output).parent_path();
  request.generate.output_dir = dir.empty() ? fs::path(".") : dir;
  request.generate.validation = validation_of(opt.validation);
  request.generate.jobs = jobs;
  if (to_stdout) {
    request.sink = [](std::string_view html) { std::cout << html; };
  } else {
    request.file = opt.output;
  }
  request.model = opt.model;
  std::vector<Diagnostic> held;
  request.generate.on_message = [&](const Diagnostic& d) {
    if (opt.quiet) {
      held.push_back(d);
    } else {
      print_diagnostic(std::cerr, d);
    }
  };

  GenerateResult result = report_family(request);
  if (exit_code_of(result.outcome) != 0) {
    print_diagnostics(std::cerr, held);
    print_failure(result);
    return exit_code_of(result.outcome);
  }
  if (!opt.quiet) {
    for (const auto& finding : result.findings) print_message(std::cerr, format_finding(finding));
  }
  // With -o -, stdout holds the page and nothing else.
  if (!opt.quiet && !to_stdout) {
    print_message(std::cout, "zeroforge: wrote the report of family '" + result.family_name +
                                 "' (" + std::to_string(result.configs) + " configs) to " +
                                 opt.output);
  }
  return kSuccess;
}

}  // namespace zf::cli
