// SPDX-License-Identifier: MIT
// Turning a FAMILY argument and the shared options into what generate and explain work from:
// the family, its tiers, the template, plugins, template defaults and the expansion.
#pragma once

#include <memory>
#include <string>

#include "common_options.hpp"
#include "plugin_options.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"

namespace zf::cli {

/// A family ready to render.
struct FamilySetup {
  std::unique_ptr<Environment> environment;
  std::unique_ptr<PluginHost> plugins;
  std::shared_ptr<const Template> template_;
  /// The values contract ("deepspeed") or "".
  std::string contract;
  /// The values the family's template pins (its defaults.json's `pinned`).
  TemplatePins pins;
  std::unique_ptr<Expansion> expansion;
};

/// The family file FAMILY names: a path (contains '/' or ends in .json) or the name of a
/// shipped family (presets/families/NAME.json). Throws zf::Error (Usage) when missing.
std::filesystem::path resolve_family(const std::string& family);

/// Loads the family, its tiers (names from presets/tiers/, paths relative to the family file),
/// the plugins (the family's, then --plugin), the template, its defaults, and expands it with
/// `inputs.values_files` and `inputs.sets` as overrides. Errors name the family file and pointer.
FamilySetup load_family_setup(const std::string& family, const CommonInputs& inputs,
                              const PluginInputs& plugin_inputs);

/// `world_size`, else `gpus_per_node * nodes` when both are integers, else null: the
/// manifest's world size for templates without the DeepSpeed contract.
nlohmann::ordered_json world_size_of(const nlohmann::ordered_json& values);

}  // namespace zf::cli
