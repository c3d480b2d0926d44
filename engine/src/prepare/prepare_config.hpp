// SPDX-License-Identifier: MIT
// The one sequence that prepares a config's values, whoever asks for the config (render,
// generate, explain of a template or of a family member, import's round trip, the Python
// module through them): the plugins' values hooks, then the template's pinned values, then its
// values contract; one result, one rule for how it ends, and one set of validator options.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/template_defaults.hpp"
#include "zeroforge/validate_options.hpp"
#include "zeroforge/values.hpp"

namespace zf::prepare {

/// What a config's values are checked by: the same for every config of one template.
struct Checks {
  const TemplatePins* pins = nullptr;  ///< the template's pinned values (nullptr: none)
  bool deepspeed = false;              ///< the template has the DeepSpeed values contract
  /// The plugins whose values hooks run first (nullptr or empty: no hooks).
  const PluginHost* plugins = nullptr;
};

/// A config's values, prepared.
struct PreparedConfig {
  /// `values.pinned`, then `values.contract` problems, each placed where its value was
  /// written as far as the values say (a file and pointer, a layer's label, or the value's
  /// pointer alone for the two-layer form).
  std::vector<Diagnostic> problems;
  /// What the plugins' values hooks refused, placed at the file and pointer of the value it
  /// points at where the values know it.
  std::vector<PluginFinding> refusals;
  /// The contract's facts (templates under it, no problems).
  std::optional<DeepSpeedFacts> facts;
  /// What the rendered config is validated with: the world size, the Trainer's "auto" and the
  /// DeepSpeed release the values pin (deepspeed_version).
  ValidateOptions validate;
  /// `values.plugin-replaced` notes: a value the family file wrote (its values, an axis or
  /// include entry, a values file it names) that a plugin's values replaced, placed where the
  /// family wrote it (prepare_sourced only; the other forms have no family layers).
  std::vector<Diagnostic> notes;
  /// The hooks' manifest annotations (`{"memory": {...}}`).
  nlohmann::ordered_json plugin_manifest = nlohmann::ordered_json::object();

  /// values_outcome(): every check runs whatever an earlier one found, so a refusal and a
  /// problem are both reported, and the problem decides.
  Outcome outcome() const noexcept;
};

/// The one rule for how prepared values end: bad values (problems) are Failed whatever a
/// plugin said, else a plugin's refusal is Refused, else Done.
Outcome values_outcome(bool has_problems, bool has_refusals) noexcept;

/// Prepares values that keep their layers: the hooks may add theirs. Problems are placed at
/// the label of the layer that wrote each value (`--set stage=5`, a values file).
PreparedConfig prepare_layered(LayeredValues& values, const Checks& checks,
                               const nlohmann::ordered_json& hook_context);

/// The same for values that know the file and pointer of every layer (a family member):
/// problems and refusals name them.
PreparedConfig prepare_sourced(SourcedValues& values, const Checks& checks,
                               const nlohmann::ordered_json& hook_context);

/// A family member without plugins, kept in two layers (VariantValues') for speed: no hooks
/// run, and problems carry value pointers only, so a caller that gets any prepares the member
/// again with prepare_sourced to place them.
PreparedConfig prepare_two_layers(const VariantValues::Layers& values, const Checks& checks);

/// Merged values with no layers and no hooks (import fits values to a config this way).
PreparedConfig prepare_merged(const nlohmann::ordered_json& values, const Checks& checks);

/// The validator's options for a config whose values gave `facts` (the DeepSpeed contract's).
ValidateOptions validate_options_of(const DeepSpeedFacts& facts);

}  // namespace zf::prepare
