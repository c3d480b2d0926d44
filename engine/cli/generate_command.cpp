// SPDX-License-Identifier: MIT
// `zeroforge generate FAMILY -o DIR`: the CLI over zf::generate (zeroforge/generate.hpp). It
// parses the options, prints what the library reports (text for people, or --format json for
// pipelines) and writes the --depfile.
#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/report.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// From the one list of kinds (zf::companion_kinds()), so the help cannot fall behind it.
std::string companions_help() {
  std::string kinds;
  for (const auto& kind : companion_kinds()) kinds += kind + ", ";
  return "K,...: also write these companions beside each config, replacing the family's list: " +
         kinds + "or none (see docs/companions.md)";
}

struct GenerateOptions {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string family;
  std::string output;
  std::string depfile;
  std::string report;
  std::string format = "text";
  bool check = false;
  ValidationInputs validation;
  bool quiet = false;
  long long jobs = 0;
  std::string companions;          // --companions, as given
  std::vector<std::string> tiers;  // --tier, as given
};

// "tier medium", "tiers small, medium": what a --tier run made, for the summary lines; ""
// without --tier.
std::string tiers_made(const GenerateOptions& opt, const GenerateResult& result) {
  if (opt.tiers.empty()) return "";
  std::string names;
  for (const auto& tier : result.tiers) names += (names.empty() ? "" : ", ") + tier;
  return (result.tiers.size() == 1 ? "tier " : "tiers ") + names;
}

// `--companions a,b` (or `none`): the kinds, in the order given; the library checks them.
std::vector<std::string> companion_list(const std::string& text) {
  std::vector<std::string> kinds;
  if (text == "none") return kinds;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string kind = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (kind.empty())
      throw Error(ErrorKind::Usage,
                  "generate: --companions takes a comma-separated list of companion kinds (or "
                  "none), got '" +
                      text + "'");
    kinds.push_back(std::move(kind));
    if (comma == std::string::npos) return kinds;
    start = comma + 1;
  }
}

int print_help(const po::options_description& options) {
  std::cout
      << "Generates every config of a family (a family file, or the name of one in\n"
         "presets/families/) into DIR, plus DIR/manifest.json. Nothing is written when any\n"
         "config fails. With --check, writes nothing and exits 1 naming every file under DIR\n"
         "that is missing, changed or extra. With --tier, only those tiers: the others'\n"
         "files and manifest entries are kept as DIR has them.\n\n"
      << options << '\n';
  return kSuccess;
}

// What people read: the same messages generate has always printed.
void print_text(const GenerateOptions& opt, const GenerateResult& result) {
  const std::string& dir = opt.output;
  if (result.failure || !result.problems.empty() || !result.refusals.empty()) {
    // What the library says went wrong (failure_diagnostics), each with its code.
    print_diagnostics(std::cerr, failure_diagnostics(result));
    return;
  }
  if (!opt.quiet || exit_code_of(result.outcome) != 0) {
    for (const auto& finding : result.findings) print_message(std::cerr, format_finding(finding));
  }
  if (has_errors(result.findings)) {
    print_coded_line(std::cerr,
                     "zeroforge: error: the validator found errors in generated configs; nothing "
                     "was written (--no-validate writes them anyway)",
                     codes::generate_not_generated);
    return;
  }
  if (opt.check) {
    if (opt.format == "text") {
      for (const auto& file : result.files)
        print_message(std::cout,
                      dir + "/" + file.path + ": " + std::string(to_string(file.change)));
    }
    if (exit_code_of(result.outcome) != 0) {
      print_message(std::cerr,
                    "zeroforge: " + dir + " differs from family '" + result.family_name + "'" +
                        (opt.tiers.empty() ? "" : ", " + tiers_made(opt, result)) + " (" +
                        std::to_string(result.missing) + " missing, " +
                        std::to_string(result.changed) + " changed, " +
                        std::to_string(result.extra) +
                        " extra); run zeroforge generate without --check to update it" +
                        (result.extra > 0 ? " (it keeps files no manifest listed: delete the "
                                            "extra ones yourself)"
                                          : ""));
    } else if (!opt.quiet && opt.format == "text") {
      print_message(std::cout,
                    "zeroforge: " + dir + " is up to date (" + std::to_string(result.configs) +
                        " configs" +
                        (result.companions > 0
                             ? " and " + std::to_string(result.companions) + " companion files"
                             : "") +
                        " of family '" + result.family_name + "'" +
                        (opt.tiers.empty() ? "" : ", " + tiers_made(opt, result)) + ")");
    }
    return;
  }
  if (!opt.quiet && opt.format == "text") {
    print_message(
        std::cout,
        "zeroforge: wrote " + std::to_string(result.configs) + " configs" +
            (result.companions > 0
                 ? " and " + std::to_string(result.companions) + " companion files"
                 : "") +
            " of family '" + result.family_name + "'" +
            (opt.tiers.empty()
                 ? ""
                 : " (" + tiers_made(opt, result) + "; " + std::to_string(result.kept) + " config" +
                       (result.kept == 1 ? "" : "s") + " of the other tiers kept)") +
            " to " + dir + " (index: " + result.manifest.string() + ")");
  }
}

