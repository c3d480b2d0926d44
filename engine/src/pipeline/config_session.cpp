// SPDX-License-Identifier: MIT
// Step 1 of the one-template pipeline (zeroforge/pipeline.hpp): open_config and the session it
// makes, and the inputs the steps share (search paths, plugins, tiers, names read).
#include <filesystem>
#include <utility>

#include "generate/family_inputs.hpp"
#include "template/analyzer.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf {
namespace fs = std::filesystem;

struct ConfigSession::State {
  ConfigRequest request;
  std::unique_ptr<Environment> environment;
  std::unique_ptr<PluginHost> plugins;
  std::shared_ptr<const Template> tpl;
  TemplateDefaults defaults;
  std::filesystem::path tier_file;
  // Plugin messages and warnings not yet handed to a step's result (no on_diagnostic).
  std::vector<Diagnostic> pending;
};

ConfigSession::ConfigSession(std::unique_ptr<State> state) : state_(std::move(state)) {}
ConfigSession::ConfigSession(ConfigSession&&) noexcept = default;
ConfigSession& ConfigSession::operator=(ConfigSession&&) noexcept = default;
ConfigSession::~ConfigSession() = default;

const ConfigRequest& ConfigSession::request() const noexcept { return state_->request; }
const Environment& ConfigSession::environment() const noexcept { return *state_->environment; }
const PluginHost& ConfigSession::plugins() const noexcept { return *state_->plugins; }
const Template& ConfigSession::config_template() const noexcept { return *state_->tpl; }
const TemplateDefaults& ConfigSession::defaults() const noexcept { return state_->defaults; }
const std::filesystem::path& ConfigSession::tier_file() const noexcept { return state_->tier_file; }

std::vector<Diagnostic> ConfigSession::take_plugin_messages() {
  return std::exchange(state_->pending, {});
}

namespace {

// The generate request that describes the same search paths and plugins (family_inputs.hpp
// works from one).
GenerateRequest as_generate_request(const ConfigRequest& request) {
  GenerateRequest out;
  out.template_dirs = request.template_dirs;
  out.values_files = request.values_files;
  out.values_objects = request.values_objects;
  out.sets = request.sets;
  out.plugins = request.plugins;
  out.plugin_dirs = request.plugin_dirs;
  out.plugin_options = request.plugin_options;
  out.trim_blocks = request.trim_blocks;
  out.lstrip_blocks = request.lstrip_blocks;
  out.validation = request.validation;
  out.data_dir = request.data_dir;
  out.builtin_plugin_dir = request.builtin_plugin_dir;
  return out;
}

void check_template_name(const Environment& environment, const std::string& template_name) {
  if (!template_name.empty() && template_name.front() == '/') {
    fs::path path(template_name);
    throw Error(ErrorKind::Usage, "TEMPLATE '" + template_name +
                                      "' is a path; TEMPLATE is a name on the template search "
                                      "path (for this file: --template-dir " +
                                      path.parent_path().string() + " " + path.filename().string() +
                                      ")");
  }
  environment.resolve(template_name);  // refuses names that climb out with '..'
}

}  // namespace

ConfigSession open_config(ConfigRequest request) {
  auto state = std::make_unique<ConfigSession::State>();
  state->request = std::move(request);
  const ConfigRequest& r = state->request;
  // The order of the checks decides which error a request with several gets: the search path,
  // the plugins, the template's name, its defaults, the template itself.
  state->environment = make_environment(r);
  ConfigSession::State* raw = state.get();
  DiagnosticSink sink = r.on_diagnostic;
  if (!sink) sink = [raw](const Diagnostic& d) { raw->pending.push_back(d); };
  state->plugins = make_plugin_host(r, {}, sink);
  state->plugins->register_functions(*state->environment);
  check_template_name(*state->environment, r.template_name);
  state->defaults = load_template_defaults(*state->environment, r.template_name);
  state->tpl = state->environment->load(r.template_name);
  if (!r.tier.empty()) {
    // The one tier resolution (family/tier_search.cpp), as generate resolves a family's tiers.
    ResolvedTier tier =
        resolve_tier(r.tier, {{}, {}, r.data_dir.empty() ? default_data_dir() : r.data_dir});
    for (const auto& warning : tier.warnings) sink(warning);
    state->tier_file = std::move(tier.file);
  }
  return ConfigSession(std::move(state));
}

std::unique_ptr<Environment> make_environment(const ConfigRequest& request,
                                              const std::vector<fs::path>& extra_dirs) {
  return pipeline::make_environment(as_generate_request(request), extra_dirs);
}

PluginHostOptions plugin_host_options(const ConfigRequest& request) {
  return pipeline::plugin_host_options(as_generate_request(request));
}

std::unique_ptr<PluginHost> make_plugin_host(const ConfigRequest& request,
                                             std::vector<PluginRequest> first,
                                             const DiagnosticSink& sink) {
  return pipeline::make_plugin_host(as_generate_request(request), std::move(first), sink);
}

std::vector<std::string> names_read(const Template& tpl) {
  const std::set<std::string> names = detail::find_names_read(tpl.tree(), tpl.environment()).names;
  return {names.begin(), names.end()};
}

bool is_plugin_fact(std::string_view name) {
  // The tail of the contract's known names (engine/src/deepspeed/contract.cpp, kKnownNames).
  for (std::string_view fact :
       {"gpu_memory_gib", "cpu_memory_gib", "cpu_cores", "gpu_memory_margin", "gpu", "gpu_tflops",
        "intra_node_gbs", "inter_node_gbs", "pcie_gbs", "nvme_gbs", "tier", "model", "auto_fit"}) {
    if (name == fact) return true;
  }
  return false;
}

bool is_validator_value(std::string_view name) { return name == "accelerate_version"; }

bool is_companion_value(std::string_view name) { return name == "launch"; }

}  // namespace zf
