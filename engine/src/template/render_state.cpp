// SPDX-License-Identifier: MIT
// The renderer's entry and its state (render_state.hpp): rendering a tree, what a filter may ask
// of the renderer (CallContext), locating errors, and the depth, step and output budgets.
#include "template/render_state.hpp"

#include "source_position.hpp"
#include "template/include_memo.hpp"
#include "template/limits.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {

void Renderer::render_root(const TemplateTree& tree, const Value& context, const Value* globals) {
  levels_ = tree.height;  // within max_nesting: the parser saw to it
  Frame root(tree.scope);
  root.set_context(&context, globals);
  if (context.is_dict()) context.as_dict().prefetch();
  render_template(tree, root);
}

Value Renderer::call_filter(std::string_view name, const Value& subject, std::vector<Value> args,
                            KeywordArguments kwargs) const {
  const FunctionSpec* spec = env_.functions().find(FunctionKind::Filter, name);
  if (!spec) throw Error(ErrorKind::Render, "unknown filter '" + std::string(name) + "'");
  Arguments bound = bind(*spec, "filter", std::move(args), std::move(kwargs));
  return spec->body(subject, bound, *this);
}

bool Renderer::call_test(std::string_view name, const Value& subject, std::vector<Value> args,
                         KeywordArguments kwargs) const {
  const FunctionSpec* spec = env_.functions().find(FunctionKind::Test, name);
  if (!spec) throw Error(ErrorKind::Render, "unknown test '" + std::string(name) + "'");
  Arguments bound = bind(*spec, "test", std::move(args), std::move(kwargs));
  return spec->body(subject, bound, *this).truthy();
}

Error Renderer::too_many_steps() const {
  return Error(ErrorKind::Render, "this render took more than " +
                                      std::to_string(env_.options().max_steps) +
                                      " steps (loop iterations and macro calls; "
                                      "EnvironmentOptions::max_steps)");
}

Error Renderer::locate(const Error& error, std::size_t offset) const {
  auto [line, column] = line_column(tree_->source, offset);
  Location where{tree_->origin, line, column};
  return error.located(where, std::string(line_text(tree_->source, offset)));
}

void Renderer::output_too_large() const {
  throw Error(ErrorKind::Render, "the output grew past " +
                                     std::to_string(env_.options().max_output_size) +
                                     " bytes (EnvironmentOptions::max_output_size)");
}

void Renderer::DepthGuard::too_deep(int max_depth, const char* what) {
  throw Error(ErrorKind::Render, std::string("recursion too deep: more than ") +
                                     std::to_string(max_depth) +
                                     " nested includes, macro calls or blocks (at " + what + ")");
}

void Renderer::DepthGuard::too_many_levels(int max_nesting, const char* what) {
  throw Error(ErrorKind::Render,
              std::string("recursion too deep: the includes, imports, parent templates, "
                          "blocks and macro calls open here nest their statements and "
                          "expressions deeper than ") +
                  std::to_string(max_nesting) + " levels (at " + what +
                  "; EnvironmentOptions::max_nesting raises the limit)");
}

void render_tree(const Environment& environment, const TemplateTree& tree, const Value& context,
                 const Value* globals, std::string& out, std::vector<OutputMark>* marks) {
  ValueSizeScope limit(environment.options().max_value_size);
  IncludeMemo::RenderScope memo(environment);
  Renderer renderer(environment, out, marks, memo.memo);
  renderer.render_root(tree, context, globals);
}

}  // namespace zf::detail
