// SPDX-License-Identifier: MIT
// The config pipeline for one template, as steps: open it (environment, plugins, defaults),
// prepare its values (layers, plugins' values hooks, pinned and contract checks), render it
// (output hooks), validate it, and explain where each value came from. `zeroforge render`,
// `explain` and the Python module are adapters over these; there is no other copy of the
// sequence. Nothing here prints, exits or keeps global state: two threads may each run
// their own session at once.
//
//     zf::ConfigRequest request;
//     request.template_name = "deepspeed/config.json.j2";
//     request.tier = "medium";
//     request.sets = {"stage=3"};
//     zf::RenderResult result = zf::render(request);   // every step, errors as diagnostics
//     if (result.outcome == zf::Outcome::Done) use(result.config);
//     for (const auto& d : result.diagnostics) std::cerr << zf::to_string(d) << '\n';
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>  // full type: the requests and results hold ordered_json members
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/validator.hpp"
#include "zeroforge/values.hpp"

namespace zf {

/// What one template is rendered from. Layers, lowest first: the template's defaults
/// (defaults.json), `tier`, `values_files` in order, `values_objects` in order, `sets` in order,
/// then plugins' values hooks. Paths are used as given and appear in messages as given.
struct ConfigRequest {
  /// A name on the template search path (`deepspeed/config.json.j2`), not a file path.
  std::string template_name;
  /// A tier name (on the tier search path: ./tiers, ZEROFORGE_TIER_PATH, then the shipped
  /// tiers; zf::resolve_tier) or a tier file (contains '/' or ends in `.json`); "" for none.
  std::string tier;
  std::vector<std::filesystem::path> values_files;  ///< `--values`, applied in order
  /// Values given as objects rather than files (the Python module's `values=`), applied
  /// after `values_files` and before `sets`, in order, as values-file layers: the label
  /// messages and `explain` name (a file's path, `values[1]`) and a JSON object (anything
  /// else: zf::CodedError `values.not-object` at the label).
  std::vector<std::pair<std::string, nlohmann::ordered_json>> values_objects;
  std::vector<std::string> sets;  ///< `KEY=VALUE` (`--set`), applied last
  /// Searched for templates, in order, before the shipped ones (`--template-dir`).
  std::vector<std::filesystem::path> template_dirs;
  /// Plugins to load, in hook order: names (on the plugin search path) or paths.
  std::vector<std::string> plugins;
  /// Searched for plugins before ZEROFORGE_PLUGIN_PATH and the shipped ones.
  std::vector<std::filesystem::path> plugin_dirs;
  /// `NAME.KEY=VALUE` plugin options (`--plugin-opt`).
  std::vector<std::string> plugin_options;
  bool trim_blocks = false;    ///< Jinja2's trim_blocks
  bool lstrip_blocks = false;  ///< Jinja2's lstrip_blocks
  /// Which rendered configs validate_rendered() checks.
  Validation validation = Validation::ByContract;
  /// The shipped templates and presets; empty: default_data_dir().
  std::filesystem::path data_dir;
  /// The shipped plugins; empty: default_plugin_dir().
  std::filesystem::path builtin_plugin_dir;
  /// Receives plugins' logged warnings and errors as they happen (code `plugin.message`).
  /// Unset: they are added to the diagnostics of the step that was running.
  DiagnosticSink on_diagnostic;
};

/// A template opened for rendering: its search path (with plugin functions), plugins,
/// template and defaults. Made by open_config(); movable, not copyable. One thread uses a
/// session at a time; separate sessions share nothing.
class ConfigSession {
 public:
  ConfigSession(ConfigSession&&) noexcept;
  ConfigSession& operator=(ConfigSession&&) noexcept;
  ~ConfigSession();

  const ConfigRequest& request() const noexcept;
  const Environment& environment() const noexcept;
  const PluginHost& plugins() const noexcept;
  const Template& config_template() const noexcept;
  /// The defaults.json layers, values contract ("deepspeed" or "") and pinned values.
  const TemplateDefaults& defaults() const noexcept;
  /// The file `request().tier` resolved to (zf::resolve_tier), or empty without a tier.
  const std::filesystem::path& tier_file() const noexcept;
  /// Plugin messages logged since the last call (when the request has no on_diagnostic).
  std::vector<Diagnostic> take_plugin_messages();

