// SPDX-License-Identifier: MIT
// explain_output_hooks (see output_hook_changes.hpp): the rendered config before and after the
// output hooks, compared leaf by leaf.
#include "output_hook_changes.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"

namespace zf::pipeline {
using Json = nlohmann::ordered_json;

namespace {

// Every leaf of `json` (a scalar, an array, or an empty object: what a merge patch replaces
// whole) with its JSON pointer, in the config's order.
void collect_leaves(const Json& json, const std::string& pointer,
                    std::vector<std::pair<std::string, const Json*>>& out) {
  if (json.is_object() && !json.empty()) {
    for (const auto& [key, value] : json.items())
      collect_leaves(value, pointer + "/" + escape_pointer_segment(key), out);
    return;
  }
  out.emplace_back(pointer, &json);
}

const Json* leaf_at(const std::vector<std::pair<std::string, const Json*>>& leaves,
                    const std::string& pointer) {
  for (const auto& [at, value] : leaves)
    if (at == pointer) return value;
  return nullptr;
}

// `a` and `b` name the same field or one holds the other: a patch of /a/b changes the leaf /a
// that was a scalar, and a patch of /a (or a whole replacement, "") every leaf below it.
bool overlaps(const std::string& a, const std::string& b) {
  auto within = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/';
  };
  return a == b || within(a, b) || within(b, a);
}

// The pointer as explain names values: `/tensorboard/output_path` is `tensorboard.output_path`,
// as ExplainedValue::name (the pointer's escapes undone).
std::string dotted_name(const std::string& pointer) {
  std::string out;
  for (std::size_t i = 1; i < pointer.size(); ++i) {
    if (pointer[i] == '/') {
      out += '.';
    } else if (pointer[i] == '~' && i + 1 < pointer.size()) {
      out += pointer[++i] == '1' ? '/' : '~';
    } else {
      out += pointer[i];
    }
  }
  return out;
}

}  // namespace

void explain_output_hooks(const Template& tpl, const PluginHost& plugins,
                          const Value& render_values, const Json& merged, const Json& context,
                          Explanation& out) {
  const auto loaded = plugins.plugins();
  const bool hooks = std::any_of(loaded.begin(), loaded.end(),
                                 [](const PluginInfo& plugin) { return plugin.has_output_hook; });
  if (!hooks || !tpl.is_json() || !out.problems.empty() || !out.refusals.empty()) return;
  Json rendered;
  OutputHookResult result;
  try {
    rendered = tpl.render_json(render_values);
    result = plugins.run_output_hooks(rendered, merged, context);
  } catch (const Error& error) {
    out.problems.push_back(to_diagnostic(error));
    return;
  }
  std::vector<std::pair<std::string, const Json*>> before, after;
  collect_leaves(rendered, "", before);
  collect_leaves(result.config, "", after);
  // The last hook that touched a field is the layer it shows, as the last values layer wins.
  auto source_of = [&](const std::string& pointer) {
    for (auto it = result.fields.rbegin(); it != result.fields.rend(); ++it)
      if (overlaps(it->json_pointer, pointer)) return "plugin " + it->plugin;
    return std::string("an output hook");
  };
  for (const auto& [pointer, value] : after) {
    const Json* was = leaf_at(before, pointer);
    if (was != nullptr && *was == *value) continue;
    OutputHookChange change{dotted_name(pointer), *value, std::nullopt, source_of(pointer)};
    if (was != nullptr) change.rendered = *was;
    out.output_hooks.push_back(std::move(change));
  }
  for (const auto& [pointer, value] : before) {
    if (leaf_at(after, pointer) != nullptr) continue;
    // A leaf that became an object is listed by the leaves below it; one that went is removed.
    // `gone` copies the binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const bool below =
        std::any_of(after.begin(), after.end(),
                    [&, gone = pointer](const auto& leaf) { return overlaps(leaf.first, gone); });
    if (below) continue;
    out.output_hooks.push_back(
        OutputHookChange{dotted_name(pointer), std::nullopt, *value, source_of(pointer)});
  }
}

}  // namespace zf::pipeline
