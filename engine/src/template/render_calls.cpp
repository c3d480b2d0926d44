// SPDX-License-Identifier: MIT
// Calls: binding arguments to filters, tests and global functions, method calls, and macros
// (their definition as values and their calls).
#include "template/builtin_filters.hpp"
#include "template/loop_object.hpp"
#include "template/methods.hpp"
#include "template/native_function.hpp"
#include "template/render_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
Value Renderer::apply_filters(Value value, const std::vector<FilterCall>& filters,
                              const Frame& frame) {
  for (const auto& filter : filters) {
    try {
      ArgumentsLease bound(*this);
      bind_call(*filter.spec, "filter", filter.args, frame, bound.args);
      value = filter.spec->body(value, bound.args, *this);
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, filter.offset);
    }
  }
  return value;
}

void Renderer::exec_node(const Stmt&, const MacroStmt& node, Frame& frame) {
  // The Macro lives in the render's arena and the value points at it without owning it
  // (an aliasing shared_ptr with no owner): defining a macro allocates nothing, and passing
  // it around counts no references. A Macro holds only references, so the arena releases
  // it without running its destructor; no value outlives the render.
  const Macro* macro =
      new (arena_.allocate(sizeof(Macro), alignof(Macro))) Macro(node, *tree_, frame);
  frame.assign(node.target,
               Value(std::shared_ptr<const Callable>(std::shared_ptr<const Callable>(), macro)));
}

std::pair<std::vector<Value>, std::vector<std::pair<std::string, Value>>> Renderer::eval_args(
    const CallArguments& args, const Frame& frame) {
  std::vector<Value> positional;
  positional.reserve(args.positional.size());
  for (const auto& arg : args.positional) positional.push_back(eval(*arg, frame));
  std::vector<std::pair<std::string, Value>> keyword;
  // Python's order: positional, `*args`, keyword, `**kwargs`.
  if (args.star) {
    Value items = eval(*args.star, frame);
    if (!items.is_list() && !items.is_string() && !items.is_dict()) {
      items.require_defined();
      throw locate(
          Error(ErrorKind::Render,
                std::string("argument after * must be an iterable, not ") + items.type_name()),
          args.star->offset);
    }
    for (Value& item : iterate(items, args.star->offset)) positional.push_back(std::move(item));
  }
  for (const auto& [name, arg] : args.keyword) keyword.emplace_back(name, eval(*arg, frame));
  if (args.star_star) {
    Value mapping = eval(*args.star_star, frame);
    if (!mapping.is_dict()) {
      mapping.require_defined();
      throw locate(
          Error(ErrorKind::Render,
                std::string("argument after ** must be a mapping, not ") + mapping.type_name()),
          args.star_star->offset);
    }
    for (const auto& [name, value] : mapping.as_dict()) {
      for (const auto& [earlier, unused] : keyword) {
        if (earlier == name) {
          throw locate(
              Error(ErrorKind::Render, "got multiple values for keyword argument '" + name + "'"),
              args.star_star->offset);
        }
      }
      keyword.emplace_back(name, value);
    }
  }
  return {std::move(positional), std::move(keyword)};
}

// Binds call arguments to `spec`'s parameters in `args`. `positional(i)` and
// `keyword_value(i)` produce the arguments in call order; every one is produced before a
// binding error is raised, as in Python. `kind` and `spec.name` name the function in
// errors ("filter 'round' got ..."); the text is only built when there is an error.
template <typename Positional, typename KeywordName, typename KeywordValue>
void Renderer::bind_core(const FunctionSpec& spec, const char* kind, std::size_t positional_count,
                         Positional&& positional, std::size_t keyword_count,
                         KeywordName&& keyword_name, KeywordValue&& keyword_value,
                         Arguments& args) {
  auto what = [&] { return std::string(kind) + " '" + spec.name + "'"; };
  const auto& params = spec.parameters;
  if (params.size() > 64)
    throw Error(ErrorKind::Plugin, what() + " declares more than 64 parameters");
  args.bound.resize(params.size());
  std::unique_ptr<Error> deferred;  // the first binding error (cheaper than an optional)
  std::uint64_t given = 0;          // bit i: parameter i was passed
  for (std::size_t i = 0; i < positional_count; ++i) {
    if (i < params.size()) {
      args.bound[i] = positional(i);
      given |= std::uint64_t{1} << i;
    } else if (spec.variadic) {
      args.extra_positional.push_back(positional(i));
    } else {
      (void)positional(i);
      if (!deferred) {
        deferred = std::make_unique<Error>(
            ErrorKind::Render, what() + " takes at most " + std::to_string(params.size()) +
                                   " argument" + (params.size() == 1 ? "" : "s") + " (" +
                                   std::to_string(positional_count) + " given)");
      }
    }
  }
  for (std::size_t k = 0; k < keyword_count; ++k) {
    const std::string& name = keyword_name(k);
    Value value = keyword_value(k);
    std::size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    if (i < params.size()) {
      if (given & (std::uint64_t{1} << i)) {
        if (!deferred)
          deferred = std::make_unique<Error>(
              ErrorKind::Render, what() + " got multiple values for argument '" + name + "'");
        continue;
      }
      args.bound[i] = std::move(value);
      given |= std::uint64_t{1} << i;
    } else if (spec.variadic) {
      args.extra_keywords.emplace_back(name, std::move(value));
    } else if (!deferred) {
      deferred = std::make_unique<Error>(
          ErrorKind::Render, what() + " got an unexpected keyword argument '" + name + "'");
    }
  }
  if (deferred) throw *deferred;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (given & (std::uint64_t{1} << i)) continue;
    if (!params[i].default_value) {
      throw Error(ErrorKind::Render,
                  what() + " is missing required argument '" + params[i].name + "'");
    }
    args.bound[i] = *params[i].default_value;
  }
}

