// SPDX-License-Identifier: MIT
// `zeroforge explain TEMPLATE|FAMILY`: each value the template reads, with the layer it came
// from (template default, tier, family, variant, values file, --set, plugin): `helm template
// --debug`, per value. For a family, one member, chosen by its output path.
#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "plugin_options.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::cli {
namespace po = boost::program_options;
using Json = nlohmann::ordered_json;

namespace {

struct ExplainOptions {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string subject;
  std::string config;
  std::string format = "text";
};

// zeroforge's JSON text (same number forms as the output) on one line: `[0.9, 0.999]`.
std::string one_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    if (!out.empty() && out.back() == ',') out += ' ';
  }
  return out;
}

void print_rows(std::ostream& out, const std::vector<ExplainedValue>& rows) {
  std::vector<std::string> values;
  std::size_t width = 0;
  for (const auto& row : rows) {
    values.push_back(one_line(to_json_text(row.value)));
    width = std::max(width, row.name.size() + 3 + values.back().size());
  }
  width = std::min<std::size_t>(width, 56);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ExplainedValue& row = rows[i];
    std::string left = row.name + " = " + values[i];
    if (left.size() < width) left.resize(width, ' ');
    // A label that starts with its layer's name (`--set stage=3`) is shown once.
    const std::string layer = layer_kind_name(row.layer);
    const bool named = row.source.rfind(layer, 0) == 0;
    print_message(out, "  " + left + "  " + (named ? row.source : layer + ": " + row.source));
  }
}

Json rows_to_json(const std::vector<ExplainedValue>& rows) {
  Json out = Json::array();
  for (const auto& row : rows) {
    // The value as the text output shows it, read back (`1e3` stays a float).
    out.push_back({{"name", row.name},
                   {"value", parse_json_text(one_line(to_json_text(row.value)), row.name,
                                             JsonNumbers::AsWritten)},
                   {"layer", layer_kind_name(row.layer)},
                   {"source", row.source}});
  }
  return out;
}

// The output hooks' layer: each field they changed in the rendered config, the value after them
// (or `removed`), the plugin, and what the template had rendered there.
void print_output_hooks(std::ostream& out, const std::vector<OutputHookChange>& changes) {
  std::vector<std::string> lefts;
  std::size_t width = 0;
  for (const auto& change : changes) {
    lefts.push_back(change.name + (change.value ? " = " + one_line(to_json_text(*change.value))
                                                : std::string(" removed")));
    width = std::max(width, lefts.back().size());
  }
  width = std::min<std::size_t>(width, 56);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    std::string left = lefts[i];
    if (left.size() < width) left.resize(width, ' ');
    const auto& rendered = changes[i].rendered;
    print_message(out,
                  "  " + left + "  output hook: " + changes[i].source +
                      (rendered ? " (the template wrote " + one_line(to_json_text(*rendered)) + ")"
                                : std::string(" (the template wrote nothing there)")));
  }
}

Json output_hooks_to_json(const std::vector<OutputHookChange>& changes) {
  Json out = Json::array();
  auto shown = [](const Json& value, const std::string& name) {
    return parse_json_text(one_line(to_json_text(value)), name, JsonNumbers::AsWritten);
  };
  for (const auto& change : changes) {
    Json row = {{"name", change.name}};
    if (change.value) row["value"] = shown(*change.value, change.name);
    row["removed"] = !change.value;
    row["layer"] = "output hook";
    row["source"] = change.source;
    if (change.rendered) row["rendered"] = shown(*change.rendered, change.name);
    out.push_back(std::move(row));
  }
  return out;
}

