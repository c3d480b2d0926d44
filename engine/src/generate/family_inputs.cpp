// SPDX-License-Identifier: MIT
// Loading a family and everything it names, for generate and explain.
#include "family_inputs.hpp"

#include <set>

#include "deepspeed/world_size.hpp"
#include "generate/block_overrides.hpp"
#include "template/analyzer.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace pipeline {

fs::path data_dir_of(const GenerateRequest& request) {
  return request.data_dir.empty() ? default_data_dir() : request.data_dir;
}

namespace {

// A path as users see it: relative to the working directory when inside it, else absolute,
// with the build tree's symlinks to the source presets resolved.
fs::path display_path(const fs::path& path) {
  std::error_code ec;
  fs::path shown = path.lexically_normal();
  if (fs::path canonical = fs::weakly_canonical(path, ec); !ec) {
    fs::path relative = canonical.lexically_relative(fs::current_path(ec));
    shown = !relative.empty() && *relative.begin() != ".." ? relative : canonical;
  }
  return shown;
}

Tier load_tier(const Family& family, std::size_t index, const fs::path& data_dir,
               std::vector<fs::path>& inputs, const DiagnosticSink& sink) {
  const TierRef& ref = family.tiers[index];
  ResolvedTier resolved =
      resolve_tier(ref.ref, {fs::path(family.file), "/tiers/" + std::to_string(index), data_dir});
  for (const auto& warning : resolved.warnings)
    if (sink) sink(warning);
  inputs.push_back(resolved.file);
  nlohmann::ordered_json values = load_tier_file(resolved.file);
  return Tier{ref.name, display_path(resolved.file).string(), std::move(values)};
}

}  // namespace

std::string template_not_found(const Family& family, const Environment& environment) {
  std::string searched;
  for (const auto& dir : environment.options().search_path)
    searched += (searched.empty() ? "" : ", ") + dir.string();
  return "template '" + family.template_name + "' not found on the template search path " +
         "(searched: " + searched +
         "); for a team's own templates, list their directory in the family's " +
         "\"template_dirs\" (relative to the family file) or pass --template-dir DIR";
}

std::unique_ptr<Environment> make_environment(const GenerateRequest& request,
                                              const std::vector<fs::path>& family_dirs) {
  EnvironmentOptions options;
  options.trim_blocks = request.trim_blocks;
  options.lstrip_blocks = request.lstrip_blocks;
  for (const auto& dir : request.template_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw Error(ErrorKind::Usage, "--template-dir '" + dir.string() + "' is not a directory");
    }
    options.search_path.push_back(dir);
  }
  options.search_path.insert(options.search_path.end(), family_dirs.begin(), family_dirs.end());
  options.search_path.push_back(data_dir_of(request) / "templates");
  return std::make_unique<Environment>(std::move(options));
}

PluginHostOptions plugin_host_options(const GenerateRequest& request) {
  PluginHostOptions options;
  for (const auto& dir : request.plugin_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw Error(ErrorKind::Usage, "--plugin-dir '" + dir.string() + "' is not a directory");
    }
    options.plugin_dirs.push_back(dir);
  }
  options.builtin_dirs.push_back(request.builtin_plugin_dir.empty() ? default_plugin_dir()
                                                                    : request.builtin_plugin_dir);
  options.data_dir = data_dir_of(request);
  return options;
}

std::unique_ptr<PluginHost> make_plugin_host(const GenerateRequest& request,
                                             std::vector<PluginRequest> requests,
                                             const DiagnosticSink& sink) {
  auto host = std::make_unique<PluginHost>(plugin_host_options(request));
  host->on_message([sink](const PluginMessage& message) {
    if (!sink) return;
    if (auto d = zf::plugin_message_diagnostic(message)) sink(*d);
  });
  for (const auto& plugin : request.plugins)
    requests.push_back({plugin, nlohmann::ordered_json::object()});
  std::vector<PluginOption> plugin_options;
  for (const auto& opt : request.plugin_options) plugin_options.push_back(parse_plugin_option(opt));
  host->load(requests, plugin_options);
  return host;
}

