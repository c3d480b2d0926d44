// SPDX-License-Identifier: MIT
// Step 5 of the one-template pipeline, and the same for one member of a family: where each
// value came from (`helm template --debug`, per value), as data for `zeroforge explain`.
#include <algorithm>
#include <optional>
#include <utility>

#include "generate/family_inputs.hpp"
#include "output_hook_changes.hpp"
#include "prepare/prepare_config.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf {
using Json = nlohmann::ordered_json;

namespace {

std::string dotted(const std::string& pointer) {
  std::string name;
  for (char c : pointer.substr(1)) name += c == '/' ? '.' : c;
  return name;
}

// Sorts every leaf of `values` into what the template reads, what plugins read and the rest.
void sort_values(const Template& tpl, const LayeredValues& values, Explanation& out) {
  const std::vector<std::string> used = tpl.undeclared_variables();
  for (const auto& [pointer, source] : values.leaves()) {
    ExplainedValue value{dotted(pointer), values.merged().at(Json::json_pointer(pointer)),
                         source.kind, source.label};
    const std::string top = value.name.substr(0, value.name.find('.'));
    const bool reads = std::find(used.begin(), used.end(), top) != used.end();
    (reads                     ? out.values
     : is_plugin_fact(top)     ? out.for_plugins
     : is_validator_value(top) ? out.for_validator
     : is_companion_value(top) ? out.for_companions
                               : out.unused)
        .push_back(std::move(value));
  }
  for (const auto& name : used) {
    if (!values.merged().contains(name)) out.undefined.push_back(name);
  }
}

}  // namespace

Outcome Explanation::outcome() const noexcept {
  return prepare::values_outcome(!problems.empty(), !refusals.empty());
}

Explanation explain_values(const ConfigSession& session, const PreparedValues& values) {
  Explanation out;
  out.subject = "template " + session.request().template_name;
  out.template_name = session.config_template().name();
  if (!session.request().tier.empty()) {
    out.tier = tier_name_of(session.request().tier);
    out.tier_file = session.tier_file().string();
  }
  sort_values(session.config_template(), values.values, out);
  out.derived = values.facts;
  out.problems = values.problems;
  out.refusals = values.refusals;
  pipeline::explain_output_hooks(session.config_template(), session.plugins(),
                                 Value::from_json(values.values.merged()), values.values.merged(),
                                 values.hook_context, out);
  return out;
}

Explanation explain_family_config(const GenerateRequest& request, const std::string& config) {
  const DiagnosticSink sink = [&request](const Diagnostic& d) {
    if (request.on_message) request.on_message(d);
  };
  pipeline::FamilySetup setup = pipeline::load_family_setup(request, sink);
  const Expansion& expansion = *setup.expansion;
  const Family& family = expansion.family();
  auto output_path = setup.environment->from_string(family.output, family.file + " /output");

  // Each member is found by the path generate writes it to (manifest.json's `path`): with
  // plugins, the path of the values after their hooks, since auto-fit chooses values (stage,
  // micro_batch_size, ...) an output pattern may name. A hook's findings change no value.
  // The member is prepared as generate prepares it (prepare/prepare_config.hpp).
  const prepare::Checks checks{&setup.pins, setup.contract == "deepspeed", setup.plugins.get()};
  auto hook_context = [&](const Variant& variant) {
    return Json{{"template", family.template_name},
                {"family", family.name},
                {"tier", expansion.tier_name(variant)},
                {"variant", variant.choice},
                {"pinned", setup.pins.names()}};
  };
  std::optional<Variant> chosen;
  std::optional<SourcedValues> chosen_values;
  std::optional<prepare::PreparedConfig> prepared;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < expansion.size(); ++i) {
    Variant variant = expansion.variant(i);
    // Without plugins the merged values alone name the file (no provenance: fast).
    std::optional<SourcedValues> values;
    std::optional<prepare::PreparedConfig> variant_prepared;
    if (!setup.plugins->empty()) {
      values = expansion.values(variant);
      variant_prepared = prepare::prepare_sourced(*values, checks, hook_context(variant));
    }
    Json scope = values ? values->merged() : expansion.merged(variant);
    scope["tier"] = expansion.tier_name(variant);
    scope["family"] = family.name;
    scope["variant"] = variant.slug;
    std::string path = output_path->render(Value::from_json(scope));
    try {
      path = check_output_path(path, family);
    } catch (const Error& error) {
      throw CodedError(error, codes::output_path);  // as generate reports it
    }
    if (path == config || (config.empty() && expansion.size() == 1)) {
      if (chosen) {
        // generate refuses such a family; explaining one of the two would explain a config
        // that is never written.
        throw CodedError(
            Error(ErrorKind::Values,
                  "variant '" + expansion.describe(variant) + "': writes \"" + path +
                      "\", the same output path as variant '" + expansion.describe(*chosen) +
                      "': make the output pattern tell them apart",
                  family.file, "/output"),
            codes::output_shared_path);
      }
      chosen_values = values ? std::move(values) : expansion.values(variant);
      prepared = variant_prepared
                     ? std::move(variant_prepared)
                     : prepare::prepare_sourced(*chosen_values, checks, hook_context(variant));
      chosen = std::move(variant);
    }
    paths.push_back(std::move(path));
  }
  Explanation out;
  if (!chosen) {
    Diagnostic d;
    d.code = config.empty() ? codes::explain_choose_config : codes::explain_no_such_config;
    d.kind = ErrorKind::Usage;
    d.message =
        config.empty()
            ? "explain: family '" + family.name + "' has " + std::to_string(paths.size()) +
                  " configs; choose one with --config PATH:"
            : "explain: no config '" + config + "' in family '" + family.name + "'; its configs:";
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    for (std::size_t i = 0; i < paths.size() && i < 20; ++i) d.notes.push_back(paths[i]);
    if (paths.size() > 20)
      d.notes.push_back("... (" + std::to_string(paths.size() - 20) + " more)");
    out.problems.push_back(std::move(d));
    return out;
  }
  const SourcedValues& values = *chosen_values;
  out.problems = std::move(prepared->problems);
  out.subject = "config " + (config.empty() ? paths.front() : config) + " of family " +
                family.name + " (" + family.file + "), variant '" + expansion.describe(*chosen) +
                "'";
  out.template_name = setup.template_->name();
  if (chosen->tier != Variant::npos) {
    out.tier = expansion.tier_name(*chosen);
    out.tier_file = expansion.tiers()[chosen->tier].file;
  }
  sort_values(*setup.template_, values.layered(), out);
  out.derived = std::move(prepared->facts);
  for (const auto& finding : prepared->refusals)
    out.refusals.push_back(to_diagnostic(finding, family.file));
  out.notes = std::move(prepared->notes);
  // Rendered as generate renders it: the values, and the member's tier, family and variant.
  Json scope = values.merged();
  scope["tier"] = expansion.tier_name(*chosen);
  scope["family"] = family.name;
  scope["variant"] = chosen->slug;
  pipeline::explain_output_hooks(*setup.template_, *setup.plugins, Value::from_json(scope),
                                 values.merged(), hook_context(*chosen), out);
  return out;
}

}  // namespace zf