Json finding_json(const Finding& finding) {
  return {{"file", finding.file},
          {"pointer", finding.pointer},
          {"severity", severity_name(finding.severity)},
          {"rule", finding.rule},
          {"message", finding.message}};
}

// What pipelines read (docs/cli.md, "generate --format json").
Json summary_json(const GenerateOptions& opt, const GenerateResult& result,
                  const std::vector<Diagnostic>& messages) {
  Json out = {{"family", result.family_name},
              {"output_dir", opt.output},
              {"manifest", result.manifest.string()},
              {"check", opt.check},
              {"exit_code", exit_code_of(result.outcome)},
              {"configs", result.configs},
              {"companions", result.companions},
              {"tiers", result.tiers},
              {"kept", result.kept}};
  auto list = [&](FileChange change) {
    Json paths = Json::array();
    for (const auto& file : result.files)
      if (file.change == change) paths.push_back(file.path);
    return paths;
  };
  if (opt.check) {
    for (FileChange change : {FileChange::Missing, FileChange::Changed, FileChange::Extra})
      out[std::string(to_string(change))] = list(change);
  } else {
    for (FileChange change : {FileChange::Written, FileChange::Unchanged, FileChange::Removed})
      out[std::string(to_string(change))] = list(change);
  }
  Json findings = Json::array();
  for (const auto& finding : result.findings) findings.push_back(finding_json(finding));
  out["findings"] = std::move(findings);
  Json refusals = Json::array();
  for (const auto& refusal : result.refusals) {
    refusals.push_back({{"plugin", refusal.plugin},
                        {"pointer", refusal.pointer},
                        {"message", refusal.message},
                        {"file", refusal.file},
                        {"file_pointer", refusal.file_pointer}});
  }
  out["refusals"] = std::move(refusals);
  Json errors = Json::array();
  // Each as every --format json writes a diagnostic (code, kind, severity, message,
  // location), with the variant that hit it.
  for (const auto& problem : result.problems) {
    Json error = diagnostic_to_json(problem.diagnostic);
    error["variant"] = problem.variant;
    error["other_variants"] = problem.others;
    errors.push_back(std::move(error));
  }
  if (result.failure) {
    Json error = diagnostic_to_json(result.failure->diagnostic);
    error["variant"] = result.failure->variant;
    errors.push_back(std::move(error));
  }
  out["errors"] = std::move(errors);
  // The notes and warnings stderr said (or, with --quiet, held back), so that a pipeline
  // reading this keeps them.
  out["messages"] = diagnostics_to_json(messages);
  return out;
}

}  // namespace

