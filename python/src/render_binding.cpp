// SPDX-License-Identifier: MIT
// _zeroforge.render and _zeroforge.explain: the library's single-template pipeline
// (zeroforge/pipeline.hpp), as `zeroforge render` and `explain` run it, with the GIL released.
// A config that cannot be made raises what the CLI prints; warnings come back as data.
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
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

Validation validation_of(const std::string& mode) {
  if (mode == "contract") return Validation::ByContract;
  if (mode == "deepspeed") return Validation::DeepSpeed;
  if (mode == "none") return Validation::Off;
  throw Error(ErrorKind::Usage,
              "render: validation must be contract, deepspeed or none, got '" + mode + "'");
}

// The request `zeroforge render` makes of its options.
struct Inputs {
  std::string tier;
  std::vector<fs::path> template_dirs;
  py::list values;
  std::vector<std::string> sets;
  std::vector<std::string> plugins;
  std::vector<fs::path> plugin_dirs;
  std::vector<std::string> plugin_options;
  bool trim_blocks = false;
  bool lstrip_blocks = false;
  fs::path data_dir;
  fs::path plugin_dir;
};

ConfigRequest config_request(const std::string& template_name, const Inputs& in) {
  ConfigRequest request;
  request.template_name = template_name;
  request.tier = in.tier;
  request.values_objects = values_layers(in.values);
  request.sets = in.sets;
  request.template_dirs = in.template_dirs;
  request.plugins = in.plugins;
  request.plugin_dirs = in.plugin_dirs;
  request.plugin_options = in.plugin_options;
  request.trim_blocks = in.trim_blocks;
  request.lstrip_blocks = in.lstrip_blocks;
  request.data_dir = in.data_dir;
  request.builtin_plugin_dir = in.plugin_dir;
  return request;
}

// Raises for a Failed or Refused outcome what `zeroforge render` prints on stderr for it
// (render_command.cpp): the errors (for a refusal, then "nothing was written"), or the
// validator's findings and "not written". The first error names the class and location;
// `diagnostics` and `findings` carry everything (warnings among them too).
[[noreturn]] void raise_outcome(Outcome outcome, const std::vector<Diagnostic>& diagnostics,
                                const std::vector<Finding>& findings) {
  std::vector<Diagnostic> errors;
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) errors.push_back(d);
  py::dict extra;
  extra["diagnostics"] = diagnostic_list(diagnostics);
  extra["findings"] = to_python(findings_to_json(findings));
  if (errors.empty()) {
    // The validator refused the config: its findings are the message.
    std::ostringstream out;
    const Finding* first = nullptr;
    for (const auto& f : findings) {
      cli::print_message(out, format_finding(f));
      if (!first && f.severity == Severity::Error) first = &f;
    }
    cli::print_message(out,
                       "zeroforge: not written: the rendered config has errors "
                       "(--no-validate writes it anyway)");
    std::string shown = out.str();
    shown.pop_back();
    extra["code"] = codes::validate_finding;  // as failure_diagnostics and docs/cli.md name it
    Error error = first ? Error(ErrorKind::Values, first->message, first->file, first->pointer)
                        : Error(ErrorKind::Values, "the rendered config has errors");
    raise_error(error, shown, extra, "RefusedError");
  }
  const Diagnostic& first = errors.front();
  std::string shown = printed(errors);
  if (outcome == Outcome::Refused)
    shown +=
        std::string("\nzeroforge: error: nothing was written [") + codes::render_not_rendered + "]";
  raise_diagnostic(first, shown, extra, outcome == Outcome::Refused ? "RefusedError" : nullptr);
}

py::dict render(const std::string& template_name, const Inputs& inputs,
                const std::string& validation) {
  ConfigRequest request = config_request(template_name, inputs);
  request.validation = validation_of(validation);
  RenderResult result;
  {
    EngineCall unlocked;
    result = zf::render(request);
  }
  if (result.outcome != Outcome::Done)
    raise_outcome(result.outcome, result.diagnostics, result.findings);
  py::object findings = to_python(findings_to_json(result.findings));
  py::dict out;
  out["json"] = result.json;
  out["config"] = result.json ? to_python(result.config) : py::object(py::none());
  out["text"] = text(result.text);
  out["findings"] = findings;
  out["diagnostics"] = diagnostic_list(result.diagnostics);
  return out;
}

py::object explained(const std::vector<ExplainedValue>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& v : values)
    out.push_back({{"name", v.name},
                   {"value", v.value},
                   {"layer", layer_kind_name(v.layer)},
                   {"source", v.source}});
  return to_python(out);
}

