// SPDX-License-Identifier: MIT
// ConfigMaker (see config_pipeline.hpp).
#include "config_pipeline.hpp"

#include "fit_assumptions.hpp"
#include "remark.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

ConfigMaker::ConfigMaker(const FamilySetup& setup, ConfigTarget target)
    : setup_(setup),
      expansion_(*setup.expansion),
      variant_values_(expansion_),
      output_path_(setup.environment->from_string(expansion_.family().output,
                                                  expansion_.family().file + " /output")),
      target_(std::move(target)),
      deepspeed_(setup.contract == "deepspeed") {}

std::vector<Diagnostic> ConfigMaker::problems_with_sources(const Variant& variant,
                                                           const Json& context) const {
  SourcedValues values = expansion_.values(variant);
  if (!setup_.plugins->empty())
    setup_.plugins->run_values_hooks(values.layered_for_hooks(), context);
  return check_sourced_values(setup_, values).problems;
}

bool ConfigMaker::prepare(ConfigJob& job, const Variant& variant, ManifestEntry& entry,
                          ValidateOptions& validate, RenderValues& values, Json& merged,
                          Json& context, DeepSpeedFacts& facts) const {
  const Family& family = expansion_.family();
  const std::string& tier = expansion_.tier_name(variant);
  // The values are read by the contract now, and (with generate's own three names added, see
  // below) by the output pattern, the template, the output hooks and the validator.
  auto take_facts = [&](const ContractCheck& check) {
    facts = check.facts;
    entry.facts = facts_to_json(check.facts);
    // What validate_options_from_values would read, already worked out by the contract.
    validate.world_size = check.facts.world_size;
    validate.hf = check.facts.hf_auto;
  };
  auto take_plain_facts = [&](const Json& all) {
    entry.facts = {{"world_size", world_size_of(all)}};
    validate = validate_options_from_values(all);
  };
  if (setup_.plugins->empty()) {
    // Without plugins the values stay in two layers: the tier's, shared, and the variant's.
    VariantValues::Layers layers = variant_values_.values(variant);
    if (!setup_.pins.empty() &&
        !check_pinned_values(setup_.pins, layers.top, layers.base->as_dict()).empty()) {
      job.problems = problems_with_sources(variant, context);
      return false;
    }
    if (deepspeed_) {
      ContractCheck check = check_deepspeed_values(layers.top, layers.base->as_dict());
      if (!check.ok()) {
        job.problems = problems_with_sources(variant, context);
        return false;
      }
      take_facts(check);
    } else {
      take_plain_facts(layers.merged().to_json());
    }
    layers.top.set("tier", Value(tier));
    layers.top.set("family", Value(family.name));
    layers.top.set("variant", Value(variant.slug));
    values.values = Value(std::move(layers.top));
    values.globals = layers.base;
  } else {
    context = {{"template", family.template_name},
               {"family", family.name},
               {"tier", tier},
               {"variant", variant.choice},
               {"pinned", setup_.pins.names()}};
    SourcedValues sourced = expansion_.values(variant);
    auto hooks = setup_.plugins->run_values_hooks(sourced.layered_for_hooks(), context);
    if (!hooks.findings.empty()) {
      // Each refusal names the file and pointer where the value it points at was written.
      for (auto& finding : hooks.findings) place_finding(finding, sourced);
      job.refusals = std::move(hooks.findings);
      return false;
    }
    entry.plugins = std::move(hooks.manifest);
    merged = sourced.merged();
    if (!check_pinned_values(setup_.pins, merged).empty()) {
      job.problems = problems_with_sources(variant, context);
      return false;
    }
    if (deepspeed_) {
      ContractCheck check = check_deepspeed_values(merged);
      if (!check.ok()) {
        job.problems = problems_with_sources(variant, context);
        return false;
      }
      take_facts(check);
    } else {
      take_plain_facts(merged);
    }
    Json named = merged;
    named["tier"] = tier;
    named["family"] = family.name;
    named["variant"] = variant.slug;
    values.values = Value::from_json(named);
  }
  try {
    entry.path = check_output_path(output_path_->render(values.values, values.globals), family);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::Values)
      throw RenderFailure{error, job.index, "naming the file of"};
    job.problems.push_back(to_diagnostic(error, "output.path"));
    return false;
  }
  entry.tier = tier;
  return true;
}

