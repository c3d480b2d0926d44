// SPDX-License-Identifier: MIT
// Statements that run in the template where they stand: text, print, if, for, set (plain and
// block), filter blocks and with.
#include "template/builtin_filters.hpp"
#include "template/loop_object.hpp"
#include "template/namespace_object.hpp"
#include "template/native_function.hpp"
#include "template/python_ops.hpp"
#include "template/render_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
void Renderer::exec_body(const Body& body, Frame& frame) {
  for (const auto& stmt : body) exec(*stmt, frame);
}

void Renderer::exec(const Stmt& stmt, Frame& frame) {
  // Text, most of what a template runs, is written without the dispatch.
  if (auto* text = std::get_if<TextStmt>(&stmt.node)) {
    exec_node(stmt, *text, frame);
    return;
  }
  std::visit([&](const auto& node) { exec_node(stmt, node, frame); }, stmt.node);
}

void Renderer::exec_node(const Stmt& stmt, const TextStmt& node, Frame&) {
  emit(node.text, stmt.offset);
}

void Renderer::exec_node(const Stmt& stmt, const PrintStmt& node, Frame& frame) {
  if (muted()) return;
  // `{{ macro(...) }}` renders the macro straight into the output instead of capturing
  // its text and copying it (the output is the same).
  if (auto* call = std::get_if<Call>(&node.expr->node)) {
    if (auto* name = std::get_if<NameRef>(&call->callee->node)) {
      const Value* callee = frame.find(name->name, name->hash, name->where);
      if (callee && callee->is_callable()) {
        if (auto* macro = as_macro(callee->as_callable())) {
          mark(stmt.offset);
          try {
            call_macro(*macro, call->args, frame, out_);
          } catch (const Error& error) {
            if (error.has_location()) throw;
            throw locate(error, node.expr->offset);
          }
          return;
        }
      }
    }
  }
  Value scratch;
  if (auto* filter = std::get_if<FilterExpr>(&node.expr->node); filter && filter->builtin_tojson) {
    // `{{ x | tojson }}`, the commonest print in a .json template: the subject is looked up
    // in place and its JSON appended, with no text value in between.
    const Value& subject = lookup(*filter->subject, frame, scratch);
    mark(stmt.offset);
    try {
      append_tojson(*out_, subject);
    } catch (const Error& error) {
      if (error.has_location()) throw;
      throw locate(error, node.expr->offset);
    }
    return;
  }
  const Value& value = lookup(*node.expr, frame, scratch);
  mark(stmt.offset);
  try {
    value.append_str(*out_);
    check_output();
  } catch (const Error& error) {
    throw error.has_location() ? error : locate(error, node.expr->offset);
  }
}

void Renderer::exec_node(const Stmt&, const IfStmt& node, Frame& frame) {
  for (const auto& [test, body] : node.branches) {
    if (truthy(*test, frame)) {
      exec_body(body, frame);
      return;
    }
  }
  exec_body(node.otherwise, frame);
}

void Renderer::assign_targets(Frame& frame, const std::vector<Target>& targets, bool unpack,
                              Value&& value, std::size_t offset) {
  if (!unpack) {
    frame.assign(targets.front(), std::move(value));
    return;
  }
  assign_targets(frame, targets, unpack, static_cast<const Value&>(value), offset);
}

void Renderer::assign_targets(Frame& frame, const std::vector<Target>& targets, bool unpack,
                              const Value& value, std::size_t offset) {
  if (!unpack) {
    frame.assign(targets.front(), value);
    return;
  }
  try {
    value.require_defined();
    // Python unpacks any iterable: a string gives its characters, a dict its keys.
    if (!value.is_list() && !value.is_string() && !value.is_dict()) {
      throw Error(ErrorKind::Render,
                  std::string("cannot unpack non-iterable ") + value.type_name() + " object");
    }
    ValueList storage;
    const ValueList& items = detail::iterate(value, storage);
    if (items.size() != targets.size()) {
      throw Error(ErrorKind::Render,
                  (items.size() < targets.size() ? "not enough values to unpack (expected "
                                                 : "too many values to unpack (expected ") +
                      std::to_string(targets.size()) + ", got " + std::to_string(items.size()) +
                      ")");
    }
    for (std::size_t i = 0; i < targets.size(); ++i) frame.assign(targets[i], items[i]);
  } catch (const Error& error) {
    throw error.has_location() ? error : locate(error, offset);
  }
}

// The state loop.cycle and loop.changed share across the iterations of one loop.
struct LoopState {
  std::int64_t index0 = 0;
  bool changed_called = false;
  std::vector<Value> last_changed;  // the arguments of the last loop.changed call
};

