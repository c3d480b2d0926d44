// SPDX-License-Identifier: MIT
// zf::PluginHost: finds, loads and runs plugins (shared libraries speaking the C ABI of
// zeroforge/plugin.h): values hooks, output hooks, template functions and CLI commands.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>  // full type: ordered_json members and default arguments
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/values.hpp"

namespace zf {

/// Where plugins are looked for and what the host tells them.
struct PluginHostOptions {
  /// Searched first, in order (the CLI's `--plugin-dir`).
  std::vector<std::filesystem::path> plugin_dirs;
  /// Also search the `:`-separated directories of the ZEROFORGE_PLUGIN_PATH environment
  /// variable, after `plugin_dirs`.
  bool use_environment = true;
  /// Searched last: the plugins shipped with zeroforge (`<prefix>/lib/zeroforge/plugins`).
  std::vector<std::filesystem::path> builtin_dirs;
  /// zeroforge's data directory, passed on to plugins (`zf_host.data_dir`).
  std::filesystem::path data_dir;
};

/// Severity of a plugin's log message (ZF_LOG_DEBUG ... ZF_LOG_ERROR).
enum class PluginLogLevel { Debug, Info, Warning, Error };

/// A message a plugin logged through `zf_host.log`, or one the host gave about what the
/// plugin asked of it (a host service's warning, such as a shadowed tier from find_tier).
struct PluginMessage {
  std::string plugin;
  PluginLogLevel level;
  std::string text;
  /// The host's own diagnostic code (`tier.shadowed`); empty for what the plugin logged.
  std::string code = {};
};

/// One plugin to load: by name (`site_fields`, found on the search path as `site_fields.so`
/// or `libsite_fields.so`) or by path (anything containing `/` or ending in `.so`), with
/// its options (a JSON object, e.g. from a family file's plugin list).
struct PluginRequest {
  // A constructor rather than an aggregate, so that `{name, options}` stays complete as
  // fields are added.
  PluginRequest(std::string name,
                nlohmann::ordered_json plugin_options = nlohmann::ordered_json::object(),
                std::filesystem::path options_dir = {})
      : name_or_path(std::move(name)),
        options(std::move(plugin_options)),
        base_dir(std::move(options_dir)) {}
  PluginRequest(const char* name,
                nlohmann::ordered_json plugin_options = nlohmann::ordered_json::object(),
                std::filesystem::path options_dir = {})
      : PluginRequest(std::string(name), std::move(plugin_options), std::move(options_dir)) {}