 private:
  struct State;
  explicit ConfigSession(std::unique_ptr<State> state);
  friend ConfigSession open_config(ConfigRequest request);
  std::unique_ptr<State> state_;
};

/// Step 1: checks the template name (a path such as /home/me/x.j2 is refused with how to
/// render that file), makes the search path, loads the plugins (registering their template
/// functions), the template and its defaults, and resolves the tier (its `tier.shadowed`
/// warning goes where plugin messages go). Throws zf::Error (Usage for the name, Template
/// when it is missing, Plugin, Values for a malformed defaults.json; `tier.not-found`).
ConfigSession open_config(ConfigRequest request);

/// The values of a session, layered and checked.
struct PreparedValues {
  /// Every layer with its source, plugins' values hooks included.
  LayeredValues values;
  /// What plugins' hooks were told about the config: template, tier, pinned names.
  nlohmann::ordered_json hook_context;
  /// The DeepSpeed contract's derived facts (world size, train batch size ...), when the
  /// template has the contract and `problems` is empty.
  std::optional<DeepSpeedFacts> facts;
  /// What the rendered config is validated with: the world size, the Trainer's "auto" and the
  /// DeepSpeed release (`deepspeed_version`) the values give.
  ValidateOptions validate;
  /// Errors, each where its value was written (`--set stage=5: /stage: error: ...`):
  /// unknown tier keys (then nothing further was done), pinned values changed, the DeepSpeed
  /// contract's problems. Codes `tier.unknown-key`, `values.pinned`, `values.contract`.
  std::vector<Diagnostic> problems;
  /// What plugins' values hooks refused (code `plugin.refused`, reporter the plugin).
  std::vector<Diagnostic> refusals;
  /// Values a values file, --set or tier gives that the template never reads
  /// (`values.unread`) or that only a block it overrides reads (`values.overridden-block`).
  std::vector<Diagnostic> warnings;
  /// Plugins' logged messages (when the request has no on_diagnostic).
  std::vector<Diagnostic> messages;
  /// False when unknown tier keys stopped the layering: no values file, --set or hook was
  /// applied, nothing was checked further, and `values` is not worth explaining.
  bool layered = true;