// Binds already evaluated arguments (filters and tests that other filters call).
Arguments Renderer::bind(const FunctionSpec& spec, const char* kind, std::vector<Value> positional,
                         std::vector<std::pair<std::string, Value>> keyword) {
  Arguments args;
  bind_core(
      spec, kind, positional.size(), [&](std::size_t i) { return std::move(positional[i]); },
      keyword.size(), [&](std::size_t k) -> const std::string& { return keyword[k].first; },
      [&](std::size_t k) { return std::move(keyword[k].second); }, args);
  return args;
}

// Evaluates a call site's arguments in `frame` straight into their parameters.
void Renderer::bind_call(const FunctionSpec& spec, const char* kind, const CallArguments& call,
                         const Frame& frame, Arguments& args) {
  if (call.dynamic()) {
    // Named, not a structured binding: clang before 16 cannot capture a binding in a lambda.
    auto evaluated = eval_args(call, frame);
    auto& positional = evaluated.first;
    auto& keyword = evaluated.second;
    bind_core(
        spec, kind, positional.size(), [&](std::size_t i) { return std::move(positional[i]); },
        keyword.size(), [&](std::size_t k) -> const std::string& { return keyword[k].first; },
        [&](std::size_t k) { return std::move(keyword[k].second); }, args);
    return;
  }
  bind_core(
      spec, kind, call.positional.size(),
      [&](std::size_t i) { return eval(*call.positional[i], frame); }, call.keyword.size(),
      [&](std::size_t k) -> const std::string& { return call.keyword[k].first; },
      [&](std::size_t k) { return eval(*call.keyword[k].second, frame); }, args);
}

Arguments& Renderer::acquire_arguments() {
  const std::size_t i = arguments_in_use_++;
  Arguments* args;
  if (i < arguments_inline_.size()) {
    args = &arguments_inline_[i];
  } else {
    const std::size_t more = i - arguments_inline_.size();
    if (more == arguments_more_.size()) arguments_more_.push_back(std::make_unique<Arguments>());
    args = arguments_more_[more].get();
  }
  // Room for any builtin's parameters at the first use, so later calls never regrow it.
  if (args->bound.capacity() == 0) args->bound.reserve(kBoundCapacity);
  return *args;
}

// Calls a filter or test. `direct` (set only for calls without arguments) skips
// std::function, and the binder too when there are no parameters to fill.
Value Renderer::call_function(const FunctionSpec& spec, DirectBody direct, const char* kind,
                              const CallArguments& call, const Value& subject, const Frame& frame) {
  if (direct && spec.parameters.empty()) {
    Arguments none;
    return direct(subject, none, *this);
  }
  ArgumentsLease bound(*this);
  bind_call(spec, kind, call, frame, bound.args);
  return direct ? direct(subject, bound.args, *this) : spec.body(subject, bound.args, *this);
}

Value Renderer::eval_node(const Expr& expr, const FilterExpr& node, const Frame& frame) {
  Value scratch;
  if (node.builtin_default) {
    const Value& result = default_in_place(node, frame, scratch);
    if (&result == &scratch) return scratch;
    return result;
  }
  return filter_of(expr, node, lookup(*node.subject, frame, scratch), frame);
}

