// SPDX-License-Identifier: MIT
// Template defaults and the values contract for the commands that render one template
// (render, explain): the defaults layer goes first, the contract check runs before rendering.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/values.hpp"

namespace zf::cli {

/// Refuses a TEMPLATE argument that is not a name on the search path (a path such as
/// /home/me/x.j2, or a name that climbs out with '..'), saying how to render that file. Call it
/// first, so the error names the argument rather than something looked up from it.
void check_template_argument(const Environment& environment, const std::string& template_name);

/// Applies the TemplateDefault layers of a template (load_template_defaults: its directory's
/// defaults.json) to `values`; call it before any other layer.
void apply_template_defaults(const TemplateDefaults& defaults, LayeredValues& values);

/// Checks `values` against the values the template pins and, when its defaults declare the
/// DeepSpeed contract, against that: prints every problem but the last to stderr and throws
/// the last (exit code 2), naming the file (tier, values file, --set) and pointer of each
/// offending value.
void check_template_values(const TemplateDefaults& defaults, const LayeredValues& values);

/// The problems check_template_values reports, without printing or throwing: pinned values
/// changed, then (DeepSpeed contract) the contract's, each placed at the layer's label. With
/// `facts`, stores the contract's facts there (meaningful only without problems).
std::vector<Error> template_value_problems(const TemplateDefaults& defaults,
                                           const LayeredValues& values,
                                           DeepSpeedFacts* facts = nullptr);

/// True for the values the DeepSpeed contract keeps for plugins, which no template reads:
/// the tier facts (gpu_memory_gib, cpu_memory_gib, gpu_memory_margin, gpu, tier, model) and
/// `auto_fit`.
bool is_plugin_fact(std::string_view top_level_name);

/// Warns on stderr about each value a values file or --set gave that `tpl` never reads
/// (`--set frobnicate=1`: a typo, or a value for another template), naming where it was set.
void warn_unread_values(const Template& tpl, const LayeredValues& values);

/// Warns on stderr about each value a tier, values file or --set gave that only a block of a
/// parent template reads, a block `tpl` overrides without super() (pipeline::
/// overridden_block_warnings): the value has no effect.
void warn_overridden_block_values(const Template& tpl, const LayeredValues& values);

/// Throws the last of `problems` after printing the others (a no-op when empty).
void throw_problems(const std::vector<Error>& problems);

}  // namespace zf::cli