void ConfigMaker::make(ConfigJob& job) const {
  Variant variant = expansion_.variant(job.index);
  ManifestEntry entry;
  ValidateOptions validate;
  RenderValues values;
  Json merged, context;  // with plugins: the values and the config's description for hooks
  DeepSpeedFacts facts;
  if (!prepare(job, variant, entry, validate, values, merged, context, facts)) return;
  entry.variant = std::move(variant.choice);
  job.path = entry.path;

  Json config;
  try {
    config = setup_.template_->render_json(values.values, values.globals);
  } catch (const Error& error) {
    throw RenderFailure{error, job.index, "rendering"};
  }
  const PluginHost& plugins = *setup_.plugins;
  if (!plugins.empty()) {
    auto out = plugins.run_output_hooks(std::move(config), merged, context);
    config = std::move(out.config);
    for (auto& [key, value] : out.manifest.items()) entry.plugins[key] = value;
  }
  job.made = true;
  if (validates(target_.validation, setup_.contract)) {
    job.findings = validate_config(config, validate, target_.finding_prefix + entry.path);
    if (has_errors(job.findings)) return;
  }
  // Scratch kept per thread, as in render_json: no allocation of config size per config.
  thread_local std::string text;
  text.clear();
  append_json_text(text, config);
  entry.sha256 = sha256_hex(text);
  if (target_.companions != nullptr &&
      !make_companions(job, variant, entry, config, facts, values, context))
    return;
  if (target_.drift) {
    job.drift = target_.drift->compare(entry.path, text);
  } else if (target_.staged) {  // neither: a dry run
    target_.staged->write(entry.path, text);
  }
  job.entry_text = manifest_entry_text(entry);
}

bool ConfigMaker::make_companions(ConfigJob& job, const Variant& variant, ManifestEntry& entry,
                                  const Json& config, const DeepSpeedFacts& facts,
                                  const RenderValues& values, const Json& context) const {
  // The few values companions read, from the variant's layers (or the merged values).
  Json needed = Json::object();
  for (const auto& name : companion_value_names()) {
    const Value* value = values.values.as_dict().find(name);
    if (value == nullptr && values.globals != nullptr) value = values.globals->as_dict().find(name);
    if (value != nullptr) needed[name] = value->to_json();
  }
  // The fit assumptions record, whichever plugin published it: what the fit assumed about the
  // run, which its launch must carry out.
  std::optional<FitAssumptions> fit;
  try {
    fit = read_fit_assumptions(entry.plugins);
  } catch (const Error& error) {
    job.problems.push_back(to_diagnostic(error));
    job.made = false;
    return false;
  }
  const Tier* tier = variant.tier == Variant::npos ? nullptr : &expansion_.tiers().at(variant.tier);
  CompanionPlan plan =
      plan_companions(target_.companions->kinds(),
                      CompanionSubject{entry.path, &config, &facts, &needed, fit ? &*fit : nullptr,
                                       expansion_.family().name, tier});
  if (!plan.problems.empty()) {
    // Placed where each value was written (the values are layered again, with provenance:
    // only for a refused variant).
    SourcedValues sources = expansion_.values(variant);
    Json hook_context = context;
    if (!setup_.plugins->empty())
      setup_.plugins->run_values_hooks(sources.layered_for_hooks(), hook_context);
    for (const auto& problem : plan.problems)
      job.problems.push_back(
          to_diagnostic(sources.error_at(problem.pointer, problem.message), "companion.values"));
    job.made = false;
    return false;
  }
  if (!plan.warnings.empty()) {
    SourcedValues sources = expansion_.values(variant);
    Json hook_context = context;
    if (!setup_.plugins->empty())
      setup_.plugins->run_values_hooks(sources.layered_for_hooks(), hook_context);
    for (const auto& warning : plan.warnings) {
      Diagnostic d;
      if (warning.pointer.empty()) {
        d = remark("companion.slurm-cpus", Severity::Warning, warning.message);
        d.kind = ErrorKind::Values;
        if (tier != nullptr) d.where.file = tier->file;
      } else {
        d = to_diagnostic(sources.error_at(warning.pointer, warning.message),
                          "companion.slurm-cpus");
      }
      d.severity = Severity::Warning;
      job.warnings.push_back(std::move(d));
    }
  }
  for (const auto& [kind, path] : plan.files) {
    try {
      check_output_path(path, expansion_.family());
    } catch (const Error& error) {
      job.problems.push_back(to_diagnostic(error, "output.path"));
      job.made = false;
      return false;
    }
  }
  std::vector<DriftStatus> status;
  try {
    status = target_.companions->write(plan, values.values, values.globals, target_.staged,
                                       target_.drift);
  } catch (const Error& error) {
    throw RenderFailure{error, job.index, "rendering the companions of"};
  }
  for (std::size_t i = 0; i < plan.files.size(); ++i) {
    entry.companions[plan.files[i].first] = plan.files[i].second;
    job.companions.emplace_back(plan.files[i].second, status[i]);
  }
  if (!plan.launch.is_null()) entry.facts["launch"] = std::move(plan.launch);  // for report
  return true;
}

}  // namespace zf::pipeline