// `subject | filter`, but the built-in `default` (default_of).
Value Renderer::filter_of(const Expr& expr, const FilterExpr& node, const Value& subject,
                          const Frame& frame) {
  try {
    if (node.builtin_tojson) {
      std::string json;
      append_tojson(json, subject);
      return Value::markup(std::move(json));  // as the filter: htmlsafe_json_dumps's Markup
    }
    // An unknown filter in a soft frame (parser_state.hpp, SoftFrame) fails when it runs.
    if (!node.spec) throw Error(ErrorKind::Render, "unknown filter '" + node.name + "'");
    return call_function(*node.spec, node.direct, "filter", node.args, subject, frame);
  } catch (const Error& error) {
    if (error.has_location()) throw;
    throw locate(error, expr.offset);
  }
}

Value Renderer::eval_node(const Expr& expr, const TestExpr& node, const Frame& frame) {
  return Value(test_result(expr, node, frame));
}

bool Renderer::test_result(const Expr& expr, const TestExpr& node, const Frame& frame) {
  std::optional<Value> scratch;
  return test_of(expr, node, lookup(*node.subject, frame, scratch), frame);
}

bool Renderer::test_of(const Expr& expr, const TestExpr& node, const Value& subject,
                       const Frame& frame) {
  try {
    if (!node.spec) throw Error(ErrorKind::Render, "unknown test '" + node.name + "'");
    bool result =
        call_function(*node.spec, node.direct, "test", node.args, subject, frame).truthy();
    return node.negated ? !result : result;
  } catch (const Error& error) {
    if (error.has_location()) throw;
    throw locate(error, expr.offset);
  }
}

Value Renderer::eval_node(const Expr& expr, const Call& node, const Frame& frame) {
  // `name(...)`: a macro or variable in scope wins over a global function.
  if (auto* name = std::get_if<NameRef>(&node.callee->node)) {
    const Value* local = frame.find(name->name, name->hash, name->where);
    if (!local) {
      if (name->name == "super" && node.args.positional.empty() && node.args.keyword.empty()) {
        return render_super(expr.offset);
      }
      if (const FunctionSpec* spec = env_.functions().find(FunctionKind::Global, name->name)) {
        ArgumentsLease bound(*this);
        bind_call(*spec, "function", node.args, frame, bound.args);
        return spec->body(Value(), bound.args, *this);
      }
      throw Error(ErrorKind::Undefined, "undefined function or variable '" + name->name + "'");
    }
  }
  if (auto* attr = std::get_if<GetAttr>(&node.callee->node)) {
    // `object.method(...)`: the method is called on the object where it is, with no bound
    // method made first.
    Value scratch;
    const Value& object = lookup(*attr->object, frame, scratch);
    if (attr->maybe_method && has_method(object, attr->attribute)) {
      auto [positional, keyword] = eval_args(node.args, frame);
      return call_method(object, attr->attribute, positional, keyword);
    }
    require_object(object, attr->object->offset);
    return call_of(node, get_attribute(object, attr->attribute), frame);
  }
  return call_of(node, eval(*node.callee, frame), frame);
}

// `callee(...)` for a callee already evaluated: a macro or a bound method.
Value Renderer::call_of(const Call& node, const Value& callee, const Frame& frame) {
  callee.require_defined();
  if (!callee.is_callable()) {
    throw Error(ErrorKind::Render,
                std::string("'") + callee.type_name() + "' object is not callable");
  }
  if (auto* macro = as_macro(callee.as_callable())) {
    std::string buffer;
    call_macro(*macro, node.args, frame, &buffer);
    return Value(std::move(buffer));
  }
  auto [positional, keyword] = eval_args(node.args, frame);
  if (auto* native = as_native(callee.as_callable())) return native->call(positional, keyword);
  if (auto* global = as_global(callee.as_callable())) {
    Arguments args = bind(global->spec(), "function", std::move(positional), std::move(keyword));
    return global->spec().body(Value(), args, *this);
  }
  if (auto* loop = as_loop_context(callee)) return loop->call(positional, keyword.size());
  Value result;
  if (call_bound_method(callee, positional, keyword, result)) return result;
  throw Error(ErrorKind::Render, "'" + callee.as_callable()->name() + "' cannot be called here");
}

