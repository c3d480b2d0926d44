// SPDX-License-Identifier: MIT
// --plugin, --plugin-dir and --plugin-opt; the CLI's PluginHost; commands served by plugins.
#include "plugin_options.hpp"

#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::cli {
namespace po = boost::program_options;

void add_plugin_options(po::options_description& options, PluginInputs& inputs) {
  options.add_options()(
      "plugin", po::value(&inputs.plugins)->composing(),
      "load plugin NAME (from the plugin search path) or PATH (a .so file); hooks run in the "
      "order given (repeatable)")(
      "plugin-dir", po::value(&inputs.plugin_dirs)->composing(),
      "directory searched for plugins before ZEROFORGE_PLUGIN_PATH and the built-in ones "
      "(repeatable)")(
      "plugin-opt", po::value(&inputs.plugin_opts)->composing(),
      "NAME.KEY=VALUE: option KEY of plugin NAME; VALUE is JSON if it parses, else a string "
      "(repeatable)");
}

PluginHostOptions plugin_host_options(const PluginInputs& inputs) {
  return zf::plugin_host_options(config_request("", CommonInputs{}, inputs));
}

std::unique_ptr<PluginHost> make_plugin_host(const PluginInputs& inputs,
                                             const std::vector<PluginRequest>& requests) {
  const ConfigRequest request = config_request("", CommonInputs{}, inputs);
  return zf::make_plugin_host(request, requests, request.on_diagnostic);
}

int run_plugin_command(const std::string& plugin, const std::string& command,
                       const std::vector<std::string>& args) {
  PluginInputs inputs;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto take = [&](const char* flag, std::vector<std::string>& into) {
      std::string prefix = std::string(flag) + "=";
      if (arg == flag) {
        if (i + 1 >= args.size())
          throw Error(ErrorKind::Usage, std::string(flag) + " needs a value");
        into.push_back(args[++i]);
        return true;
      }
      if (arg.rfind(prefix, 0) == 0) {
        into.push_back(arg.substr(prefix.size()));
        return true;
      }
      return false;
    };
    if (take("--plugin-dir", inputs.plugin_dirs) || take("--plugin-opt", inputs.plugin_opts))
      continue;
    rest.push_back(arg);
  }
  inputs.plugins.push_back(plugin);
  auto host = make_plugin_host(inputs);
  if (!host->find_command(command)) {
    throw Error(ErrorKind::Plugin,
                "plugin '" + plugin + "' does not provide command '" + command + "'");
  }
  CommandResult result = host->run_command(command, rest);
  if (!result.message.empty()) {
    // The command's own verdict on its arguments, phrased as the built-in commands do.
    print_coded_line(std::cerr, "zeroforge " + command + ": error: " + result.message,
                     codes::usage_invalid);
    print_message(std::cerr, "Run 'zeroforge " + command + " --help' for usage.");
  }
  std::cout << result.output;
  if (!result.output.empty() && result.output.back() != '\n') std::cout << '\n';
  std::cout.flush();
  return result.exit_code;
}

}  // namespace zf::cli
