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

/// A block of a parent template that never renders, because a template extending it overrides
/// the block without calling `super()`; and the names only that block reads, which then have
/// no effect on the output (a team copying the `precision` block to change one key leaves
/// `fp16` unread: `--set fp16.loss_scale_window=2000` changes nothing).
struct OverriddenBlock {
  std::string block;          ///< the block's name, e.g. `precision`
  std::string parent;         ///< the template whose block never renders
  std::string overridden_by;  ///< the nearest template below it whose override cuts it off
  /// Names the block reads that nothing rendered reads (the overriding blocks, the rest of
  /// every template in the chain, what they include), sorted; never empty.
  std::vector<std::string> unread;
};

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
  /// The same, parsed into `out`, whose storage is reused where the output has its shape
  /// (parse_json_text_into): generate renders each thread's configs into one tree. After an
  /// error `out` holds some valid JSON value.
  void render_json_into(const Value& context, nlohmann::ordered_json& out,
                        const Value* globals = nullptr) const;

  /// The top-level names the template (with its includes, parents and macros) reads
  /// without defining them, sorted: what the values must supply (Jinja2's
  /// `meta.find_undeclared_variables`, followed through static includes and extends).
  std::vector<std::string> undeclared_variables() const;

  /// The template this one extends when a top-level `{% extends "NAME" %}` names it with a
  /// string literal (a computed parent is known only when rendering), else nullopt.
  std::optional<std::string> static_parent() const;

  /// The blocks of the templates this one extends (through static `extends`, every level)
  /// that never render and leave names unread, parents nearest first, then by block name.
  /// A parent that cannot be loaded ends the chain (rendering reports it).
  ///
  ///     for (const auto& block : tpl->overridden_blocks())  // block.unread: {"fp16"}
  std::vector<OverriddenBlock> overridden_blocks() const;

  const detail::TemplateTree& tree() const noexcept { return *tree_; }
  const Environment& environment() const noexcept { return environment_; }

 private:
  const Environment& environment_;
  std::shared_ptr<const detail::TemplateTree> tree_;
};

}  // namespace zf