// Runs a macro, writing its output to `target`. The arguments are evaluated in `caller`,
// left to right, straight into the macro's frame; binding errors are raised once all of
// them are evaluated.
void Renderer::call_macro(const Macro& macro, const CallArguments& call, const Frame& caller,
                          std::string* target) {
  const MacroStmt& stmt = macro.stmt();
  if (stmt.special() || call.dynamic()) {
    auto [positional, keyword] = eval_args(call, caller);
    invoke_macro(macro, std::move(positional), std::move(keyword), target);
    return;
  }
  step();
  const auto& params = stmt.params;
  if (params.size() > 64)
    throw Error(ErrorKind::Render,
                "macro '" + stmt.target.name + "' declares more than 64 parameters");
  Frame inner(&macro.frame(), stmt.scope);
  // The first binding error, raised once every argument is evaluated. As in Jinja2, a keyword
  // error wins over a positional one.
  std::unique_ptr<Error> deferred, deferred_positional;
  std::uint64_t given = 0;  // bit i: parameter i was passed
  for (std::size_t i = 0; i < call.positional.size(); ++i) {
    const Expr& arg = *call.positional[i];
    if (i < params.size()) {
      // A name or a literal, the usual argument, is copied straight into its slot.
      const auto slot = static_cast<std::uint16_t>(i);
      if (const Value* value = existing(arg, caller)) {
        inner.assign_slot(slot, *value);
      } else {
        inner.assign_slot(slot, eval(arg, caller));
      }
      given |= std::uint64_t{1} << i;
      continue;
    }
    (void)eval(arg, caller);  // evaluated all the same, as Python does before failing
    if (!deferred_positional) {
      deferred_positional = std::make_unique<Error>(
          ErrorKind::Render, "macro '" + stmt.target.name + "' takes not more than " +
                                 std::to_string(params.size()) + " argument(s)");
    }
  }
  for (const auto& [name, expr] : call.keyword) {
    Value value = eval(*expr, caller);
    std::size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    // Jinja2 takes keywords only for the parameters the positional arguments left: a keyword
    // naming one they filled stays a keyword argument the macro does not take.
    if (i == params.size() || (given & (std::uint64_t{1} << i))) {
      if (!deferred)
        deferred = std::make_unique<Error>(
            ErrorKind::Render,
            "macro '" + stmt.target.name + "' takes no keyword argument '" + name + "'");
    } else {
      inner.assign_slot(static_cast<std::uint16_t>(i), std::move(value));
      given |= std::uint64_t{1} << i;
    }
  }
  if (deferred) throw *deferred;
  if (deferred_positional) throw *deferred_positional;
  run_macro(macro, inner, given, target);
}

// Runs a macro whose frame `inner` holds the arguments passed (bit i of `given`: parameter i):
// the others get their defaults, then the body writes to `target`.
void Renderer::run_macro(const Macro& macro, Frame& inner, std::uint64_t given,
                         std::string* target) {
  const MacroStmt& stmt = macro.stmt();
  DepthGuard depth(*this, "macro", stmt.height);
  const TemplateTree* saved_tree = tree_;
  tree_ = &macro.tree();
  try {
    // Defaults are evaluated in the macro's scope, so they may refer to earlier parameters.
    for (std::size_t i = 0; i < stmt.params.size(); ++i) {
      if (given & (std::uint64_t{1} << i)) continue;
      const auto slot = static_cast<std::uint16_t>(i);
      if (stmt.params[i].default_value) {
        inner.assign_slot(slot, eval(*stmt.params[i].default_value, inner));
      } else {
        inner.assign_slot(
            slot, Value::undefined("undefined variable '" + stmt.params[i].name + "' (macro '" +
                                   macro.name() + "' was called without it)"));
      }
    }
    std::string* saved = out_;
    out_ = target;
    try {
      exec_body(stmt.body, inner);
    } catch (...) {
      out_ = saved;
      throw;
    }
    out_ = saved;
    tree_ = saved_tree;
  } catch (...) {
    tree_ = saved_tree;
    throw;
  }
}