  /// Failed with problems (whatever a plugin refused), else Refused with refusals, else
  /// Done: the rule generate and explain follow too. Every check runs either way.
  Outcome outcome() const noexcept;
};

/// Step 2: applies the tier, values files and sets over the defaults, runs plugins' values
/// hooks, checks pinned values and the contract. Throws zf::Error for an input it cannot read
/// (a tier file, a values file that is not a JSON object, a malformed --set).
PreparedValues prepare_values(ConfigSession& session);

/// A rendered template.
struct RenderedConfig {
  bool json = false;  ///< a `.json` template: `config` holds it
  /// The config after plugins' output hooks (JSON templates only).
  nlohmann::ordered_json config;
  /// What a file would hold: the config as zeroforge writes JSON, or the rendered text.
  std::string text;
  std::vector<Diagnostic> messages;  ///< plugins' logged messages (no on_diagnostic)
};

/// Step 3: renders `values` (which must be Done or at least free of problems) and, for JSON
/// templates, runs plugins' output hooks. Throws zf::Error for a template error (with its
/// file, line and column) or output hooks that fail.
RenderedConfig render_config(ConfigSession& session, const PreparedValues& values);

/// What the validator said about a rendered config.
struct ValidatedConfig {
  bool checked = false;           ///< false: the request's Validation skips this template
  std::vector<Finding> findings;  ///< in validate's order; each names `label`
  /// Refused when a finding is an error, else Done.
  Outcome outcome() const noexcept;
};

/// Step 4: validates a JSON config as the request's Validation asks (ByContract: only
/// templates under the DeepSpeed contract), at the world size and HF mode its values give.
/// `label` names the config in findings (the output file, else the template).
ValidatedConfig validate_rendered(const ConfigSession& session, const PreparedValues& values,
                                  const RenderedConfig& rendered, const std::string& label);

/// One value and the layer that set it.
struct ExplainedValue {
  std::string name;  ///< dotted: `zero.reduce_bucket_size`
  nlohmann::ordered_json value;
  LayerKind layer;
  std::string source;  ///< the layer's label: a file, `--set stage=3`, `plugin memory`
};

/// A field of the rendered config that plugins' output hooks changed: their layer, above every
/// value layer (`explain` shows it beside the values).
struct OutputHookChange {
  /// Dotted, as ExplainedValue::name: `tensorboard.output_path`.
  std::string name;
  /// After the hooks; unset when a hook removed the field.
  std::optional<nlohmann::ordered_json> value;
  /// What the template rendered there; unset when it rendered nothing there.
  std::optional<nlohmann::ordered_json> rendered;
  /// The plugin whose output hook changed it last: `plugin site_fields`.
  std::string source;
};

/// Where each value of a config came from: what `zeroforge explain` prints.
struct Explanation {
  /// `template NAME`, or `config PATH of family F (FILE), variant 'V'`.
  std::string subject;
  std::string template_name;
  /// The config's tier by name (`small`), and the file it resolved to; both empty without one.
  std::string tier;
  std::string tier_file;
  std::vector<ExplainedValue> values;          ///< those the template reads
  std::vector<ExplainedValue> for_plugins;     ///< tier facts and auto_fit: read by plugins
  std::vector<ExplainedValue> for_validator;   ///< accelerate_version: read by the validator
  std::vector<ExplainedValue> for_companions;  ///< launch: read by the launch companions
  std::vector<ExplainedValue> unused;          ///< set, but read by neither
  std::vector<std::string> undefined;          ///< read by the template, set by no layer
  /// The rendered config's fields that output hooks changed (added, replaced or removed), in
  /// the config's order, then the removed ones: found by rendering the config when a plugin
  /// with an output hook is loaded and the values have no problems (a template or hook error
  /// then is one of `problems`).
  std::vector<OutputHookChange> output_hooks;
  /// The contract's derived facts, when it holds and has no problems.
  std::optional<DeepSpeedFacts> derived;
  std::vector<Diagnostic> problems;  ///< as PreparedValues::problems
  std::vector<Diagnostic> refusals;  ///< as PreparedValues::refusals
  /// `values.plugin-replaced` notes (a family member's value a plugin replaced), as generate
  /// says them; they change no outcome.
  std::vector<Diagnostic> notes;
  /// As PreparedValues::outcome: Failed with problems, else Refused with refusals, else Done.
  Outcome outcome() const noexcept;
};

/// Step 5: explains prepared values; never throws for what the values say.
Explanation explain_values(const ConfigSession& session, const PreparedValues& values);

/// Explains one member of a family, chosen by its output path (`config`, its `path` in
/// manifest.json; "" for a family of one config), layered as `generate` layers it. When
/// no member (or, with `config` empty, more than one) matches, returns no values and one
/// problem (`explain.choose-config` or `explain.no-such-config`) whose notes list the
/// family's configs. Throws zf::Error as generate() does for a family it cannot load.
Explanation explain_family_config(const GenerateRequest& request, const std::string& config);

/// The result of render(): every step in one call.
struct RenderResult {
  Outcome outcome = Outcome::Failed;
  bool json = false;
  nlohmann::ordered_json config;  ///< JSON templates, when Done
  std::string text;               ///< what a file would hold, when Done
  std::vector<Finding> findings;  ///< the validator's, when it ran
  /// Every diagnostic in the order it arose: plugin messages, problems (or a caught
  /// zf::Error, as to_diagnostic gives it), refusals, warnings.
  std::vector<Diagnostic> diagnostics;
};

/// Opens, prepares, renders and validates `request.template_name`; never throws zf::Error
/// (each becomes a diagnostic and Outcome::Failed). Thread-safe for separate requests.
RenderResult render(const ConfigRequest& request);

// ---------------------------------------------------------------------------------------------
// Inputs the steps share, for programs that list or inspect what a request would use
// ---------------------------------------------------------------------------------------------

/// The template search path: `request.template_dirs` (each must be a directory, else
/// zf::Error Usage), then `extra_dirs` (a family's template_dirs), then DATA_DIR/templates.
std::unique_ptr<Environment> make_environment(
    const ConfigRequest& request, const std::vector<std::filesystem::path>& extra_dirs = {});

/// Where plugins are searched (request.plugin_dirs, ZEROFORGE_PLUGIN_PATH, the shipped ones)
/// and the data dir handed to them.
PluginHostOptions plugin_host_options(const ConfigRequest& request);

/// A PluginHost with `first` loaded, then request.plugins, request.plugin_options merged over
/// their options; logged warnings and errors go to `sink` (code `plugin.message`).
std::unique_ptr<PluginHost> make_plugin_host(const ConfigRequest& request,
                                             std::vector<PluginRequest> first,
                                             const DiagnosticSink& sink);

// resolve_tier(), the one resolution of a tier name or path that every command uses, is
// declared in zeroforge/tiers.hpp.

// resolve_family() and family_template_dirs(), the family's own inputs, are declared in
// zeroforge/family_file.hpp (included through zeroforge/family.hpp).

/// Every top-level name `tpl` reads without defining it, guarded ones (`is defined`,
/// `default`) included, following static includes, imports and parents; sorted.
std::vector<std::string> names_read(const Template& tpl);

// to_diagnostic(const PluginFinding&, subject), a values hook's finding as the diagnostic
// `plugin.refused`, is declared in zeroforge/plugin_host.hpp beside PluginFinding.

/// True for the values the DeepSpeed contract keeps for plugins, which no template reads:
/// the tier facts (gpu_memory_gib, cpu_memory_gib, cpu_cores, gpu_memory_margin, gpu, tier,
/// model) and `auto_fit`.
bool is_plugin_fact(std::string_view top_level_name);

/// True for the values the DeepSpeed contract keeps for the validator, which no template
/// reads: `accelerate_version` (the accelerate the HF Trainer hands the config to).
bool is_validator_value(std::string_view top_level_name);

/// True for the values the launch companions read, which no config template reads: `launch`
/// (docs/companions.md).
bool is_companion_value(std::string_view top_level_name);

}  // namespace zf
