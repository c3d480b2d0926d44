// SPDX-License-Identifier: MIT
// Other templates at render time: loading one by name (or the first of a list), include, and
// import / from-import, which run a template as a module and export its top-level names.
#include "source_position.hpp"
#include "template/include_memo.hpp"
#include "template/render_state.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf::detail {
// The template `name` (or the first of a list of names) names, or nullptr when missing is
// allowed. The Environment caches what it loads for its lifetime, which outlasts the
// render, so the template is held by pointer.
const Template* Renderer::load(const Value& name, bool ignore_missing) {
  auto try_one = [&](const Value& candidate) -> const Template* {
    if (!candidate.is_string()) {
      throw Error(ErrorKind::Template,
                  std::string("template name must be a string, got ") + candidate.type_name());
    }
    return env_.try_load(candidate.as_string()).get();
  };
  name.require_defined();
  if (name.is_list()) {
    for (const auto& candidate : name.as_list()) {
      if (const Template* loaded = try_one(candidate)) return loaded;
    }
    if (ignore_missing) return nullptr;
    throw Error(ErrorKind::Template,
                "none of the templates " + name.repr() + " was found on the search path");
  }
  if (const Template* loaded = try_one(name)) return loaded;
  if (ignore_missing) return nullptr;
  env_.load(name.as_string());  // throws the loader's precise error
  return nullptr;
}

// The template `name_expr` names, as load gives it.
const Template* Renderer::load_named(const Expr& name_expr, const Frame& frame,
                                     bool ignore_missing) {
  // A name written as a string literal names the same template in every render: loaded once
  // per thread, without the environment's lock.
  const auto* literal = std::get_if<Literal>(&name_expr.node);
  const bool constant = literal != nullptr && literal->value.is_string() && tree_ != nullptr;
  if (constant) {
    if (const Template* known = memo_.loaded(*tree_, name_expr)) return known;
  }
  Value scratch;
  const Template* found = load(lookup_located(name_expr, frame, scratch), ignore_missing);
  if (constant && found) memo_.remember(*tree_, name_expr, found);
  return found;
}

void Renderer::exec_node(const Stmt& stmt, const IncludeStmt& node, Frame& frame) {
  const Template* included = nullptr;
  std::optional<DepthGuard> depth;
  guard(stmt, [&] {
    included = load_named(*node.name, frame, node.ignore_missing);
    if (included) depth.emplace(*this, "include", included->tree().height);
  });
  if (!included) return;
  // What the include writes may be known from an earlier render (include_memo.hpp): not
  // while the output is muted or marked (a hit would write neither), nor while a ValueReads
  // watches the values (import's fit: a hit could only report as read the whole of each value
  // the include may read, and the fit would render for every leaf under them).
  IncludeMemo::Site* memo = nullptr;
  std::uint64_t memo_key = 0;
  if (node.with_context && env_.memoizes_includes() && !muted() && !(marks_ && out_ == root_out_) &&
      !watched(frame)) {
    memo = memo_.site(*tree_, node, included->tree(), env_);
    bool keyable = false;
    if (memo) {
      if (const std::string* text = memo->find(frame, memo_key, keyable)) {
        out_->append(*text);
        check_output();
        return;
      }
      if (!keyable) memo = nullptr;
    }
  }
  const std::size_t start = out_->size();
  const TemplateTree* saved_tree = tree_;
  Frame inner(included->tree().scope);
  if (node.with_context) {
    inner.attach(&frame);
  } else {
    inner.set_context(nullptr);  // no names at all
  }
  // Muted (a child's top level), Jinja2 still renders the included template, and its output
  // is printed, before the parent's.
  std::string* saved_out = out_;
  if (muted()) out_ = unmuted_out_;
  try {
    render_template(included->tree(), inner);
  } catch (const Error& error) {
    out_ = saved_out;
    tree_ = saved_tree;
    if (error.has_location()) throw;
    throw locate(error, stmt.offset);
  } catch (...) {
    out_ = saved_out;
    tree_ = saved_tree;
    throw;
  }
  out_ = saved_out;
  tree_ = saved_tree;
  if (memo) {
    memo_.held(memo->store(frame, memo_key, std::string_view(*out_).substr(start)));
  }
}

// Whether a ValueReads watches the values `frame` looks names up in.
bool Renderer::watched(const Frame& frame) {
  return (frame.context() && frame.context()->watched()) ||
         (frame.globals() && frame.globals()->watched());
}

// Runs a template as a module (for import) and returns its exported names; `loaded_name`, when
// given, is set to the name of the template it ran.
Value Renderer::import_module(const Stmt& stmt, const Expr& name_expr, bool with_context,
                              Frame& frame, std::string* loaded_name) {
  const Template* loaded = nullptr;
  guard(stmt, [&] { loaded = load_named(name_expr, frame, false); });
  if (loaded_name) *loaded_name = loaded->tree().name;
  if (!with_context) {
    for (const auto& [tpl, exports] : plain_modules_)
      if (tpl == loaded) return exports;
  }
  std::optional<DepthGuard> depth;
  guard(stmt, [&] { depth.emplace(*this, "import", loaded->tree().height); });
  auto& module = *modules_.emplace_back(std::make_unique<Module>(loaded->tree().scope));
  // As in Jinja2, `with context` hands the module the names visible here as they are now:
  // its macros, called later, do not see what the importer sets after the import.
  if (with_context) module.context = visible_names(frame);
  Frame& module_frame = module.frame;
  module_frame.set_context(with_context ? &module.context : nullptr);
  std::string discard;
  std::string* saved = out_;
  const TemplateTree* saved_tree = tree_;
  out_ = &discard;
  ValueDict exported;
  try {
    render_template(loaded->tree(), module_frame, &exported);
  } catch (...) {
    out_ = saved;
    tree_ = saved_tree;
    throw;
  }
  out_ = saved;
  tree_ = saved_tree;
  Value exports(std::move(exported));
  if (!with_context) plain_modules_.emplace_back(loaded, exports);
  return exports;
}

// Every name `frame` sees, with its innermost value, as one dict.
Value Renderer::visible_names(const Frame& frame) {
  std::vector<const Frame*> chain;
  for (const Frame* f = &frame; f; f = f->parent) chain.push_back(f);
  ValueDict names;
  if (const ValueDict* globals = frame.globals()) names = *globals;
  if (const ValueDict* context = frame.context()) {
    if (names.empty()) {
      names = *context;
    } else {
      for (const auto& [name, value] : *context) names.set(name, value);
    }
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    (*it)->for_each(
        [&](std::string_view name, const Value& value) { names.set(std::string(name), value); });
  }
  return Value(std::move(names));
}

void Renderer::exec_node(const Stmt& stmt, const ImportStmt& node, Frame& frame) {
  frame.assign(node.alias, import_module(stmt, *node.name, node.with_context, frame));
}

void Renderer::exec_node(const Stmt& stmt, const FromImportStmt& node, Frame& frame) {
  std::string loaded_name;
  Value module = import_module(stmt, *node.name, node.with_context, frame, &loaded_name);
  for (const auto& [name, alias] : node.names) {
    if (const Value* value = module.as_dict().find(name)) {
      frame.assign(alias, *value);
      continue;
    }
    // As Jinja2: a name the template does not export (a macro defined in a loop, a name never
    // set) is imported as an undefined value, an error only where it is used.
    const auto line = line_column(tree_->source, stmt.offset).first;
    frame.assign(alias, Value::undefined("the template " + Value(loaded_name).repr() +
                                         " (imported on line " + std::to_string(line) +
                                         ") does not export the requested name '" + name + "'"));
  }
}

}  // namespace zf::detail
