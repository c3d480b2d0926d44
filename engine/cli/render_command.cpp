// SPDX-License-Identifier: MIT
// `zeroforge render TEMPLATE`: one template over layered values, to a file or stdout.
#include <boost/program_options.hpp>
#include <iostream>
#include <utility>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "plugin_options.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::cli {
namespace po = boost::program_options;

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

  ConfigRequest request = config_request(template_name, inputs, plugin_inputs);
  request.validation = validation;
  ConfigSession session = open_config(std::move(request));
  const PreparedValues values = prepare_values(session);
  // The outcome rule every entry point shares (PreparedValues::outcome): bad values are
  // exit 2 whatever a plugin said; a plugin's refusal alone is a finding, exit 1.
  if (const Outcome outcome = values.outcome(); outcome != Outcome::Done) {
    print_diagnostics(std::cerr, values.problems);
    print_diagnostics(std::cerr, values.refusals);
    if (outcome == Outcome::Refused)
      print_coded_line(std::cerr, "zeroforge: error: nothing was written",
                       codes::render_not_rendered);
    return exit_code_of(outcome);
  }
  print_diagnostics(std::cerr, values.warnings);
  const RenderedConfig rendered = render_config(session, values);
  const std::string label = output.empty() || output == "-" ? template_name : output;
  const ValidatedConfig validated = validate_rendered(session, values, rendered, label);
  for (const auto& f : validated.findings) print_message(std::cerr, format_finding(f));
  if (validated.outcome() != Outcome::Done) {
    print_message(std::cerr,
                  "zeroforge: not written: the rendered config has errors (--no-validate writes "
                  "it anyway)");
    return kFindings;
  }
  const std::string& text = rendered.text;
  if (output.empty() || output == "-") {
    std::cout << text;
    std::cout.flush();
  } else {
    write_file_atomically(output, text);
  }
  return kSuccess;
}

}  // namespace zf::cli