namespace {

// Every top-level value the family, its tiers, values files and --set give, with where each
// is written: what an overridden block may leave unread.
std::vector<ValueSet> values_set(const Family& family, const std::vector<Tier>& tiers,
                                 const std::vector<Layer>& overrides) {
  std::vector<ValueSet> sets;
  const std::string at = family.file + ": ";
  auto add = [&](const nlohmann::ordered_json& values, const std::string& label) {
    if (!values.is_object()) return;
    for (const auto& [name, value] : values.items())
      sets.push_back({name, label + escape_pointer_segment(name)});
  };
  add(family.values, at + "/values/");
  for (const auto& axis : family.axes) {
    sets.push_back(
        {axis.key.substr(0, axis.key.find('.')), at + "/axes/" + escape_pointer_segment(axis.key)});
  }
  for (std::size_t i = 0; i < family.include.size(); ++i)
    add(family.include[i], at + "/include/" + std::to_string(i) + "/");  // its "tier" too: harmless
  for (std::size_t i = 0; i < family.tiers.size(); ++i)
    add(family.tiers[i].values, at + "/tiers/" + std::to_string(i) + "/values/");
  for (const auto& tier : tiers) add(tier.values, tier.file + ": /");
  for (const auto& layer : overrides) {
    if (!layer.values.is_object()) continue;
    for (const auto& [name, value] : layer.values.items())
      sets.push_back({name, layer.source.label});
  }
  return sets;
}

}  // namespace

FamilySetup load_family_setup(const GenerateRequest& request, const DiagnosticSink& sink) {
  FamilySetup setup;
  const fs::path data_dir = data_dir_of(request);
  const std::string& family_arg = request.family;
  fs::path file = resolve_family(family_arg, data_dir);
  setup.inputs.push_back(file);
  // A path the user typed is shown as typed; a shipped family by its place in the sources.
  Family family = load_family(family_arg == file.string() ? file : display_path(file));
  for (const auto& shared : family.values_files) setup.inputs.push_back(shared.file);
  setup.environment = make_environment(request, family_template_dirs(family));

  std::vector<PluginRequest> requests;
  // Their path options are relative to the family file (`"profile": "site.json"` beside it).
  const fs::path family_dir = file.parent_path();
  for (const auto& plugin : family.plugins)
    requests.push_back({plugin.name, plugin.options, family_dir.empty() ? "." : family_dir});
  setup.plugins = make_plugin_host(request, std::move(requests), sink);
  for (const auto& plugin : setup.plugins->plugins()) setup.inputs.push_back(plugin.path);
  setup.plugins->register_functions(*setup.environment);

  if (!setup.environment->resolve(family.template_name)) {
    throw CodedError(Error(ErrorKind::Values, template_not_found(family, *setup.environment),
                           family.file, "/template"),
                     codes::template_load);
  }
  setup.template_ = setup.environment->load(family.template_name);
  TemplateDefaults defaults =
      load_template_defaults(*setup.environment, family.template_name, family.contract);
  setup.contract = family.contract.empty() ? defaults.contract : family.contract;
  setup.pins = std::move(defaults.pins);

  std::vector<Tier> tiers;
  for (std::size_t i = 0; i < family.tiers.size(); ++i)
    tiers.push_back(load_tier(family, i, data_dir, setup.inputs, sink));
  if (!tiers.empty()) {
    // A tier's keys: the contract's, or what this family's template reads.
    const std::set<std::string> reads =
        detail::find_names_read(setup.template_->tree(), *setup.environment).names;
    const std::vector<std::string> read_names(reads.begin(), reads.end());
    for (const Tier& tier : tiers) {
      std::vector<Error> problems = check_tier_keys(tier.values, tier.file, read_names);
      // The first stops the run, as any input that cannot be read does.
      if (!problems.empty()) throw CodedError(problems.front(), codes::tier_unknown_key);
    }
  }

  std::vector<Layer> overrides;
  for (const auto& path : request.values_files) {
    const std::string file = path.string();
    setup.inputs.push_back(path);
    nlohmann::ordered_json values = load_values_file(file);
    overrides.push_back(
        Layer{LayerSource{LayerKind::ValuesFile, file}, std::move(values), file, "", ""});
  }
  for (const auto& [label, values] : request.values_objects) {
    if (!values.is_object())
      throw CodedError(
          Error(ErrorKind::Values,
                std::string("values must be an object, got ") + values.type_name(), label, "/"),
          codes::values_not_object);
    overrides.push_back(Layer{LayerSource{LayerKind::ValuesFile, label}, values, label, "", ""});
  }
  for (const auto& set : request.sets) {
    std::string label = "--set " + set;
    nlohmann::ordered_json values = parse_set(set);
    overrides.push_back(
        Layer{LayerSource{LayerKind::Set, label}, std::move(values), label, "", ""});
  }
  for (const auto& warning :
       overridden_block_warnings(*setup.template_, values_set(family, tiers, overrides)))
    if (sink) sink(warning);
  setup.expansion = std::make_unique<Expansion>(expand_family(
      std::move(family), std::move(tiers), std::move(defaults.layers), std::move(overrides)));
  return setup;
}

Json world_size_of(const Json& values) {
  // Unknown past 64 bits (the values contract refuses such a product at /nodes).
  if (auto world = deepspeed::world_size_of(values)) return *world;
  return nullptr;
}

}  // namespace pipeline

}  // namespace zf