// Prints `explanation` (stdout), then its problems and refusals (stderr); the exit code.
int print_explanation(const ExplainOptions& opt, const Explanation& explanation) {
  const DeepSpeedFacts* facts = explanation.derived ? &*explanation.derived : nullptr;
  if (opt.format == "json") {
    Json out = {{"subject", explanation.subject},
                {"template", explanation.template_name},
                {"tier", explanation.tier.empty()
                             ? Json(nullptr)
                             : Json{{"name", explanation.tier}, {"file", explanation.tier_file}}},
                {"values", rows_to_json(explanation.values)},
                {"output_hooks", output_hooks_to_json(explanation.output_hooks)},
                {"unused", rows_to_json(explanation.unused)},
                {"for_plugins", rows_to_json(explanation.for_plugins)},
                {"for_validator", rows_to_json(explanation.for_validator)},
                {"for_companions", rows_to_json(explanation.for_companions)},
                {"undefined", explanation.undefined}};
    if (facts) out["derived"] = facts_to_json(*facts);
    // What stderr says too, with each diagnostic's code and kind for scripts.
    std::vector<Diagnostic> diagnostics = explanation.problems;
    diagnostics.insert(diagnostics.end(), explanation.refusals.begin(), explanation.refusals.end());
    diagnostics.insert(diagnostics.end(), explanation.notes.begin(), explanation.notes.end());
    out["diagnostics"] = diagnostics_to_json(diagnostics);
    std::cout << to_json_text(out);
  } else {
    print_message(std::cout, explanation.subject);
    if (!explanation.tier.empty())
      print_message(std::cout, "tier " + explanation.tier + ": " + explanation.tier_file);
    print_message(std::cout, "values " + explanation.template_name +
                                 " reads (value, then the layer that set it):");
    print_rows(std::cout, explanation.values);
    if (!explanation.output_hooks.empty()) {
      print_message(std::cout,
                    "changed in the rendered config by output hooks (over every layer above):");
      print_output_hooks(std::cout, explanation.output_hooks);
    }
    if (facts) {
      print_message(std::cout, "derived:");
      print_message(
          std::cout,
          "  world_size = " + std::to_string(facts->world_size) +
              ", gradient_accumulation = " + std::to_string(facts->gradient_accumulation) +
              ", train_batch_size = " + std::to_string(facts->train_batch_size) + " (" +
              std::to_string(facts->micro_batch_size) + " x " +
              std::to_string(facts->gradient_accumulation) + " x " +
              std::to_string(facts->world_size) + ")");
    }
    if (!explanation.undefined.empty()) {
      print_message(std::cout, "read by the template but not set (it must guard them):");
      for (const auto& name : explanation.undefined) print_message(std::cout, "  " + name);
    }
    if (!explanation.for_plugins.empty()) {
      print_message(std::cout, "for plugins (tier facts and auto_fit; no template reads them):");
      print_rows(std::cout, explanation.for_plugins);
    }
    if (!explanation.for_validator.empty()) {
      print_message(std::cout, "for the validator (no template reads them):");
      print_rows(std::cout, explanation.for_validator);
    }
    if (!explanation.for_companions.empty()) {
      print_message(std::cout, "for companions (launch; the config template does not read it):");
      print_rows(std::cout, explanation.for_companions);
    }
    if (!explanation.unused.empty()) {
      print_message(std::cout, "set but not read by the template:");
      print_rows(std::cout, explanation.unused);
    }
  }
  print_diagnostics(std::cerr, explanation.problems);
  print_diagnostics(std::cerr, explanation.refusals);
  print_diagnostics(std::cerr, explanation.notes);
  return exit_code_of(explanation.outcome());
}

int explain_template(const ExplainOptions& opt) {
  ConfigSession session = open_config(config_request(opt.subject, opt.inputs, opt.plugin_inputs));
  const PreparedValues values = prepare_values(session);
  if (!values.layered) {  // a tier with unknown keys: nothing worth explaining
    print_diagnostics(std::cerr, values.problems);
    return kError;
  }
  return print_explanation(opt, explain_values(session, values));
}

int explain_family(const ExplainOptions& opt) {
  GenerateRequest request = family_request(opt.subject, opt.inputs, opt.plugin_inputs);
  request.on_message = [](const Diagnostic& d) { print_diagnostic(std::cerr, d); };
  const Explanation explanation = explain_family_config(request, opt.config);
  if (explanation.template_name.empty()) {  // no member chosen: why, and the choices
    print_diagnostics(std::cerr, explanation.problems);
    return kError;
  }
  return print_explanation(opt, explanation);
}

}  // namespace

int run_explain(const std::vector<std::string>& args) {
  ExplainOptions opt;
  po::options_description options("zeroforge explain TEMPLATE|FAMILY [options]");
  options.add_options()("help,h", "show this help")(
      "config", po::value(&opt.config),
      "for a family: the member to explain, by its output path (its path in manifest.json)")(
      "format", po::value(&opt.format), "text (default) or json");
  add_value_options(options, opt.inputs);
  add_template_options(options, opt.inputs);
  add_plugin_options(options, opt.plugin_inputs);
  po::options_description hidden;
  hidden.add_options()("subject", po::value(&opt.subject));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("subject", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout
        << "Prints each value a template reads and the layer it came from (template default,\n"
           "tier, family, variant, values file, --set, plugin), the values it derives, and\n"
           "values set but never read. TEMPLATE ends in .j2 (layers: --tier, --values, --set);\n"
           "anything else is a family (file or shipped name) and --config picks a member.\n\n"
        << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (opt.subject.empty()) throw Error(ErrorKind::Usage, "explain: missing TEMPLATE or FAMILY");
  if (opt.format != "text" && opt.format != "json") {
    throw Error(ErrorKind::Usage, "explain: --format must be text or json");
  }
  if (opt.format == "json") report_errors_as_json("diagnostics");
  if (opt.subject.ends_with(".j2")) {
    if (!opt.config.empty()) throw Error(ErrorKind::Usage, "explain: --config is for families");
    return explain_template(opt);
  }
  if (!opt.inputs.tier.empty()) {
    throw Error(ErrorKind::Usage,
                "explain: --tier is for templates; a family's member is chosen with --config");
  }
  return explain_family(opt);
}

}  // namespace zf::cli