namespace {
void make_loop_functions(std::shared_ptr<LoopState>& state, Value& cycle, Value& changed) {
  state = std::make_shared<LoopState>();
  cycle = Value(std::make_shared<NativeFunction>(
      "loop.cycle", [state](const std::vector<Value>& args, const KeywordValues& kwargs) {
        if (!kwargs.empty())
          throw Error(ErrorKind::Render, "loop.cycle() takes no keyword arguments");
        if (args.empty()) throw Error(ErrorKind::Render, "no items for cycling given");
        return args[static_cast<std::size_t>(state->index0) % args.size()];
      }));
  changed = Value(std::make_shared<NativeFunction>(
      "loop.changed", [state](const std::vector<Value>& args, const KeywordValues& kwargs) {
        if (!kwargs.empty())
          throw Error(ErrorKind::Render, "loop.changed() takes no keyword arguments");
        bool same = state->changed_called && args.size() == state->last_changed.size() &&
                    std::equal(args.begin(), args.end(), state->last_changed.begin());
        if (same) return Value(false);
        state->changed_called = true;
        state->last_changed = args;
        return Value(true);
      }));
}
}  // namespace

void Renderer::exec_node(const Stmt& stmt, const ForStmt& node, Frame& frame) {
  run_loop(stmt, node, frame, eval(*node.iterable, frame), 1, node.iterable->offset);
}

// Runs a `for` over `iterable` at recursion depth `depth` (1 unless a recursive loop called
// `loop(items)`); `frame` is the frame the statement stands in.
void Renderer::run_loop(const Stmt& stmt, const ForStmt& node, Frame& frame, const Value& iterable,
                        std::int64_t depth, std::size_t iterable_offset) {
  // A list is iterated in place (values are immutable); other iterables are listed first.
  ValueList storage;
  const ValueList* list = &storage;
  if (iterable.is_list()) {
    list = &iterable.as_list();
  } else {
    storage = iterate(iterable, iterable_offset);
  }
  Frame loop_frame(&frame, node.scope);
  if (node.condition) {
    ValueList kept;
    for (const auto& item : *list) {
      step(stmt.offset);
      loop_frame.clear();
      assign_targets(loop_frame, node.targets, node.unpack, item, stmt.offset);
      if (truthy(*node.condition, loop_frame)) kept.push_back(item);
    }
    storage = std::move(kept);
    list = &storage;
  }
  const ValueList& items = *list;
  if (items.empty()) {
    Frame else_frame(&frame, node.else_scope);
    exec_body(node.otherwise, else_frame);
    return;
  }
  const auto length = static_cast<std::int64_t>(items.size());
  // loop.cycle and loop.changed, made once per loop: they read the iteration from `state`.
  std::shared_ptr<LoopState> state;
  Value cycle, changed;
  if (node.uses_loop) make_loop_functions(state, cycle, changed);
  // `loop(items)` of a recursive loop: the same loop one level deeper, its output captured.
  // It holds this render and this frame, so it refuses to run once this loop has finished.
  std::shared_ptr<const LoopContext::Recurse> recurse;
  std::shared_ptr<bool> alive;
  if (node.recursive && node.uses_loop) {
    alive = std::make_shared<bool>(true);
    recurse = std::make_shared<const LoopContext::Recurse>(
        [this, &stmt, &node, &frame, depth, alive](const Value& children) {
          if (!*alive) throw Error(ErrorKind::Render, "loop() called after its loop has finished");
          step(stmt.offset);
          DepthGuard guard(*this, "recursive loop", stmt.height);
          std::string buffer;
          std::string* saved = out_;
          out_ = &buffer;
          try {
            run_loop(stmt, node, frame, children, depth + 1, stmt.offset);
          } catch (...) {
            out_ = saved;
            throw;
          }
          out_ = saved;
          return Value(std::move(buffer));
        });
  }
  struct Finish {
    std::shared_ptr<bool>& alive;
    ~Finish() {
      if (alive) *alive = false;
    }
  } finish{alive};
  for (std::int64_t i = 0; i < length; ++i) {
    step(stmt.offset);
    loop_frame.clear();
    if (node.uses_loop) {
      ValueDict loop;
      loop.set("index", Value(i + 1));
      loop.set("index0", Value(i));
      loop.set("revindex", Value(length - i));
      loop.set("revindex0", Value(length - i - 1));
      loop.set("first", Value(i == 0));
      loop.set("last", Value(i == length - 1));
      loop.set("length", Value(length));
      loop.set("depth", Value(depth));
      loop.set("depth0", Value(depth - 1));
      loop.set("previtem",
               i > 0 ? items[static_cast<std::size_t>(i - 1)]
                     : Value::undefined("'loop.previtem' is undefined on the first iteration"));
      loop.set("nextitem",
               i + 1 < length
                   ? items[static_cast<std::size_t>(i + 1)]
                   : Value::undefined("'loop.nextitem' is undefined on the last iteration"));
      loop.set("cycle", cycle);
      loop.set("changed", changed);
      state->index0 = i;
      loop_frame.assign(node.loop,
                        Value(std::make_shared<const LoopContext>(std::move(loop), recurse)));
    }
    assign_targets(loop_frame, node.targets, node.unpack, items[static_cast<std::size_t>(i)],
                   stmt.offset);
    exec_body(node.body, loop_frame);
  }
}

