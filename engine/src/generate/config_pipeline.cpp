// SPDX-License-Identifier: MIT
// ConfigMaker (see config_pipeline.hpp).
#include "config_pipeline.hpp"

#include "fit_assumptions.hpp"
#include "remark.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {
namespace {

// A companion's refusal or warning about the value at `pointer`, placed where that value was
// written; a value no layer wrote (a required one left out) where the family would write it,
// under its `values`, so that the line names the file to edit.
Error companion_error(const SourcedValues& sources, const Family& family,
                      const std::string& pointer, const std::string& message) {
  if (sources.site(pointer).first.empty() && !family.file.empty())
    return Error(ErrorKind::Values, message, family.file, "/values" + pointer);
  return sources.error_at(pointer, message);
}

}  // namespace

using Json = nlohmann::ordered_json;

ConfigMaker::ConfigMaker(const FamilySetup& setup, ConfigTarget target)
    : setup_(setup),
      expansion_(*setup.expansion),
      variant_values_(expansion_),
      output_path_(setup.environment->from_string(expansion_.family().output,
                                                  expansion_.family().file + " /output")),
      target_(std::move(target)),
      checks_{&setup.pins, setup.contract == "deepspeed", setup.plugins.get()} {}

Json ConfigMaker::hook_context(const Variant& variant) const {
  const Family& family = expansion_.family();
  return {{"template", family.template_name},
          {"family", family.name},
          {"tier", expansion_.tier_name(variant)},
          {"variant", variant.choice},
          {"pinned", setup_.pins.names()}};
}

std::vector<Diagnostic> ConfigMaker::problems_with_sources(const Variant& variant) const {
  SourcedValues values = expansion_.values(variant);
  return prepare::prepare_sourced(values, checks_, hook_context(variant)).problems;
}

std::optional<ConfigMaker::Member> ConfigMaker::prepare(ConfigJob& job,
                                                        const Variant& variant) const {
  const Family& family = expansion_.family();
  const std::string& tier = expansion_.tier_name(variant);
  Member member;
  prepare::PreparedConfig prepared;
  if (setup_.plugins->empty()) {
    // Without plugins the values stay in two layers: the tier's, shared, and the variant's.
    VariantValues::Layers layers = variant_values_.values(variant);
    prepared = prepare::prepare_two_layers(layers, checks_);
    if (prepared.outcome() != Outcome::Done) {
      job.problems = problems_with_sources(variant);  // placed where each value was written
      return std::nullopt;
    }
    if (!checks_.deepspeed)
      member.entry.facts = {{"world_size", world_size_of(layers.merged().to_json())}};
    layers.top.set("tier", Value(tier));
    layers.top.set("family", Value(family.name));
    layers.top.set("variant", Value(variant.slug));
    member.values.values = Value(std::move(layers.top));
    member.values.globals = layers.base;
  } else {
    member.context = hook_context(variant);
    SourcedValues sourced = expansion_.values(variant);
    prepared = prepare::prepare_sourced(sourced, checks_, member.context);
    // Said once per run for the configs that share the value (generate's warned_).
    for (auto& note : prepared.notes) job.warnings.push_back(std::move(note));
    if (prepared.outcome() != Outcome::Done) {
      job.problems = std::move(prepared.problems);
      job.refusals = std::move(prepared.refusals);
      return std::nullopt;
    }
    member.entry.plugins = std::move(prepared.plugin_manifest);
    member.merged = sourced.merged();
    if (!checks_.deepspeed) member.entry.facts = {{"world_size", world_size_of(member.merged)}};
    Json named = member.merged;
    named["tier"] = tier;
    named["family"] = family.name;
    named["variant"] = variant.slug;
    member.values.values = Value::from_json(named);
  }
  member.validate = std::move(prepared.validate);
  if (prepared.facts) {
    member.facts = std::move(*prepared.facts);
    member.entry.facts = facts_to_json(member.facts);
  }
  try {
    member.entry.path = check_output_path(
        output_path_->render(member.values.values, member.values.globals), family);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::Values)
      throw RenderFailure{error, job.index, "naming the file of"};
    job.problems.push_back(to_diagnostic(error, codes::output_path));
    return std::nullopt;
  }
  member.entry.tier = tier;
  return member;
}

