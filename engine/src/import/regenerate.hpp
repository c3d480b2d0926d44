// SPDX-License-Identifier: MIT
// Rendering a member's values as `generate` will (template defaults < tier < member, the pins
// and the values contract, then the template), and fitting a config's values until the render
// gives the config back: what the contract refuses or the render gets wrong is demoted to
// `extra`, then every value the render does not need is dropped.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "import/config_mapping.hpp"
#include "prepare/prepare_config.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/template_defaults.hpp"
#include "zeroforge/value.hpp"

namespace zf::importer {

/// One template over a fixed base (its defaults and the tier): members' values rendered.
class Regenerator {
 public:
  /// `tier` is the tier file's values (an object; empty without a tier), named `tier_file`.
  Regenerator(const Environment& environment, const std::string& template_name, Json tier,
              std::string tier_file);

  /// The base, then `member`, merged as generate layers them.
  Json merged(const Json& member) const;
  /// `member` over the base, prepared as every config is (prepare/prepare_config.hpp; no
  /// plugins): what the pins and the values contract refuse, each at its value's pointer.
  prepare::PreparedConfig prepare(const Json& member) const;
  /// What a member's values are checked by: the template's pins and contract (no plugins).
  prepare::Checks checks() const noexcept {
    return {&defaults_.pins, defaults_.contract == "deepspeed", nullptr};
  }
  /// prepare(member).problems. The checks read only the kind of `extra` (an object, null, or
  /// something else, which the contract refuses) unless a pin names it, so an object `extra`
  /// is checked as `{}`: the fit asks this once per value it tries to drop, and `extra` can
  /// hold a million keys.
  std::vector<Diagnostic> problems(const Json& member) const;
  /// The rendered config (normalised JSON). Throws zf::Error for a template error. With
  /// `reads`, it is set to what the render read of the merged values (zeroforge/value.hpp's
  /// ValueReads; the merged values' paths are the member's).
  Json render(const Json& member, std::unique_ptr<ValueReads>* reads = nullptr) const;
  /// The template defaults' layers (what expand_family takes).
  const TemplateDefaults& defaults() const noexcept { return defaults_; }
  const std::string& template_name() const noexcept { return template_name_; }
  /// The template defaults' layers and the tier, merged: what a member's values go on.
  const Json& base() const noexcept { return base_; }

 private:
  std::string template_name_;
  std::shared_ptr<const Template> template_;
  TemplateDefaults defaults_;
  Json tier_;
  std::string tier_file_;
  Json base_;  // the template defaults' layers, then the tier, merged
};

/// A config's member values, fitted.
struct FittedMember {
  /// The member's values over the base: only those the render needs.
  Json values;
  /// The values with every key the template can say (before dropping what the base gives).
  Json full;
};

/// Fits `config`'s values: assembles the mapping, demotes what the contract refuses or the
/// render does not give back, until `regenerator.render(values)` equals `config` as a JSON
/// value; then drops each value the base already gives (one at a time, in the values' order,
/// each kept only if the contract refuses its absence or the render changes without it; a value
/// the render did not read is dropped without rendering again: see ValueReads). `file` names the
/// config in errors. Throws zf::Error (Values) when the template cannot give the config back at all
/// (a pinned value it contradicts, a key a custom template always writes).
FittedMember fit_member(ConfigMapping& mapping, const Json& config, const Regenerator& regenerator,
                        const std::string& file);

}  // namespace zf::importer
