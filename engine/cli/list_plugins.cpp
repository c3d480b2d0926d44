// SPDX-License-Identifier: MIT
// `zeroforge list plugins`: every plugin file on the search path, inspected (never initialised),
// with name, version, ABI and hooks; files that fail to load are reported and skipped.
#include <boost/program_options.hpp>
#include <iostream>

#include "command.hpp"
#include "diagnostic_printer.hpp"
#include "plugin_options.hpp"
#include "skipped_plugin.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf::cli {
namespace po = boost::program_options;

namespace {

std::string hooks_of(const PluginInfo& info) {
  std::string out;
  auto add = [&](const std::string& item) { out += (out.empty() ? "" : ", ") + item; };
  if (info.has_values_hook) add("values");
  if (info.has_output_hook) add("output");
  for (const auto& f : info.functions) add(f);
  for (const auto& [name, summary] : info.commands) add("command " + name);
  return out.empty() ? "-" : out;
}

}  // namespace

int list_plugins(const std::vector<std::string>& args) {
  PluginInputs inputs;
  std::string format = "text";
  po::options_description options("zeroforge list plugins [options]");
  options.add_options()("help,h", "show this help")(
      "plugin-dir", po::value(&inputs.plugin_dirs)->composing(),
      "directory searched before ZEROFORGE_PLUGIN_PATH and the built-in plugins (repeatable)")(
      "format", po::value(&format), "text (default) or json");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    std::cout << "Lists the plugins found on the plugin search path: --plugin-dir directories,\n"
                 "then ZEROFORGE_PLUGIN_PATH, then the plugins shipped with zeroforge.\n\n"
              << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (format != "text" && format != "json") {
    throw Error(ErrorKind::Usage, "--format must be text or json, got '" + format + "'");
  }
  if (format == "json") report_errors_as_json();

  PluginHost host(plugin_host_options(inputs));
  std::vector<PluginInfo> found;
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const auto& path : host.discover()) {
    try {
      found.push_back(PluginHost::inspect(path));
    } catch (const Error& error) {
      errors.push_back(skipped_plugin_json(path, error));
      if (format == "text") print_diagnostic(std::cerr, skipped_plugin(error));
    }
  }
  if (format == "json") {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& info : found) {
      nlohmann::ordered_json commands = nlohmann::ordered_json::array();
      for (const auto& [name, summary] : info.commands)
        commands.push_back({{"name", name}, {"summary", summary}});
      out.push_back({{"name", info.name},
                     {"version", info.version},
                     {"abi", info.abi_version},
                     {"description", info.description},
                     {"path", info.path.string()},
                     {"values_hook", info.has_values_hook},
                     {"output_hook", info.has_output_hook},
                     {"functions", info.functions},
                     {"commands", commands}});
    }
    std::cout << to_json_text({{"plugins", out}, {"errors", errors}});
    return kSuccess;
  }
  if (found.empty()) {
    std::cout << "no plugins found\n";
    return kSuccess;
  }
  std::size_t name_width = 4, version_width = 7;
  for (const auto& info : found) {
    name_width = std::max(name_width, info.name.size());
    version_width = std::max(version_width, info.version.size());
  }
  auto pad = [](std::string text, std::size_t width) {
    text.resize(std::max(width, text.size()), ' ');
    return text;
  };
  print_message(std::cout,
                pad("NAME", name_width) + "  " + pad("VERSION", version_width) + "  ABI  HOOKS");
  for (const auto& info : found) {
    print_message(std::cout, pad(info.name, name_width) + "  " + pad(info.version, version_width) +
                                 "  " + pad(std::to_string(info.abi_version), 3) + "  " +
                                 hooks_of(info));
    print_message(std::cout, pad("", name_width) + "  " + info.path.string());
  }
  return kSuccess;
}

}  // namespace zf::cli
