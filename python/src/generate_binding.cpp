// SPDX-License-Identifier: MIT
// _zeroforge.generate: zf::generate with the GIL released; a family that cannot be made
// (values or template errors, exit code 2) raises, findings, refusals and drift are data.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "diagnostic_printer.hpp"
#include "engine_call.hpp"
#include "errors.hpp"
#include "json_convert.hpp"
#include "zeroforge/generate.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

Validation validation_of(const std::string& mode) {
  if (mode == "contract") return Validation::ByContract;
  if (mode == "deepspeed") return Validation::DeepSpeed;
  if (mode == "none") return Validation::Off;
  throw Error(ErrorKind::Usage,
              "generate: validation must be contract, deepspeed or none, got '" + mode + "'");
}

// What the CLI prints on stderr for a family it could not make (failure_diagnostics, as
// generate_command.cpp prints them), raised with the first problem's code and location.
[[noreturn]] void raise_failure(const GenerateResult& result) {
  std::ostringstream out;
  cli::print_diagnostics(out, failure_diagnostics(result));
  std::string shown = out.str();
  if (!shown.empty() && shown.back() == '\n') shown.pop_back();
  py::dict extra;
  extra["variant"] =
      text(result.failure ? result.failure->variant : result.problems.front().variant);
  raise_diagnostic(result.failure ? result.failure->diagnostic : result.problems.front().diagnostic,
                   shown, extra);
}

// The summary `generate --format json` prints (generate_command.cpp), less `errors`: a
// generate whose values or template are wrong raises instead.
py::dict summary(const GenerateRequest& request, const GenerateResult& result,
                 const std::vector<Diagnostic>& said) {
  py::dict out;
  out["family"] = text(result.family_name);
  out["output_dir"] = text(request.output_dir.string());
  out["manifest"] = text(result.manifest.string());
  out["check"] = request.check;
  // The CLI's exit codes: Done 0, Refused and Stale 1, Failed 2.
  out["exit_code"] = result.outcome == Outcome::Done     ? 0
                     : result.outcome == Outcome::Failed ? 2
                                                         : 1;
  out["configs"] = result.configs;
  out["companions"] = result.companions;
  py::list tiers;
  for (const auto& tier : result.tiers) tiers.append(text(tier));
  out["tiers"] = tiers;
  out["kept"] = result.kept;
  for (FileChange change : {FileChange::Written, FileChange::Unchanged, FileChange::Removed,
                            FileChange::Missing, FileChange::Changed, FileChange::Extra}) {
    py::list paths;
    for (const auto& file : result.files)
      if (file.change == change) paths.append(text(file.path));
    out[text(std::string(to_string(change)))] = paths;
  }
  out["findings"] = to_python(findings_to_json(result.findings));
  py::list refusals;
  for (const auto& refusal : result.refusals) {
    py::dict r;
    r["plugin"] = text(refusal.plugin);
    r["pointer"] = text(refusal.pointer);
    r["message"] = text(refusal.message);
    r["file"] = text(refusal.file);
    r["file_pointer"] = text(refusal.file_pointer);
    refusals.append(r);
  }
  out["refusals"] = refusals;
  // The notes and warnings as `--format json` writes them (`messages`).
  out["messages"] = to_python(cli::diagnostics_to_json(said));
  return out;
}

py::dict generate_family(const std::string& family, const fs::path& output_dir,
                         const std::vector<fs::path>& template_dirs, py::list values,
                         const std::vector<std::string>& sets,
                         const std::vector<std::string>& plugins,
                         const std::vector<fs::path>& plugin_dirs,
                         const std::vector<std::string>& plugin_options, bool check, unsigned jobs,
                         std::optional<std::vector<std::string>> companions,
                         const std::vector<std::string>& tiers, const std::string& validation,
                         bool trim_blocks, bool lstrip_blocks, const fs::path& data_dir,
                         const fs::path& plugin_dir) {
  GenerateRequest request;
  request.family = family;
  request.output_dir = output_dir;
  request.template_dirs = template_dirs;
  request.values_objects = values_layers(values);
  request.sets = sets;
  request.plugins = plugins;
  request.plugin_dirs = plugin_dirs;
  request.plugin_options = plugin_options;
  request.check = check;
  request.jobs = jobs;
  request.companions = std::move(companions);
  request.tiers = tiers;
  request.validation = validation_of(validation);
  request.trim_blocks = trim_blocks;
  request.lstrip_blocks = lstrip_blocks;
  request.data_dir = data_dir;
  request.builtin_plugin_dir = plugin_dir;
  request.list_files = true;
  // The run's notes and warnings as they are said (the CLI's `messages`); the result's own
  // messages are then only what a failure says.
  std::vector<Diagnostic> said;
  request.on_message = [&said](const Diagnostic& d) { said.push_back(d); };
  GenerateResult result;
  {
    EngineCall unlocked;
    result = generate(request);
  }
  if (result.outcome == Outcome::Failed && (result.failure || !result.problems.empty()))
    raise_failure(result);
  py::dict out;
  out["summary"] = summary(request, result, said);
  py::list messages;
  // What the CLI prints for each (its line, ending with the code): the module shows them as
  // text (warnings, failure messages).
  for (const auto& d : said) messages.append(text(printed({d})));
  for (const auto& d : result.messages) messages.append(text(printed({d})));
  out["messages"] = messages;
  return out;
}

}  // namespace

void bind_generate(py::module_& module) {
  module.def("generate", &generate_family, py::arg("family"), py::arg("output_dir"),
             py::arg("template_dirs"), py::arg("values"), py::arg("sets"), py::arg("plugins"),
             py::arg("plugin_dirs"), py::arg("plugin_options"), py::arg("check"), py::arg("jobs"),
             py::arg("companions"), py::arg("tiers"), py::arg("validation"), py::arg("trim_blocks"),
             py::arg("lstrip_blocks"), py::arg("data_dir"), py::arg("plugin_dir"));
}

}  // namespace zf::python
