// SPDX-License-Identifier: MIT
// ConfigPreparer and ConfigMaker (see config_pipeline.hpp).
#include "config_pipeline.hpp"

#include "zeroforge/output.hpp"

namespace zf::cli {

using Json = nlohmann::ordered_json;

ConfigPreparer::ConfigPreparer(const FamilySetup& setup, ProblemLog& problems,
                               std::vector<PluginFinding>& refusals)
    : setup_(setup),
      expansion_(*setup.expansion),
      output_path_(setup.environment->from_string(expansion_.family().output,
                                                  expansion_.family().file + " /output")),
      problems_(problems),
      refusals_(refusals),
      current_(expansion_),
      deepspeed_(setup.contract == "deepspeed") {}

void ConfigPreparer::next(std::vector<ConfigJob>& out, std::size_t limit) {
  const Family& family = expansion_.family();
  out.clear();
  for (; index_ < expansion_.size() && out.size() < limit; ++index_) {
    Variant variant = expansion_.variant(index_);
    const std::string& tier = expansion_.tier_name(variant);
    ConfigJob job;
    job.index = index_;
    if (!setup_.plugins->empty()) {
      job.context = {{"template", family.template_name},
                     {"family", family.name},
                     {"tier", tier},
                     {"variant", variant.choice}};
    }
    Json hooked;
    if (setup_.plugins->empty()) {
      current_.load(variant);  // its values stay in two layers: see VariantValues
    } else {
      SourcedValues values = expansion_.values(variant);
      auto hooks = setup_.plugins->run_values_hooks(values.layered_for_hooks(), job.context);
      if (!hooks.findings.empty()) {
        // Well-formed values the plugin cannot honour (e.g. a model that does not fit):
        // reported with every other such config, and nothing is written.
        for (auto& finding : hooks.findings) refusals_.push_back(std::move(finding));
        continue;
      }
      job.entry.plugins = std::move(hooks.manifest);
      hooked = values.merged();
    }
    // The variant's values are read by the contract now, and (with the three names below
    // added) by the output hooks and the validator.
    const bool plain = setup_.plugins->empty();
    if (deepspeed_) {
      ContractCheck check = plain ? check_deepspeed_values(current_.top(), current_.base())
                                  : check_deepspeed_values(hooked);
      if (!check.ok()) {
        // Rebuild with provenance so each error names the file and pointer of the value.
        SourcedValues values = expansion_.values(variant);
        if (!plain) setup_.plugins->run_values_hooks(values.layered_for_hooks(), job.context);
        for (const auto& problem : check_deepspeed_values(values.merged(), &values).problems) {
          problems_.add(problem, expansion_.describe(variant));
        }
        continue;
      }
      job.entry.facts = facts_to_json(check.facts);
      // What validate_options_from_values would read, already worked out by the contract.
      job.validate.world_size = check.facts.world_size;
      job.validate.hf = check.facts.hf_auto;
    } else {
      const Json merged = plain ? current_.value().to_json() : hooked;
      job.entry.facts = {{"world_size", world_size_of(merged)}};
      job.validate = validate_options_from_values(merged);
    }

    // The values plus the names the output pattern (and the template) may use: the values
    // hooks and the contract have seen the values; these three names are generate's own.
    if (plain) {
      current_.set("tier", tier);
      current_.set("family", family.name);
      current_.set("variant", variant.slug);
      job.values = current_.value();
    } else {
      job.merged = hooked;
      hooked["tier"] = tier;
      hooked["family"] = family.name;
      hooked["variant"] = variant.slug;
      job.values = Value::from_json(hooked);
    }
    std::string path;
    try {
      path = check_output_path(output_path_->render(job.values), family);
    } catch (const Error& error) {
      if (error.kind() != ErrorKind::Values)
        throw RenderFailure{error, index_, "naming the file of"};
      problems_.add(error, expansion_.describe(variant));
      continue;
    }
    if (!problems_.empty() || !refusals_.empty()) continue;  // keep checking; render nothing more
    job.entry.path = std::move(path);
    job.entry.tier = tier;
    job.entry.variant = std::move(variant.choice);
    out.push_back(std::move(job));
  }
}

void ConfigMaker::make(ConfigJob& job) const {
  Json config;
  try {
    config = tpl.render_json(job.values);
  } catch (const Error& error) {
    throw RenderFailure{error, job.index, "rendering"};
  }
  job.values = Value();  // the values are shared with the next variant's; let them go early
  if (!plugins.empty()) {
    auto out = plugins.run_output_hooks(std::move(config), job.merged, job.context);
    config = std::move(out.config);
    for (auto& [key, value] : out.manifest.items()) job.entry.plugins[key] = value;
  }
  if (validate && (deepspeed || is_deepspeed_config(config))) {
    job.findings = validate_config(config, job.validate, finding_prefix + job.entry.path);
    if (has_errors(job.findings)) return;
  }
  // Scratch kept per thread, as in render_json: no allocation of config size per config.
  thread_local std::string text;
  text.clear();
  append_json_text(text, config);
  job.entry.sha256 = sha256_hex(text);
  if (drift) {
    job.drift = drift->compare(job.entry.path, text);
  } else {
    staged->write(job.entry.path, text);
  }
  job.entry_text = manifest_entry_text(job.entry);
}

}  // namespace zf::cli
