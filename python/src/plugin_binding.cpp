// SPDX-License-Identifier: MIT
// Plugins as the CLI reaches them, through a zf::PluginHost: a command a plugin serves
// (`estimate`, from the memory plugin) and the plugins on the search path.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "engine_call.hpp"
#include "errors.hpp"
#include "json_convert.hpp"
#include "skipped_plugin.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/pipeline.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

// The CLI's search path: plugin_dirs, ZEROFORGE_PLUGIN_PATH, then the shipped plugins.
PluginHostOptions host_options(const std::vector<fs::path>& plugin_dirs, const fs::path& data_dir,
                               const fs::path& plugin_dir) {
  PluginHostOptions options;
  options.plugin_dirs = plugin_dirs;
  options.builtin_dirs = {plugin_dir};
  options.data_dir = data_dir;
  return options;
}

// `zeroforge COMMAND ARGS...` served by `plugin` (plugin_options.cpp, run_plugin_command):
// (exit code, output, the command's own error message or "", the warnings and errors the plugin
// logged as zeroforge.Diagnostic keyword arguments, code `plugin.message`).
py::tuple run_plugin_command(const std::string& plugin, const std::string& command,
                             const std::vector<std::string>& args,
                             const std::vector<fs::path>& plugin_dirs,
                             const std::vector<std::string>& plugin_options,
                             const fs::path& data_dir, const fs::path& plugin_dir) {
  std::vector<PluginOption> options;
  for (const auto& option : plugin_options) options.push_back(parse_plugin_option(option));
  CommandResult result;
  std::vector<PluginMessage> messages;
  {
    EngineCall unlocked;
    PluginHost host(host_options(plugin_dirs, data_dir, plugin_dir));
    host.load({PluginRequest{plugin, nlohmann::ordered_json::object()}}, options);
    if (!host.find_command(command))
      throw Error(ErrorKind::Plugin,
                  "plugin '" + plugin + "' does not provide command '" + command + "'");
    result = host.run_command(command, args);
    messages = host.messages();
  }
  std::vector<Diagnostic> logged;
  for (const auto& message : messages)
    if (auto d = plugin_message_diagnostic(message)) logged.push_back(std::move(*d));
  return py::make_tuple(result.exit_code, text(result.output), text(result.message),
                        diagnostic_list(logged));
}

// What `zeroforge list plugins --format json` prints: {"plugins": [...], "errors": [...]}.
py::object list_plugins(const std::vector<fs::path>& plugin_dirs, const fs::path& data_dir,
                        const fs::path& plugin_dir) {
  using Json = nlohmann::ordered_json;
  PluginHost host(host_options(plugin_dirs, data_dir, plugin_dir));
  Json plugins = Json::array();
  Json errors = Json::array();
  for (const auto& path : host.discover()) {
    try {
      PluginInfo info = PluginHost::inspect(path);
      Json commands = Json::array();
      for (const auto& [name, summary] : info.commands)
        commands.push_back({{"name", name}, {"summary", summary}});
      plugins.push_back({{"name", info.name},
                         {"version", info.version},
                         {"abi", info.abi_version},
                         {"description", info.description},
                         {"path", info.path.string()},
                         {"values_hook", info.has_values_hook},
                         {"output_hook", info.has_output_hook},
                         {"functions", info.functions},
                         {"commands", commands}});
    } catch (const Error& error) {
      errors.push_back(cli::skipped_plugin_json(path, error));
    }
  }
  return to_python(Json{{"plugins", plugins}, {"errors", errors}});
}

}  // namespace

void bind_plugins(py::module_& module) {
  module.def("run_plugin_command", &run_plugin_command, py::arg("plugin"), py::arg("command"),
             py::arg("args"), py::arg("plugin_dirs"), py::arg("plugin_options"),
             py::arg("data_dir"), py::arg("plugin_dir"));
  module.def("list_plugins", &list_plugins, py::arg("plugin_dirs"), py::arg("data_dir"),
             py::arg("plugin_dir"));
}

}  // namespace zf::python