namespace {
// Whether `value` is or holds a macro (through lists, dicts and namespaces). A macro refers to
// the frame it was defined in, which ends with its loop, call block, macro call or include;
// a namespace outlives them, so it may not keep one.
bool holds_macro(const Value& value, int depth = 0) {
  if (depth > 512) return false;  // values nest at most as deep as JSON input and templates
  if (value.is_list()) {
    for (const Value& item : value.as_list())
      if (holds_macro(item, depth + 1)) return true;
  } else if (value.is_dict()) {
    for (const auto& [key, item] : value.as_dict())
      if (holds_macro(item, depth + 1)) return true;
  } else if (value.is_callable()) {
    if (as_macro(value.as_callable())) return true;
    if (const Namespace* ns = as_namespace(value)) {
      for (const auto& [key, item] : ns->attributes())
        if (holds_macro(item, depth + 1)) return true;
    }
  }
  return false;
}
}  // namespace

void Renderer::exec_node(const Stmt& stmt, const SetStmt& node, Frame& frame) {
  if (node.namespace_ref) {
    set_attribute(stmt, *node.namespace_ref, node.attribute, eval(*node.value, frame), frame);
    return;
  }
  assign_targets(frame, node.targets, node.unpack, eval(*node.value, frame), stmt.offset);
}

// `set ns.attr = value` and `{% set ns.attr %}`, once the value is known. Jinja2 3.1.3 and
// later let the block form write into a dict (or fail on other objects with a Python
// TypeError); here both forms refuse anything but a namespace, as Jinja2 3.1.2 does.
void Renderer::set_attribute(const Stmt& stmt, const Expr& namespace_ref,
                             const std::string& attribute, Value&& value, Frame& frame) {
  Value object = eval(namespace_ref, frame);
  const Namespace* ns = as_namespace(object);
  if (!ns) {
    try {
      object.require_defined();
    } catch (const Error& error) {
      throw locate(error, namespace_ref.offset);
    }
    throw locate(Error(ErrorKind::Render, "cannot assign attribute on non-namespace object"),
                 namespace_ref.offset);
  }
  if (holds_macro(value)) {
    throw locate(
        Error(ErrorKind::Render, "cannot store a macro in a namespace (attribute '" + attribute +
                                     "'): it would outlive the scope it was defined in"),
        stmt.offset);
  }
  try {
    ns->set(attribute, std::move(value));
  } catch (const Error& error) {
    throw locate(error, stmt.offset);
  }
}

std::string Renderer::capture(const Body& body, Frame& frame) {
  std::string buffer;
  std::string* saved = out_;
  out_ = &buffer;
  try {
    exec_body(body, frame);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return buffer;
}

// As in Jinja2, the filters of a set or filter block run in the block's scope, after its
// body: their arguments see what the body assigned. A namespace is looked up afterwards, in
// the enclosing frame (the block's own `ns`, if its body assigns one, is not the target).
void Renderer::exec_node(const Stmt& stmt, const SetBlockStmt& node, Frame& frame) {
  Frame inner(&frame, node.scope);
  Value value = apply_filters(Value(capture(node.body, inner)), node.filters, inner);
  if (node.namespace_ref) {
    set_attribute(stmt, *node.namespace_ref, node.attribute, std::move(value), frame);
    return;
  }
  assign_targets(frame, node.targets, node.unpack, std::move(value), stmt.offset);
}

void Renderer::exec_node(const Stmt& stmt, const FilterBlockStmt& node, Frame& frame) {
  Frame inner(&frame, node.scope);
  // Muted (a child's top level), Jinja2 skips the body's output but still runs the filters.
  Value value(muted() ? (exec_body(node.body, inner), std::string()) : capture(node.body, inner));
  Value result = apply_filters(std::move(value), node.filters, inner);
  if (muted()) return;
  // Jinja2 writes a filter block's result as it is, and its output join refuses anything but
  // a string (`{% filter length %}` fails with "expected str instance, int found").
  result.require_defined();
  if (!result.is_string()) {
    throw locate(Error(ErrorKind::Render, std::string("a filter block must give a string, not ") +
                                              result.type_name() +
                                              " (Jinja2 cannot write it either: add '| string')"),
                 stmt.offset);
  }
  emit(result.as_string(), 0);
}

void Renderer::exec_node(const Stmt&, const WithStmt& node, Frame& frame) {
  Frame inner(&frame, node.scope);
  std::vector<Value> values;
  for (const auto& [target, expr] : node.assignments) values.push_back(eval(*expr, frame));
  for (std::size_t i = 0; i < values.size(); ++i)
    inner.assign(node.assignments[i].first, std::move(values[i]));
  exec_body(node.body, inner);
}

}  // namespace zf::detail
