// SPDX-License-Identifier: MIT
// `zeroforge explain TEMPLATE|FAMILY`: each value the template reads, with the layer it came
// from (template default, tier, family, variant, values file, --set, plugin): `helm template
// --debug`, per value. For a family, one member, chosen by its output path.
#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "generate/family_inputs.hpp"
#include "plugin_options.hpp"
#include "template_values.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"

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

struct Row {
  std::string name;
  std::string value;
  std::string layer;
  std::string source;
};

std::string dotted(const std::string& pointer) {
  std::string name;
  for (char c : pointer.substr(1)) name += c == '/' ? '.' : c;
  return name;
}

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

// The rows for every leaf under the names the template reads; `unused` gets the others.
std::vector<Row> explain_values(const Template& tpl, const LayeredValues& values,
                                std::vector<Row>& unused, std::vector<Row>& for_plugins,
                                std::vector<std::string>& undefined) {
  std::vector<std::string> used = tpl.undeclared_variables();
  std::vector<Row> rows;
  for (const auto& [pointer, source] : values.leaves()) {
    Row row{dotted(pointer),
            one_line(to_json_text(values.merged().at(Json::json_pointer(pointer)))),
            layer_kind_name(source.kind), source.label};
    std::string top = row.name.substr(0, row.name.find('.'));
    bool reads = std::find(used.begin(), used.end(), top) != used.end();
    (reads ? rows : is_plugin_fact(top) ? for_plugins : unused).push_back(std::move(row));
  }
  for (const auto& name : used) {
    if (!values.merged().contains(name)) undefined.push_back(name);
  }
  return rows;
}

void print_rows(std::ostream& out, const std::vector<Row>& rows) {
  std::size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.name.size() + 3 + row.value.size());
  width = std::min<std::size_t>(width, 56);
  for (const auto& row : rows) {
    std::string left = row.name + " = " + row.value;
    if (left.size() < width) left.resize(width, ' ');
    // A label that starts with its layer's name (`--set stage=3`) is shown once.
    const bool named = row.source.rfind(row.layer, 0) == 0;
    print_message(out, "  " + left + "  " + (named ? row.source : row.layer + ": " + row.source));
  }
}

Json rows_to_json(const std::vector<Row>& rows) {
  Json out = Json::array();
  for (const auto& row : rows) {
    out.push_back({{"name", row.name},
                   {"value", parse_json_text(row.value, row.name, JsonNumbers::AsWritten)},
                   {"layer", row.layer},
                   {"source", row.source}});
  }
  return out;
}

int print_explanation(const ExplainOptions& opt, const std::string& title, const Template& tpl,
                      const LayeredValues& values, const std::vector<Error>& problems,
                      const DeepSpeedFacts* facts) {
  std::vector<Row> unused, for_plugins;
  std::vector<std::string> undefined;
  std::vector<Row> rows = explain_values(tpl, values, unused, for_plugins, undefined);
  if (opt.format == "json") {
    Json out = {{"subject", title},
                {"template", tpl.name()},
                {"values", rows_to_json(rows)},
                {"unused", rows_to_json(unused)},
                {"for_plugins", rows_to_json(for_plugins)},
                {"undefined", undefined}};
    if (facts) out["derived"] = facts_to_json(*facts);
    std::cout << to_json_text(out);
  } else {
    print_message(std::cout, title);
    print_message(std::cout,
                  "values " + tpl.name() + " reads (value, then the layer that set it):");
    print_rows(std::cout, rows);
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
    if (!undefined.empty()) {
      print_message(std::cout, "read by the template but not set (it must guard them):");
      for (const auto& name : undefined) print_message(std::cout, "  " + name);
    }
    if (!for_plugins.empty()) {
      print_message(std::cout, "for plugins (tier facts and auto_fit; no template reads them):");
      print_rows(std::cout, for_plugins);
    }
    if (!unused.empty()) {
      print_message(std::cout, "set but not read by the template:");
      print_rows(std::cout, unused);
    }
  }
  for (const auto& problem : problems) print_error(std::cerr, problem);
  return problems.empty() ? kSuccess : kError;
}

int explain_template(const ExplainOptions& opt) {
  auto environment = make_environment(opt.inputs);
  auto plugins = make_plugin_host(opt.plugin_inputs);
  plugins->register_functions(*environment);
  check_template_argument(*environment, opt.subject);
  auto tpl = environment->load(opt.subject);
  const TemplateDefaults defaults = load_template_defaults(*environment, opt.subject);
  LayeredValues values;
  apply_template_defaults(defaults, values);
  apply_value_layers(opt.inputs, values, *tpl);
  auto hooks = plugins->run_values_hooks(
      values,
      {{"template", opt.subject}, {"tier", opt.inputs.tier}, {"pinned", defaults.pins.names()}});
  DeepSpeedFacts facts;
  std::vector<Error> problems = template_value_problems(defaults, values, &facts);
  bool deepspeed = defaults.contract == "deepspeed";
  int code = print_explanation(opt, "template " + opt.subject, *tpl, values, problems,
                               deepspeed && problems.empty() ? &facts : nullptr);
  bool refused = print_plugin_findings(std::cerr, opt.subject, hooks.findings);
  return refused && code == kSuccess ? kFindings : code;
}

