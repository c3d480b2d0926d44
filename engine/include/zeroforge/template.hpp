// SPDX-License-Identifier: MIT
// zf::Template: one parsed template, rendered any number of times over values.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf {

class Environment;
namespace detail {
struct TemplateTree;
}

/// A parsed template. Immutable: `render` is const and may run concurrently.
///
///     auto tpl = env.load("deepspeed/config.json.j2");
///     nlohmann::ordered_json config = tpl->render_json(zf::Value::from_json(values));
class Template {
 public:
  Template(const Environment& environment, std::shared_ptr<const detail::TemplateTree> tree);
  ~Template();

  /// The name it was loaded under, e.g. `deepspeed/config.json.j2`.
  const std::string& name() const noexcept;
  /// True when the name ends in `.json` or `.json.j2`: its output is JSON.
  bool is_json() const noexcept;

  /// Renders with `context` (a dict) as the top-level variables. With `globals` (a dict), a
  /// name `context` lacks is looked up there, as Jinja2 looks up a template's globals under
  /// a render's variables: renders that share most of their values pass those once instead
  /// of copying them into every context. Throws zf::Error with the template location of the
  /// failure.
  std::string render(const Value& context, const Value* globals = nullptr) const;
  /// The same, appended to `out` (a caller rendering many times reuses one buffer).
  void render_into(const Value& context, std::string& out, const Value* globals = nullptr) const;
  /// Renders, then parses and normalises the output as JSON (see docs/template-language.md:
  /// key order kept, duplicate keys rejected, integral exponent numbers as integers).
  /// A JSON syntax error names the line of the output and the template line that wrote it.
  nlohmann::ordered_json render_json(const Value& context, const Value* globals = nullptr) const;

  /// The top-level names the template (with its includes, parents and macros) reads
  /// without defining them, sorted: what the values must supply (Jinja2's
  /// `meta.find_undeclared_variables`, followed through static includes and extends).
  std::vector<std::string> undeclared_variables() const;

  /// The template this one extends when a top-level `{% extends "NAME" %}` names it with a
  /// string literal (a computed parent is known only when rendering), else nullopt.
  std::optional<std::string> static_parent() const;

  const detail::TemplateTree& tree() const noexcept { return *tree_; }
  const Environment& environment() const noexcept { return environment_; }

 private:
  const Environment& environment_;
  std::shared_ptr<const detail::TemplateTree> tree_;
};

}  // namespace zf