// Calls a macro with evaluated arguments by Jinja2's rules (runtime.py, Macro.__call__): the
// positional arguments fill the parameters in order; only when they do not fill them all are
// the rest taken from the keyword arguments. Then `caller` (when the body reads it), the
// keyword arguments left (into `kwargs` when the body reads it, else an error) and the
// positional ones left (into `varargs`, else an error).
void Renderer::invoke_macro(const Macro& macro, std::vector<Value> positional,
                            KeywordValues keyword, std::string* target) {
  step();
  const MacroStmt& stmt = macro.stmt();
  const auto& params = stmt.params;
  const std::string what = "macro '" + macro.name() + "'";
  if (params.size() > 64)
    throw Error(ErrorKind::Render, what + " declares more than 64 parameters");
  Frame inner(&macro.frame(), stmt.scope);
  auto take = [&](const std::string& name, Value& into) {
    for (auto it = keyword.begin(); it != keyword.end(); ++it) {
      if (it->first == name) {
        into = std::move(it->second);
        keyword.erase(it);
        return true;
      }
    }
    return false;
  };
  std::uint64_t given = 0;
  const std::size_t count = std::min(positional.size(), params.size());
  for (std::size_t i = 0; i < count; ++i) {
    inner.assign_slot(static_cast<std::uint16_t>(i), std::move(positional[i]));
    given |= std::uint64_t{1} << i;
  }
  bool found_caller = stmt.explicit_caller;
  if (count != params.size()) {
    found_caller = false;
    for (std::size_t i = count; i < params.size(); ++i) {
      Value value;
      if (params[i].name == "caller") found_caller = true;
      if (take(params[i].name, value)) {
        inner.assign_slot(static_cast<std::uint16_t>(i), std::move(value));
        given |= std::uint64_t{1} << i;
      }
    }
  }
  if (stmt.accesses_caller && !found_caller) {
    Value caller;
    if (!take("caller", caller) || caller.is_none()) {
      caller = Value::undefined("undefined variable 'caller' (no caller defined: " + what +
                                " was not called from a call block)");
    }
    // An explicit `caller` parameter with a default holds it, else the implicit one.
    if (!stmt.explicit_caller) inner.assign(stmt.caller_param, std::move(caller));
  }
  if (stmt.catch_kwargs) {
    ValueDict extra;
    for (auto& [name, value] : keyword) extra.set(name, std::move(value));
    inner.assign(stmt.kwargs_param, Value(std::move(extra)));
  } else if (!keyword.empty()) {
    for (const auto& [name, value] : keyword) {
      if (name == "caller") {
        throw Error(ErrorKind::Render, what +
                                           " was invoked with two values for the special caller "
                                           "argument (it does not use 'caller')");
      }
    }
    throw Error(ErrorKind::Render,
                what + " takes no keyword argument '" + keyword.front().first + "'");
  }
  if (stmt.catch_varargs) {
    ValueList rest;
    for (std::size_t i = count; i < positional.size(); ++i)
      rest.push_back(std::move(positional[i]));
    inner.assign(stmt.varargs_param, Value::tuple(std::move(rest)));
  } else if (positional.size() > params.size()) {
    throw Error(ErrorKind::Render,
                what + " takes not more than " + std::to_string(params.size()) + " argument(s)");
  }
  run_macro(macro, inner, given, target);
}

// `{% call(params) callee(args) %}body{% endcall %}`: the body becomes an anonymous macro
// defined here, passed to the callee as its `caller` keyword argument.
void Renderer::exec_node(const Stmt& stmt, const CallBlockStmt& node, Frame& frame) {
  if (muted()) return;  // output at a child's top level is never evaluated
  const Macro* caller =
      new (arena_.allocate(sizeof(Macro), alignof(Macro))) Macro(node.caller, *tree_, frame);
  const Call& call = std::get<Call>(node.call->node);
  guard(stmt, [&] {
    if (auto* name = std::get_if<NameRef>(&call.callee->node)) {
      if (!frame.find(name->name, name->hash, name->where) &&
          env_.functions().find(FunctionKind::Global, name->name)) {
        throw locate(Error(ErrorKind::Render, "'" + name->name +
                                                  "' is not a macro: only a macro can be called "
                                                  "from a call block"),
                     call.callee->offset);
      }
    }
    Value callee;
    try {
      callee = eval(*call.callee, frame);
      callee.require_defined();
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, call.callee->offset);
    }
    auto [positional, keyword] = eval_args(call.args, frame);
    for (const auto& [name, value] : keyword) {
      if (name == "caller")
        throw locate(Error(ErrorKind::Render, "got multiple values for keyword argument 'caller'"),
                     node.call->offset);
    }
    // Jinja2 passes `caller` after the keyword arguments written and before `**`'s.
    keyword.emplace(
        keyword.begin() + static_cast<std::ptrdiff_t>(call.args.keyword.size()), "caller",
        Value(std::shared_ptr<const Callable>(std::shared_ptr<const Callable>(), caller)));
    try {
      const Macro* macro = callee.is_callable() ? as_macro(callee.as_callable()) : nullptr;
      if (!macro) {
        throw Error(ErrorKind::Render, std::string("'") + callee.type_name() +
                                           "' object cannot be called from a call block");
      }
      mark(stmt.offset);
      invoke_macro(*macro, std::move(positional), std::move(keyword), out_);
      check_output();
    } catch (const Error& error) {
      throw error.has_location() ? error : locate(error, node.call->offset);
    }
  });
}

}  // namespace zf::detail
