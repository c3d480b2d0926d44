// SPDX-License-Identifier: MIT
// What plugins' output hooks change in a rendered config, for `explain`: the config rendered,
// run through the hooks, and the two compared field by field, each change named with the
// plugin whose hook made it.
#pragma once

#include <nlohmann/json.hpp>

#include "zeroforge/pipeline.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace zf::pipeline {

/// Renders `tpl` over `render_values`, runs `plugins`' output hooks on it (with `merged`, the
/// values, and `context`, as generate passes them) and adds each field they changed to
/// `out.output_hooks`. Does nothing when no plugin has an output hook, `tpl` is not a JSON
/// template, or `out` already has problems or refusals (the config is not made then); a template or
/// hook error becomes one of `out.problems`, as generate would stop at it.
void explain_output_hooks(const Template& tpl, const PluginHost& plugins,
                          const Value& render_values, const nlohmann::ordered_json& merged,
                          const nlohmann::ordered_json& context, Explanation& out);

}  // namespace zf::pipeline