int run_generate(const std::vector<std::string>& args) {
  GenerateOptions opt;
  po::options_description options("zeroforge generate FAMILY -o DIR [options]");
  options.add_options()("help,h", "show this help")(
      "output,o", po::value(&opt.output), "directory to write the configs and manifest.json to")(
      "check", po::bool_switch(&opt.check),
      "write nothing; exit 1 if DIR differs from what would be written")(
      "jobs,j", po::value(&opt.jobs),
      "threads (1-256) that render, validate and write configs (default: one per core; "
      "families with plugins use one)")(
      "values", po::value(&opt.inputs.values_files)->composing(),
      "JSON values file applied to every config, in order (repeatable)")(
      "set", po::value(&opt.inputs.sets)->composing(),
      "KEY=VALUE applied to every config (repeatable; see zeroforge render --help)")(
      "depfile", po::value(&opt.depfile),
      "also write FILE: a Makefile rule making DIR/manifest.json depend on every file the run "
      "read (for Ninja and Make; see docs/pipelines.md)")(
      "report", po::value(&opt.report),
      "also write FILE: the family as one HTML page, changes marked against the manifest DIR "
      "held (see zeroforge report --help)")(
      "format", po::value(&opt.format),
      "text (default), or json: a summary on stdout (configs, written, unchanged, removed, "
      "findings, manifest)")("quiet,q", po::bool_switch(&opt.quiet),
                             "print nothing when the run succeeds (errors are still printed)")(
      "companions", po::value(&opt.companions), companions_help().c_str())(
      "tier", po::value(&opt.tiers)->composing(),
      "NAME: make only this tier of the family (repeatable); the other tiers' files and manifest "
      "entries stay as they are, and --check compares only this tier's files");
  add_validation_options(options, opt.validation,
                         "write configs even when the validator finds errors in them");
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
  if (opt.family.empty()) throw Error(ErrorKind::Usage, "generate: missing FAMILY");
  if (opt.output.empty()) throw Error(ErrorKind::Usage, "generate: missing -o DIR");
  // '-' is stdout where a command's one output is a file (render, schema, report -o); here
  // the output is a directory, and the depfile and report go beside generate's own output.
  if (opt.output == "-")
    throw Error(ErrorKind::Usage, "generate: -o - is stdout, but generate writes a directory");
  if (opt.depfile == "-")
    throw Error(ErrorKind::Usage,
                "generate: --depfile - is stdout, but Make and Ninja read the depfile from a "
                "file; give its path");
  if (opt.report == "-")
    throw Error(ErrorKind::Usage,
                "generate: --report - is stdout, where generate prints its own output; give a "
                "file, or run zeroforge report -o -");
  const unsigned jobs = checked_jobs("generate", vm.count("jobs") != 0, opt.jobs);
  if (opt.format != "text" && opt.format != "json")
    throw Error(ErrorKind::Usage,
                "generate: --format must be text or json, got '" + opt.format + "'");
  if (opt.format == "json") report_errors_as_json();
  if (!opt.depfile.empty() && opt.check)
    throw Error(ErrorKind::Usage, "generate: --depfile goes with a generate, not with --check");
  if (!opt.report.empty() && opt.check)
    throw Error(ErrorKind::Usage, "generate: --report goes with a generate, not with --check");

  GenerateRequest request = family_request(opt.family, opt.inputs, opt.plugin_inputs);
  request.output_dir = opt.output;
  request.check = opt.check;
  request.validation = validation_of(opt.validation);
  request.jobs = jobs;
  request.list_files = opt.format == "json";
  request.depfile = !opt.depfile.empty();
  if (vm.count("companions")) request.companions = companion_list(opt.companions);
  request.tiers = opt.tiers;
  // Notes and warnings as they happen; with --quiet only once the run has failed.
  std::vector<Diagnostic> held;
  std::vector<Diagnostic> said;  // every one, for --format json
  request.on_message = [&](const Diagnostic& d) {
    if (opt.format == "json") said.push_back(d);
    if (opt.quiet) {
      held.push_back(d);
    } else {
      print_diagnostic(std::cerr, d);
    }
  };

  // The report marks changes against the manifest DIR holds before this run replaces it.
  ManifestBaseline baseline;
  if (!opt.report.empty()) {
    baseline = read_manifest_baseline(opt.output);
    request.keep_manifest = true;
  }
  GenerateResult result;
  try {
    result = generate(request);
  } catch (const Error&) {
    // A run that stops before any config is made: what --quiet held back belongs to it.
    if (opt.quiet) print_diagnostics(std::cerr, held);
    throw;
  }
  if (opt.quiet && exit_code_of(result.outcome) != 0) {
    print_diagnostics(std::cerr, held);
  }
  print_text(opt, result);
  if (opt.format == "json") std::cout << to_json_text(summary_json(opt, result, said));
  if (!opt.depfile.empty() && exit_code_of(result.outcome) == 0) {
    // The target as the build file names it (-o as given); the inputs absolute, since Make and
    // Ninja read them from their own working directory.
    write_file_atomically(opt.depfile, depfile_text(result.manifest.string(), result));
  }
  if (!opt.report.empty() && exit_code_of(result.outcome) == 0) {
    if (!baseline.problem.empty() && !opt.quiet)
      print_diagnostic(std::cerr, baseline_warning(baseline));
    write_report(opt.report, request, result, baseline);
    if (!opt.quiet && opt.format == "text")
      print_message(std::cout, "zeroforge: wrote the report to " + opt.report);
  }
  return exit_code_of(result.outcome);
}

}  // namespace zf::cli