py::dict explain(const std::string& subject, const std::string& config, const Inputs& inputs) {
  Explanation explanation;
  std::vector<Diagnostic> messages;
  if (subject.ends_with(".j2")) {
    if (!config.empty()) throw Error(ErrorKind::Usage, "explain: config is for families");
    ConfigRequest request = config_request(subject, inputs);
    EngineCall unlocked;
    ConfigSession session = open_config(std::move(request));
    PreparedValues values = prepare_values(session);
    explanation = explain_values(session, values);
    messages = values.messages;
  } else {
    if (!inputs.tier.empty())
      throw Error(ErrorKind::Usage,
                  "explain: tier is for templates; a family's member is chosen with config");
    GenerateRequest request;
    request.family = subject;
    request.template_dirs = inputs.template_dirs;
    request.values_objects = values_layers(inputs.values);
    request.sets = inputs.sets;
    request.plugins = inputs.plugins;
    request.plugin_dirs = inputs.plugin_dirs;
    request.plugin_options = inputs.plugin_options;
    request.trim_blocks = inputs.trim_blocks;
    request.lstrip_blocks = inputs.lstrip_blocks;
    request.data_dir = inputs.data_dir;
    request.builtin_plugin_dir = inputs.plugin_dir;
    // Warnings (a shadowed tier, plugin messages) as the template's explain returns them.
    request.on_message = [&messages](const Diagnostic& d) { messages.push_back(d); };
    EngineCall unlocked;
    explanation = explain_family_config(request, config);
  }
  // No member chosen: the CLI's error, with the family's configs as notes.
  for (const auto& problem : explanation.problems) {
    if (problem.code == codes::explain_choose_config ||
        problem.code == codes::explain_no_such_config)
      raise_outcome(Outcome::Failed, {problem}, {});
  }
  py::dict out;
  out["subject"] = text(explanation.subject);
  out["template"] = text(explanation.template_name);
  if (explanation.tier.empty()) {
    out["tier"] = py::none();
  } else {
    py::dict tier;
    tier["name"] = text(explanation.tier);
    tier["file"] = text(explanation.tier_file);
    out["tier"] = tier;
  }
  out["values"] = explained(explanation.values);
  out["unused"] = explained(explanation.unused);
  out["for_plugins"] = explained(explanation.for_plugins);
  out["for_validator"] = explained(explanation.for_validator);
  out["for_companions"] = explained(explanation.for_companions);
  // As `explain --format json` lists them (explain_command.cpp).
  nlohmann::ordered_json hooks = nlohmann::ordered_json::array();
  for (const auto& change : explanation.output_hooks) {
    nlohmann::ordered_json row = {{"name", change.name}};
    if (change.value) row["value"] = *change.value;
    row["removed"] = !change.value;
    row["layer"] = "output hook";
    row["source"] = change.source;
    if (change.rendered) row["rendered"] = *change.rendered;
    hooks.push_back(std::move(row));
  }
  out["output_hooks"] = to_python(hooks);
  py::list undefined;
  for (const auto& name : explanation.undefined) undefined.append(text(name));
  out["undefined"] = undefined;
  out["derived"] =
      explanation.derived ? to_python(facts_to_json(*explanation.derived)) : py::object(py::none());
  out["problems"] = diagnostic_list(explanation.problems);
  out["refusals"] = diagnostic_list(explanation.refusals);
  out["notes"] = diagnostic_list(explanation.notes);
  out["messages"] = diagnostic_list(messages);
  return out;
}

Inputs inputs_of(std::string tier, std::vector<fs::path> template_dirs, py::list values,
                 std::vector<std::string> sets, std::vector<std::string> plugins,
                 std::vector<fs::path> plugin_dirs, std::vector<std::string> plugin_options,
                 bool trim_blocks, bool lstrip_blocks, fs::path data_dir, fs::path plugin_dir) {
  return Inputs{
      std::move(tier),    std::move(template_dirs), std::move(values),         std::move(sets),
      std::move(plugins), std::move(plugin_dirs),   std::move(plugin_options), trim_blocks,
      lstrip_blocks,      std::move(data_dir),      std::move(plugin_dir)};
}

}  // namespace

void bind_render(py::module_& module) {
  module.def(
      "render",
      [](const std::string& template_name, std::string tier, std::vector<fs::path> template_dirs,
         py::list values, std::vector<std::string> sets, std::vector<std::string> plugins,
         std::vector<fs::path> plugin_dirs, std::vector<std::string> plugin_options,
         const std::string& validation, bool trim_blocks, bool lstrip_blocks, fs::path data_dir,
         fs::path plugin_dir) {
        return render(
            template_name,
            inputs_of(std::move(tier), std::move(template_dirs), std::move(values), std::move(sets),
                      std::move(plugins), std::move(plugin_dirs), std::move(plugin_options),
                      trim_blocks, lstrip_blocks, std::move(data_dir), std::move(plugin_dir)),
            validation);
      },
      py::arg("template"), py::arg("tier"), py::arg("template_dirs"), py::arg("values"),
      py::arg("sets"), py::arg("plugins"), py::arg("plugin_dirs"), py::arg("plugin_options"),
      py::arg("validation"), py::arg("trim_blocks"), py::arg("lstrip_blocks"), py::arg("data_dir"),
      py::arg("plugin_dir"));
  module.def(
      "explain",
      [](const std::string& subject, const std::string& config, std::string tier,
         std::vector<fs::path> template_dirs, py::list values, std::vector<std::string> sets,
         std::vector<std::string> plugins, std::vector<fs::path> plugin_dirs,
         std::vector<std::string> plugin_options, bool trim_blocks, bool lstrip_blocks,
         fs::path data_dir, fs::path plugin_dir) {
        return explain(
            subject, config,
            inputs_of(std::move(tier), std::move(template_dirs), std::move(values), std::move(sets),
                      std::move(plugins), std::move(plugin_dirs), std::move(plugin_options),
                      trim_blocks, lstrip_blocks, std::move(data_dir), std::move(plugin_dir)));
      },
      py::arg("subject"), py::arg("config"), py::arg("tier"), py::arg("template_dirs"),
      py::arg("values"), py::arg("sets"), py::arg("plugins"), py::arg("plugin_dirs"),
      py::arg("plugin_options"), py::arg("trim_blocks"), py::arg("lstrip_blocks"),
      py::arg("data_dir"), py::arg("plugin_dir"));
}

}  // namespace zf::python