  std::string name_or_path;
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  /// Where the options were written: a relative path in one of the plugin's path options
  /// (PluginInfo::path_options) is resolved against it before the plugin starts (a family
  /// file's directory). Empty: as given, relative to the working directory.
  std::filesystem::path base_dir;
};

/// Options for one plugin from the command line, e.g. from `--plugin-opt
/// site_fields.profile=x.json`.
struct PluginOption {
  std::string plugin;              ///< the plugin's name
  nlohmann::ordered_json options;  ///< an object merged over the plugin's other options
  std::string origin;              ///< for errors, e.g. `--plugin-opt site_fields.profile=x.json`
};

/// Parses `NAME.key=value` (VALUE is JSON if it parses, else a string; `key` may be dotted,
/// as with `--set`). Throws zf::Error (Usage) when NAME or key is missing.
PluginOption parse_plugin_option(std::string_view text);

/// What a loaded (or inspected) plugin offers.
struct PluginInfo {
  std::string name;
  std::string version;
  std::string description;
  std::filesystem::path path;
  std::uint32_t abi_version = 0;
  bool has_values_hook = false;
  bool has_output_hook = false;
  /// Template functions as `function NAME`, `filter NAME` or `test NAME`.
  std::vector<std::string> functions;
  /// CLI commands with their one-line summaries.
  std::vector<std::pair<std::string, std::string>> commands;
  /// The plugin's effective options (after `PluginOption`s were merged).
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  /// The option names the plugin declares (zf_plugin::option_names), when it declares them.
  std::optional<std::vector<std::string>> option_names;
  /// The options whose string value is a path (zf_plugin::path_options).
  std::vector<std::string> path_options;
};

/// A values hook's refusal of one config's values (e.g. the memory plugin's "does not fit"):
/// the inputs are well-formed, but the config cannot be made as asked. Commands report it
/// as a finding (exit 1) and write nothing.
struct PluginFinding {
  std::string plugin;
  std::string pointer;  ///< JSON pointer into the values, or ""
  std::string message;
  /// Where the value at `pointer` was written, when the command knows its layers' files
  /// (generate, explain): the file (for `--set` the assignment) and the pointer in it, e.g.
  /// `fam.json` and `/values/stage`; both empty otherwise.
  std::string file;
  std::string file_pointer;
};

/// A values hook's finding as a diagnostic (`plugin.refused`, reporter the plugin): at the
/// file and pointer it was placed at (PluginFinding::file), else at `subject` (the template
/// or family file): `fam.json: /values/stage: error [memory]: ...`.
Diagnostic to_diagnostic(const PluginFinding& finding, const std::string& subject);

/// A message a plugin logged as the diagnostic `plugin.message` (severity Warning or Error, kind
/// Plugin, no location), printed `zeroforge: warning: plugin 'NAME': TEXT` (a host's message
/// with a code: that code, kind Values, the text alone); nullopt for the
/// levels below Warning, which the CLI does not show. Every caller that shows plugin messages
/// (the CLI, the Python module) turns them into diagnostics here.
std::optional<Diagnostic> plugin_message_diagnostic(const PluginMessage& message);

/// What the values hooks added besides values.
struct ValuesHookResult {
  /// Per plugin that returned one, its manifest annotation: `{"memory": {...}}`, in run
  /// order. Generate records it in the config's manifest entry under "plugins".
  nlohmann::ordered_json manifest = nlohmann::ordered_json::object();
  /// Findings the hooks returned, in run order; a plugin that returns findings for a config
  /// gets no values applied from that call.
  std::vector<PluginFinding> findings;
  /// A value an earlier layer set that a plugin's values changed.
  struct Replacement {
    std::string plugin;
    std::string pointer;  ///< in the values, e.g. `/launch/slurm/partition`
    nlohmann::ordered_json before;
    nlohmann::ordered_json after;
    std::size_t layer = 0;  ///< index in the values' layers() of the layer that had set it
  };
  /// Every value a plugin replaced, in run order. A plugin's values never replace what `--set`
  /// or a values file set (LayeredValues::apply_under_user): those are kept, and not listed.
  std::vector<Replacement> replaced;
};

/// A config field an output hook set, replaced or removed.
struct FieldOrigin {
  std::string json_pointer;  ///< e.g. `/tensorboard/output_path`; "" for a whole replacement
  std::string plugin;
  bool removed = false;  ///< the patch deleted it (a null in the merge patch)
};

/// The config after the output hooks, and who changed what.
struct OutputHookResult {
  nlohmann::ordered_json config;
  std::vector<FieldOrigin> fields;
  nlohmann::ordered_json manifest = nlohmann::ordered_json::object();
};

/// What a plugin command printed and its exit code.
struct CommandResult {
  std::string output;
  int exit_code = 0;
  /// The command's own error message for the user (e.g. a usage error), or "".
  std::string message;
};

namespace detail {
struct LoadedPlugin;
}

/// Loads plugins and runs their hooks in load order (the family's plugin list order).
/// Every failure throws zf::Error (kind Plugin, or Usage for bad options) whose message names
/// the plugin file, the plugin and the hook, e.g.
/// `/p/bad.so: error: plugin 'bad': values hook failed: boom`; nothing is changed then.
/// A PluginHost is not copyable; the plugins stay loaded while it, or an Environment whose
/// functions it registered, lives.
///
///     zf::PluginHostOptions options;
///     options.builtin_dirs = {"/usr/lib/zeroforge/plugins"};
///     zf::PluginHost plugins(options);
///     plugins.load({{"site_fields", {{"profile", "site.json"}}}});
///     plugins.register_functions(environment);            // before loading templates
///     auto extra = plugins.run_values_hooks(values, {{"template", name}, {"tier", "small"}});
///     auto out = plugins.run_output_hooks(config, values.merged(), {{"template", name}});
class PluginHost {
 public:
  explicit PluginHost(PluginHostOptions options = {});
  ~PluginHost();
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  /// The directories searched for plugins named without a path, in order: `plugin_dirs`,
  /// ZEROFORGE_PLUGIN_PATH, `builtin_dirs`.
  std::vector<std::filesystem::path> search_path() const;
  /// The file `name_or_path` resolves to; throws zf::Error (Plugin) naming the directories
  /// searched when there is none.
  std::filesystem::path find(std::string_view name_or_path) const;
  /// Every plugin file (`*.so`) on the search path, first directory winning per file name.
  std::vector<std::filesystem::path> discover() const;

