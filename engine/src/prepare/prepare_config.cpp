// SPDX-License-Identifier: MIT
// The one prepare sequence (see prepare_config.hpp): hooks, pins, contract, in that order, for
// each form a caller keeps its values in.
#include "prepare/prepare_config.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/validator.hpp"

namespace zf::prepare {
using Json = nlohmann::ordered_json;

Outcome values_outcome(bool has_problems, bool has_refusals) noexcept {
  if (has_problems) return Outcome::Failed;
  if (has_refusals) return Outcome::Refused;
  return Outcome::Done;
}

Outcome PreparedConfig::outcome() const noexcept {
  return values_outcome(!problems.empty(), !refusals.empty());
}

ValidateOptions validate_options_of(const DeepSpeedFacts& facts) {
  ValidateOptions options;
  options.world_size = facts.world_size;
  options.hf = facts.hf_auto;
  options.deepspeed_version = facts.deepspeed_version;
  options.accelerate_version = facts.accelerate_version;
  return options;
}

namespace {

bool has_hooks(const Checks& checks) {
  return checks.plugins != nullptr && !checks.plugins->empty();
}

// A problem placed at the label of the layer that wrote its value (`--set stage=5`).
Diagnostic at_layer(const Error& problem, const LayeredValues& values, const char* code) {
  const LayerSource* source = values.origin(problem.json_pointer());
  return to_diagnostic(Error(ErrorKind::Values, problem.message(), source ? source->label : "",
                             problem.json_pointer()),
                       code);
}

// How a form of values turns a pins or contract error into a diagnostic.
template <typename Place>
void add_problems(const std::vector<Error>& errors, const char* code, Place&& place,
                  PreparedConfig& out) {
  for (const Error& error : errors) out.problems.push_back(place(error, code));
}

// The facts (or, for a template without the contract, what the validator reads of the
// merged values) once pins and contract are known.
void take_facts(ContractCheck&& check, PreparedConfig& out) {
  if (!out.problems.empty()) return;
  out.validate = validate_options_of(check.facts);
  out.facts = std::move(check.facts);
}

// The checks after the hooks, on merged values; `sources` places the errors at files.
template <typename Place>
void check_merged(const Json& merged, const SourcedValues* sources, const Checks& checks,
                  Place&& place, PreparedConfig& out) {
  if (checks.pins != nullptr)
    add_problems(check_pinned_values(*checks.pins, merged, sources), codes::values_pinned, place,
                 out);
  if (checks.deepspeed) {
    ContractCheck check = check_deepspeed_values(merged, sources);
    add_problems(check.problems, codes::values_contract, place, out);
    take_facts(std::move(check), out);
  } else {
    out.validate = validate_options_from_values(merged);
  }
}

// Whether `after` keeps every entry of `before`: a list a plugin added to (the site
// profile's volumes after the family's) rather than one whose values it replaced.
bool extends(const Json& before, const Json& after) {
  if (!before.is_array() || !after.is_array()) return false;
  for (const Json& entry : before)
    if (std::find(after.begin(), after.end(), entry) == after.end()) return false;
  return true;
}

// The note for a value of the family's that a plugin replaced (tier files and template
// defaults are defaults a plugin may change, as auto-fit does: explain shows those).
std::optional<Diagnostic> replaced_note(const ValuesHookResult::Replacement& change,
                                        const SourcedValues& values) {
  const auto& layers = values.layered().layers();
  if (change.layer >= layers.size()) return std::nullopt;
  const LayerKind kind = layers[change.layer].kind;
  if (kind != LayerKind::Family && kind != LayerKind::Variant) return std::nullopt;
  if (extends(change.before, change.after)) return std::nullopt;
  auto [file, pointer] = values.site_in_layer(change.layer, change.pointer);
  Diagnostic d = to_diagnostic(
      Error(ErrorKind::Values,
            "plugin " + change.plugin + " replaces this value, " + change.before.dump() +
                ", with " + change.after.dump() +
                " (a plugin's value wins over the family's and the tier's; --set and --values "
                "win over a plugin's)",
            std::move(file), std::move(pointer)),
      codes::values_plugin_replaced);
  d.severity = Severity::Note;
  return d;
}

Diagnostic as_placed(const Error& problem, const char* code) {
  return to_diagnostic(problem, code);
}

}  // namespace

PreparedConfig prepare_layered(LayeredValues& values, const Checks& checks,
                               const Json& hook_context) {
  PreparedConfig out;
  if (has_hooks(checks)) {
    ValuesHookResult hooks = checks.plugins->run_values_hooks(values, hook_context);
    out.refusals = std::move(hooks.findings);
    out.plugin_manifest = std::move(hooks.manifest);
  }
  check_merged(
      values.merged(), nullptr, checks,
      [&values](const Error& problem, const char* code) { return at_layer(problem, values, code); },
      out);
  return out;
}

PreparedConfig prepare_sourced(SourcedValues& values, const Checks& checks,
                               const Json& hook_context) {
  PreparedConfig out;
  if (has_hooks(checks)) {
    ValuesHookResult hooks =
        checks.plugins->run_values_hooks(values.layered_for_hooks(), hook_context);
    // Each refusal names the file and pointer where the value it points at was written.
    for (PluginFinding& finding : hooks.findings) {
      if (finding.pointer.empty()) continue;
      auto [file, pointer] = values.site(finding.pointer);
      if (file.empty()) continue;
      finding.file = std::move(file);
      finding.file_pointer = std::move(pointer);
    }
    for (const auto& change : hooks.replaced)
      if (auto note = replaced_note(change, values)) out.notes.push_back(std::move(*note));
    out.refusals = std::move(hooks.findings);
    out.plugin_manifest = std::move(hooks.manifest);
  }
  check_merged(values.merged(), &values, checks, as_placed, out);
  return out;
}

PreparedConfig prepare_two_layers(const VariantValues::Layers& values, const Checks& checks) {
  PreparedConfig out;
  const ValueDict& top = values.top;
  const ValueDict& base = values.base->as_dict();
  if (checks.pins != nullptr)
    add_problems(check_pinned_values(*checks.pins, top, base), codes::values_pinned, as_placed,
                 out);
  if (checks.deepspeed) {
    ContractCheck check = check_deepspeed_values(top, base);
    add_problems(check.problems, codes::values_contract, as_placed, out);
    take_facts(std::move(check), out);
  } else {
    out.validate = validate_options_from_values(values.merged().to_json());
  }
  return out;
}

PreparedConfig prepare_merged(const Json& values, const Checks& checks) {
  PreparedConfig out;
  check_merged(values, nullptr, checks, as_placed, out);
  return out;
}

}  // namespace zf::prepare
