// SPDX-License-Identifier: MIT
// Step 2 of the one-template pipeline: the values layered (defaults, tier, values files,
// --set) and prepared as every config is (prepare/prepare_config.hpp: plugins' values hooks,
// pinned values, the DeepSpeed contract), with warnings for values that have no effect.
#include <algorithm>
#include <utility>

#include "generate/block_overrides.hpp"
#include "prepare/prepare_config.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf {
using Json = nlohmann::ordered_json;

Outcome PreparedValues::outcome() const noexcept {
  return prepare::values_outcome(!problems.empty(), !refusals.empty());
}

namespace {

void warn_unread(const Template& tpl, const LayeredValues& values,
                 std::vector<Diagnostic>& warnings) {
  const std::vector<std::string> read = tpl.undeclared_variables();
  std::vector<std::string> warned;
  for (const auto& [pointer, source] : values.leaves()) {
    if (source.kind != LayerKind::Set && source.kind != LayerKind::ValuesFile) continue;
    const std::string top = pointer.substr(1, pointer.find('/', 1) - 1);
    if (is_plugin_fact(top) || is_validator_value(top) || is_companion_value(top) ||
        std::find(read.begin(), read.end(), top) != read.end())
      continue;
    if (std::find(warned.begin(), warned.end(), top) != warned.end()) continue;
    warned.push_back(top);
    Diagnostic d;
    d.code = codes::values_unread;
    d.severity = Severity::Warning;
    d.where.file = source.label;
    d.message = top + " is set but " + tpl.name() + " never reads it (a typo? `zeroforge explain " +
                tpl.name() + "` lists what it reads)";
    warnings.push_back(std::move(d));
  }
}

void warn_overridden_blocks(const Template& tpl, const LayeredValues& values,
                            std::vector<Diagnostic>& warnings) {
  std::vector<pipeline::ValueSet> sets;
  for (const auto& [pointer, source] : values.leaves()) {
    if (source.kind != LayerKind::Set && source.kind != LayerKind::ValuesFile &&
        source.kind != LayerKind::Tier)
      continue;
    sets.push_back({pointer.substr(1, pointer.find('/', 1) - 1), source.label});
  }
  for (auto& warning : pipeline::overridden_block_warnings(tpl, sets))
    warnings.push_back(std::move(warning));
}

}  // namespace

PreparedValues prepare_values(ConfigSession& session) {
  const ConfigRequest& request = session.request();
  const Template& tpl = session.config_template();
  const TemplateDefaults& defaults = session.defaults();
  PreparedValues out;
  LayeredValues& values = out.values;
  for (const auto& layer : defaults.layers) values.apply(layer.source, layer.values);
  if (!request.tier.empty()) {
    const std::filesystem::path& tier = session.tier_file();
    Json tier_values = load_tier_file(tier);
    // A tier's keys: the contract's, or what this template reads (a team's own values).
    for (const auto& problem : check_tier_keys(tier_values, tier.string(), names_read(tpl)))
      out.problems.push_back(to_diagnostic(problem, codes::tier_unknown_key));
    if (!out.problems.empty()) {
      out.messages = session.take_plugin_messages();
      out.layered = false;
      return out;  // layered no further: the values would not be the ones asked for
    }
    values.apply({LayerKind::Tier, tier.string()}, std::move(tier_values));
  }
  for (const auto& file : request.values_files)
    values.apply({LayerKind::ValuesFile, file.string()}, load_values_file(file));
  for (const auto& [label, object] : request.values_objects) {
    if (!object.is_object())
      throw CodedError(
          Error(ErrorKind::Values,
                std::string("values must be an object, got ") + object.type_name(), label, "/"),
          codes::values_not_object);
    values.apply({LayerKind::ValuesFile, label}, object);
  }
  for (const auto& set : request.sets)
    values.apply({LayerKind::Set, "--set " + set}, parse_set(set));

  out.hook_context = {{"template", request.template_name},
                      {"tier", request.tier},
                      {"pinned", defaults.pins.names()}};
  prepare::PreparedConfig prepared = prepare::prepare_layered(
      values, {&defaults.pins, defaults.contract == "deepspeed", &session.plugins()},
      out.hook_context);
  out.problems = std::move(prepared.problems);
  for (const auto& finding : prepared.refusals)
    out.refusals.push_back(to_diagnostic(finding, request.template_name));
  out.facts = std::move(prepared.facts);
  out.validate = std::move(prepared.validate);
  warn_unread(tpl, values, out.warnings);
  warn_overridden_blocks(tpl, values, out.warnings);
  out.messages = session.take_plugin_messages();
  return out;
}

}  // namespace zf