  /// Loads `requests` in order, merges `options` over the matching plugin's options, then
  /// calls each plugin's `init`. All or nothing: on failure nothing from this call stays
  /// loaded. Errors: file not found, not a shared library, missing entry symbol, ABI
  /// mismatch (got/expected), malformed descriptor, duplicate plugin or function names,
  /// an option for a plugin that is not loaded, a failing `init`.
  void load(const std::vector<PluginRequest>& requests,
            const std::vector<PluginOption>& options = {});

  /// The loaded plugins, in load order.
  std::vector<PluginInfo> plugins() const;
  bool empty() const noexcept { return plugins_.empty(); }

  /// Registers every plugin function into `environment` (do it before loading templates).
  /// Throws when a name is already registered there (a builtin or another plugin).
  void register_functions(Environment& environment) const;

  /// Runs the values hooks in load order on one config's values. Each plugin sees the
  /// values with the earlier plugins' results applied; its "values" are applied as a layer
  /// {LayerKind::Plugin, "plugin NAME"}. `context` is passed to the hooks as "context"
  /// (e.g. template, tier, variant).
  ValuesHookResult run_values_hooks(
      LayeredValues& values,
      const nlohmann::ordered_json& context = nlohmann::ordered_json::object()) const;

  /// Runs the output hooks in load order on a rendered config (a JSON object).
  OutputHookResult run_output_hooks(
      nlohmann::ordered_json config, const nlohmann::ordered_json& values,
      const nlohmann::ordered_json& context = nlohmann::ordered_json::object()) const;

  /// The loaded plugin serving command `name`, or nullptr.
  const PluginInfo* find_command(std::string_view name) const;
  /// Runs command `name` with `args` (the arguments after the command name).
  CommandResult run_command(std::string_view name, const std::vector<std::string>& args) const;

  /// The files plugins said they read (zf_host::note_input: model presets, site profiles), in
  /// load order: with the plugin libraries themselves, what generate's depfile lists.
  std::vector<std::filesystem::path> files_read() const;

  /// Messages plugins logged so far, in order.
  std::vector<PluginMessage> messages() const;
  /// Called for every message as it is logged (the CLI prints warnings to stderr).
  void on_message(std::function<void(const PluginMessage&)> sink);

  /// Opens `path` and reads its descriptor without calling `init` (for `list plugins`).
  /// Throws zf::Error like `load`.
  static PluginInfo inspect(const std::filesystem::path& path);

 private:
  struct Log;
  PluginHostOptions options_;
  std::shared_ptr<Log> log_;
  std::vector<std::shared_ptr<detail::LoadedPlugin>> plugins_;
};

}  // namespace zf
