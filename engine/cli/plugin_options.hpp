// SPDX-License-Identifier: MIT
// The plugin options commands share (--plugin, --plugin-dir, --plugin-opt), turning them into
// a PluginHost, and running a command that a plugin serves (e.g. `estimate`).
#pragma once

#include <boost/program_options/options_description.hpp>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "zeroforge/plugin_host.hpp"

namespace zf::cli {

/// What the plugin options collected.
struct PluginInputs {
  std::vector<std::string> plugins;      ///< --plugin NAME|PATH, in order
  std::vector<std::string> plugin_dirs;  ///< --plugin-dir DIR, in order
  std::vector<std::string> plugin_opts;  ///< --plugin-opt NAME.key=value, in order
};

/// Adds --plugin, --plugin-dir and --plugin-opt.
void add_plugin_options(boost::program_options::options_description& options, PluginInputs& inputs);

/// The host options the CLI uses: --plugin-dir, then ZEROFORGE_PLUGIN_PATH, then the plugins
/// shipped next to the executable; zeroforge's data dir for plugins.
PluginHostOptions plugin_host_options(const PluginInputs& inputs);

/// A PluginHost with `requests` (e.g. a family's plugin list, options included) loaded first,
/// then each --plugin, with the --plugin-opt options merged over theirs. Plugin warnings and
/// errors they log are printed to stderr as the diagnostics `plugin.message` (print_diagnostic:
/// `zeroforge: warning: plugin 'NAME': ...`).
std::unique_ptr<PluginHost> make_plugin_host(const PluginInputs& inputs,
                                             const std::vector<PluginRequest>& requests = {});

/// Serves `zeroforge COMMAND ARGS...` from plugin `plugin` (found on the plugin search path;
/// leading --plugin-dir DIR and --plugin-opt NAME.key=value arguments are taken by zeroforge,
/// the rest go to the plugin): prints its output, returns its exit code. For commands.cpp:
///     {"estimate", "...", [](const std::vector<std::string>& a) { return
///     run_plugin_command("memory", "estimate", a); }},
int run_plugin_command(const std::string& plugin, const std::string& command,
                       const std::vector<std::string>& args);

/// `zeroforge list plugins [--plugin-dir D]... [--format text|json]`: every plugin on the
/// search path with name, version, ABI and hooks. `args` are the arguments after `plugins`.
int list_plugins(const std::vector<std::string>& args);

}  // namespace zf::cli