int explain_family(const ExplainOptions& opt) {
  pipeline::FamilySetup setup =
      pipeline::load_family_setup(family_request(opt.subject, opt.inputs, opt.plugin_inputs),
                                  [](std::string_view line) { print_message(std::cerr, line); });
  const Expansion& expansion = *setup.expansion;
  const Family& family = expansion.family();
  auto output_path = setup.environment->from_string(family.output, family.file + " /output");

  // Each member is found by the path generate writes it to (manifest.json's `path`): with
  // plugins, the path of the values after their hooks, since auto-fit chooses values (stage,
  // micro_batch_size, ...) an output pattern may name. A hook's findings change no value.
  auto hook_context = [&](const Variant& variant) {
    return Json{{"template", family.template_name},
                {"family", family.name},
                {"tier", expansion.tier_name(variant)},
                {"variant", variant.choice},
                {"pinned", setup.pins.names()}};
  };
  std::optional<Variant> chosen;
  std::optional<SourcedValues> chosen_values;
  ValuesHookResult hooks;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < expansion.size(); ++i) {
    Variant variant = expansion.variant(i);
    // Without plugins the merged values alone name the file (no provenance: fast).
    std::optional<SourcedValues> values;
    ValuesHookResult variant_hooks;
    if (!setup.plugins->empty()) {
      values = expansion.values(variant);
      variant_hooks =
          setup.plugins->run_values_hooks(values->layered_for_hooks(), hook_context(variant));
    }
    Json scope = values ? values->merged() : expansion.merged(variant);
    scope["tier"] = expansion.tier_name(variant);
    scope["family"] = family.name;
    scope["variant"] = variant.slug;
    std::string path = check_output_path(output_path->render(Value::from_json(scope)), family);
    if (path == opt.config || (opt.config.empty() && expansion.size() == 1)) {
      if (chosen) {
        // generate refuses such a family; explaining one of the two would explain a config
        // that is never written.
        throw Error(ErrorKind::Values,
                    "variant '" + expansion.describe(variant) + "': writes \"" + path +
                        "\", the same output path as variant '" + expansion.describe(*chosen) +
                        "': make the output pattern tell them apart",
                    family.file, "/output");
      }
      chosen_values = values ? std::move(values) : expansion.values(variant);
      chosen = std::move(variant);
      hooks = std::move(variant_hooks);
    }
    paths.push_back(std::move(path));
  }
  if (!chosen) {
    std::string message = opt.config.empty()
                              ? "explain: family '" + family.name + "' has " +
                                    std::to_string(paths.size()) +
                                    " configs; choose one with --config PATH:"
                              : "explain: no config '" + opt.config + "' in family '" +
                                    family.name + "'; its configs:";
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    // The message, then the configs a line each (a message is one line: print_message).
    print_message(std::cerr, "zeroforge: error: " + message);
    for (std::size_t i = 0; i < paths.size() && i < 20; ++i)
      print_message(std::cerr, "  " + paths[i]);
    if (paths.size() > 20)
      print_message(std::cerr, "  ... (" + std::to_string(paths.size() - 20) + " more)");
    return kError;
  }
  SourcedValues& values = *chosen_values;
  std::vector<Error> problems = check_pinned_values(setup.pins, values.merged(), &values);
  DeepSpeedFacts facts;
  bool deepspeed = setup.contract == "deepspeed";
  if (deepspeed) {
    ContractCheck check = check_deepspeed_values(values.merged(), &values);
    facts = check.facts;
    for (auto& problem : check.problems) problems.push_back(std::move(problem));
  }
  std::string title = "config " + (opt.config.empty() ? paths.front() : opt.config) +
                      " of family " + family.name + " (" + family.file + "), variant '" +
                      expansion.describe(*chosen) + "'";
  int code = print_explanation(opt, title, *setup.template_, values.layered(), problems,
                               deepspeed && problems.empty() ? &facts : nullptr);
  for (auto& finding : hooks.findings) pipeline::place_finding(finding, values);
  bool refused = print_plugin_findings(std::cerr, family.file, hooks.findings);
  return refused && code == kSuccess ? kFindings : code;
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
