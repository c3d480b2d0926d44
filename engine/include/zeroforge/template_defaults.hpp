// SPDX-License-Identifier: MIT
// Template defaults: what a template directory declares in its defaults.json (contract, values,
// per-template values and pinned values), and the check that no layer changes a pinned value.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/value.hpp"

namespace zf {

class Environment;

/// The values an entry template fixes: `"pinned": {"deepspeed/zero3.json.j2": ["stage"]}` in
/// its directory's defaults.json pins `stage` to the value the template's `templates` entry
/// gives it (3). Any layer may restate that value; none may change it.
struct TemplatePins {
  std::string template_name;  // e.g. "deepspeed/zero3.json.j2"
  std::string file;           // the defaults.json that pins them, for messages
  ValueDict values;           // name -> the value it must keep
  bool empty() const noexcept { return values.empty(); }
  /// The pinned names as a JSON list: the `pinned` of a plugin hook's context.
  nlohmann::ordered_json names() const;
};

/// What a template directory declares in its `defaults.json` (Helm's values.yaml):
/// `{"contract": "deepspeed", "values": {...}, "templates": {"dir/name.json.j2": {...}},
/// "pinned": {"dir/name.json.j2": ["name", ...]}}`.
struct TemplateDefaults {
  /// The values contract the templates follow ("deepspeed"), or empty.
  std::string contract;
  /// The TemplateDefault layers, lowest first: the directory's `values`, then the entry of
  /// this template under `templates` (e.g. `{"stage": 3}` for deepspeed/zero3.json.j2).
  std::vector<Layer> layers;
  /// The values this template pins (none for most templates).
  TemplatePins pins;
};

/// Checks that `values` (merged) keep every pinned value: one Values error per changed one,
/// placed where the change was written when `sources` is given, else at the value's pointer.
std::vector<Error> check_pinned_values(const TemplatePins& pins,
                                       const nlohmann::ordered_json& values,
                                       const SourcedValues* sources = nullptr);
/// The same for values in two layers, `top` over `base` (see VariantValues). Errors carry
/// value pointers only; rerun with sources to report.
std::vector<Error> check_pinned_values(const TemplatePins& pins, const ValueDict& top,
                                       const ValueDict& base);

/// Reads `<dir of template_name>/defaults.json` from the environment's search path (first
/// directory that has it). Without one, but with `contract` given (a family's `contract`),
/// reads `<contract>/defaults.json`. Without either, a template that extends another by name
/// (`{% extends "deepspeed/config.json.j2" %}`) takes its parent's defaults: contract, values
/// and pins, as if the parent were rendered. Returns no layers when there is none of these.
/// Throws zf::Error (Values) naming the file and pointer when the file is malformed.
///
///     auto defaults = zf::load_template_defaults(env, "deepspeed/zero3.json.j2");
///     // defaults.contract == "deepspeed"; defaults.layers[1].values == {"stage": 3}
TemplateDefaults load_template_defaults(const Environment& environment,
                                        std::string_view template_name,
                                        std::string_view contract = {});

}  // namespace zf
