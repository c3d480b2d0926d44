// SPDX-License-Identifier: MIT
// `zeroforge render TEMPLATE`: one template over layered values, to a file or stdout.
#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "plugin_options.hpp"
#include "template_values.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"

namespace zf::cli {
namespace po = boost::program_options;

// validate_command.cpp: prints the validator's findings on a rendered DeepSpeed config to
// stderr; false when it has errors (then nothing is written).
bool check_rendered_config(const nlohmann::ordered_json& config,
                           const nlohmann::ordered_json& values, const std::string& label);

int run_render(const std::vector<std::string>& args) {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string template_name;
  std::string output;
  ValidationInputs validation_inputs;
  po::options_description options("zeroforge render TEMPLATE [options]");
  options.add_options()("help,h", "show this help")("output,o", po::value(&output),
                                                    "write to FILE (atomically) instead of stdout");
  add_validation_options(options, validation_inputs,
                         "write a rendered DeepSpeed config even when the validator finds errors");
  add_value_options(options, inputs);
  add_template_options(options, inputs);
  add_plugin_options(options, plugin_inputs);
  po::options_description hidden;
  hidden.add_options()("template", po::value(&template_name));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("template", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Renders TEMPLATE (a name on the template search path, e.g.\n"
                 "deepspeed/config.json.j2) over values: --tier < --values files < --set.\n"
                 ".json templates are parsed and written as normalised JSON.\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (template_name.empty()) throw Error(ErrorKind::Usage, "render: missing TEMPLATE");
  const Validation validation = validation_of(validation_inputs);

  auto environment = make_environment(inputs);
  auto plugins = make_plugin_host(plugin_inputs);
  plugins->register_functions(*environment);
  check_template_argument(*environment, template_name);
  const TemplateDefaults defaults = load_template_defaults(*environment, template_name);
  auto tpl = environment->load(template_name);
  LayeredValues values;
  apply_template_defaults(defaults, values);
  apply_value_layers(inputs, values, *tpl);
  const nlohmann::ordered_json hook_context = {
      {"template", template_name}, {"tier", inputs.tier}, {"pinned", defaults.pins.names()}};
  auto hooks = plugins->run_values_hooks(values, hook_context);
  if (print_plugin_findings(std::cerr, template_name, hooks.findings)) {
    print_message(std::cerr, "zeroforge: error: nothing was written");
    return kFindings;
  }
  check_template_values(defaults, values);
  warn_unread_values(*tpl, values);
  warn_overridden_block_values(*tpl, values);
  Value context = Value::from_json(values.merged());
  std::string text;
  if (tpl->is_json()) {
    auto config =
        plugins->run_output_hooks(tpl->render_json(context), values.merged(), hook_context).config;
    const bool validate =
        validation == Validation::DeepSpeed ||
        (validation == Validation::ByContract && defaults.contract == "deepspeed");
    if (validate &&
        !check_rendered_config(config, values.merged(),
                               output.empty() || output == "-" ? template_name : output)) {
      return kFindings;
    }
    text = to_json_text(config);
  } else {
    text = tpl->render(context);
  }
  if (output.empty() || output == "-") {
    std::cout << text;
    std::cout.flush();
  } else {
    write_file_atomically(output, text);
  }
  return kSuccess;
}

}  // namespace zf::cli