void ConfigMaker::make(ConfigJob& job) const {
  Variant variant = expansion_.variant(job.index);
  std::optional<Member> member = prepare(job, variant);
  if (!member) return;
  ManifestEntry& entry = member->entry;
  const RenderValues& values = member->values;
  entry.variant = std::move(variant.choice);
  job.path = entry.path;

  // One tree per thread, read into again for each config: the members of a family share
  // their shape, so the tree's objects, arrays and strings are reused instead of allocated
  // and freed per config. Taken out while in use and given back on every return, so a
  // nested generate on this thread (a plugin's) starts from a tree of its own.
  thread_local Json scratch_config;
  struct GiveBack {
    Json tree;
    GiveBack() { tree.swap(scratch_config); }
    ~GiveBack() { scratch_config.swap(tree); }
    GiveBack(const GiveBack&) = delete;
    GiveBack& operator=(const GiveBack&) = delete;
  } held;
  Json& config = held.tree;
  try {
    setup_.template_->render_json_into(values.values, config, values.globals);
  } catch (const Error& error) {
    throw RenderFailure{error, job.index, "rendering"};
  }
  const PluginHost& plugins = *setup_.plugins;
  if (!plugins.empty()) {
    auto out = plugins.run_output_hooks(std::move(config), member->merged, member->context);
    config = std::move(out.config);
    for (auto& [key, value] : out.manifest.items()) entry.plugins[key] = value;
  }
  job.made = true;
  if (validates(target_.validation, setup_.contract)) {
    job.findings = validate_config(config, member->validate, target_.finding_prefix + entry.path);
    if (has_errors(job.findings)) return;
  }
  // Scratch kept per thread, as in render_json: no allocation of config size per config.
  thread_local std::string text;
  text.clear();
  append_json_text(text, config);
  entry.sha256 = sha256_hex(text);
  if (target_.companions != nullptr && !make_companions(job, variant, *member, config)) return;
  if (target_.drift) {
    job.drift = target_.drift->compare(entry.path, text);
  } else if (target_.staged) {  // neither: a dry run
    target_.staged->write(entry.path, text);
  }
  job.entry_text = manifest_entry_text(entry);
}

bool ConfigMaker::make_companions(ConfigJob& job, const Variant& variant, Member& member,
                                  const Json& config) const {
  ManifestEntry& entry = member.entry;
  const RenderValues& values = member.values;
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
                      CompanionSubject{entry.path, &config, &member.facts, &needed,
                                       fit ? &*fit : nullptr, expansion_.family().name, tier});
  if (!plan.problems.empty()) {
    // Placed where each value was written (the values are layered again, with provenance:
    // only for a refused variant).
    SourcedValues sources = expansion_.values(variant);
    prepare::prepare_sourced(sources, checks_, member.context);  // the hooks' values too
    for (const auto& problem : plan.problems)
      job.problems.push_back(to_diagnostic(
          companion_error(sources, expansion_.family(), problem.pointer, problem.message),
          codes::companion_values));
    job.made = false;
    return false;
  }
  if (!plan.warnings.empty()) {
    SourcedValues sources = expansion_.values(variant);
    prepare::prepare_sourced(sources, checks_, member.context);  // the hooks' values too
    for (const auto& warning : plan.warnings) {
      Diagnostic d;
      if (warning.pointer.empty()) {
        d = remark(codes::companion_slurm_cpus, Severity::Warning, warning.message);
        d.kind = ErrorKind::Values;
        if (tier != nullptr) d.where.file = tier->file;
      } else {
        d = to_diagnostic(
            companion_error(sources, expansion_.family(), warning.pointer, warning.message),
            codes::companion_slurm_cpus);
      }
      d.severity = Severity::Warning;
      job.warnings.push_back(std::move(d));
    }
  }
  for (const auto& [kind, path] : plan.files) {
    try {
      check_output_path(path, expansion_.family());
    } catch (const Error& error) {
      job.problems.push_back(to_diagnostic(error, codes::output_path));
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
