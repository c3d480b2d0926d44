// SPDX-License-Identifier: MIT
// Template: render, render_json (with JSON errors mapped back to the template line that
// wrote the output) and the list of undefined names.
#include "zeroforge/template.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "source_position.hpp"
#include "template/analyzer.hpp"
#include "template/ast.hpp"
#include "template/renderer.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

// An undefined-name error names the first name; add every other name the values lack, so
// the user fixes them all at once.
Error with_missing_names(const Error& error, const Template& tpl, const Value& context,
                         const Value* globals) {
  auto holds = [](const Value* values, const std::string& name) {
    return values != nullptr && values->is_dict() && values->as_dict().contains(name);
  };
  std::vector<std::string> missing;
  for (const auto& name : tpl.undeclared_variables()) {
    if (!holds(&context, name) && !holds(globals, name)) missing.push_back(name);
  }
  if (missing.empty()) return error;
  std::string message = error.message() + " (the values lack ";
  for (std::size_t i = 0; i < missing.size(); ++i) {
    if (i) message += i + 1 == missing.size() ? " and " : ", ";
    message += "'" + missing[i] + "'";
  }
  message += ")";
  return Error(error.kind(), message, error.where()).located(error.where(), error.source_line());
}

std::size_t offset_of(std::string_view text, std::size_t line, std::size_t column) {
  std::size_t offset = 0;
  for (std::size_t l = 1; l < line && offset < text.size(); ++offset) {
    if (text[offset] == '\n') ++l;
  }
  for (std::size_t c = 1; c < column && offset < text.size(); ++offset) {
    if ((static_cast<unsigned char>(text[offset]) & 0xC0) != 0x80) ++c;
  }
  return offset;
}

// `error`, a JSON syntax error in the output of rendering `tree` over `context` and
// `globals`, placed at the template line that wrote the offending output.
Error json_error_in_template(const Error& error, const Environment& environment,
                             const detail::TemplateTree& rendered, const Value& context,
                             const Value* globals) {
  // Which node wrote which output is recorded only now, by rendering again (rendering is
  // deterministic): recording it on every render cost more than the rest of a small render.
  std::string out;
  std::vector<detail::OutputMark> marks;
  detail::render_tree(environment, rendered, context, globals, out, &marks);
  std::size_t at = offset_of(out, error.where().line, error.where().column);
  auto mark = std::upper_bound(
      marks.begin(), marks.end(), at,
      [](std::size_t offset, const detail::OutputMark& m) { return offset < m.output_offset; });
  std::string message = "the rendered output is not valid JSON: " + error.message() +
                        " (output line " + std::to_string(error.where().line) + ", column " +
                        std::to_string(error.where().column) + ": '" +
                        std::string(detail::line_text(out, at)) + "')";
  if (mark == marks.begin())
    return Error(ErrorKind::Json, message, Location{rendered.origin, 0, 0});
  --mark;
  const detail::TemplateTree& writer = *mark->tree;  // the included file, or `rendered` itself
  return detail::error_at(ErrorKind::Json, message, writer.origin, writer.source,
                          mark->source_offset);
}

}  // namespace

Template::Template(const Environment& environment, std::shared_ptr<const detail::TemplateTree> tree)
    : environment_(environment), tree_(std::move(tree)) {}

Template::~Template() = default;

const std::string& Template::name() const noexcept { return tree_->name; }
bool Template::is_json() const noexcept { return tree_->is_json; }

std::string Template::render(const Value& context, const Value* globals) const {
  std::string out;
  // Configs come out about as long as their template: one allocation instead of a series.
  out.reserve(tree_->source.size() + 256);
  render_into(context, out, globals);
  return out;
}

void Template::render_into(const Value& context, std::string& out, const Value* globals) const {
  try {
    detail::render_tree(environment_, *tree_, context, globals, out, nullptr);
  } catch (const Error& error) {
    if (error.kind() == ErrorKind::Undefined)
      throw with_missing_names(error, *this, context, globals);
    throw;
  }
}

nlohmann::ordered_json Template::render_json(const Value& context, const Value* globals) const {
  nlohmann::ordered_json json;
  render_json_into(context, json, globals);
  return json;
}

void Template::render_json_into(const Value& context, nlohmann::ordered_json& json,
                                const Value* globals) const {
  // The text is scratch, kept per thread: generate renders thousands of configs per thread,
  // and a fresh buffer each time cost an allocation of config size (which also made malloc
  // consolidate its small free blocks). Taken out while in use, so a nested call is safe.
  thread_local std::string scratch;
  std::string out;
  out.swap(scratch);
  out.clear();
  render_into(context, out, globals);
  try {
    // A failure is reported by json_error_in_template, which names the template instead.
    static const std::string kOutput = "rendered output";
    parse_json_text_into(json, out, kOutput);
  } catch (const Error& error) {
    throw json_error_in_template(error, environment_, *tree_, context, globals);
  }
  scratch.swap(out);
}

std::optional<std::string> Template::static_parent() const {
  for (const auto& stmt : tree_->body) {
    const auto* extends = std::get_if<detail::ExtendsStmt>(&stmt->node);
    if (!extends) continue;
    const auto* literal = std::get_if<detail::Literal>(&extends->name->node);
    if (literal && literal->value.is_string()) return literal->value.as_string();
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> Template::undeclared_variables() const {
  auto names = detail::find_required_names(*tree_, environment_);
  return {names.begin(), names.end()};
}

}  // namespace zf
