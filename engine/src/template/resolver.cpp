// SPDX-License-Identifier: MIT
// The resolver pass. It mirrors the renderer's scoping: which statements run their body in a
// frame of their own, and in which frame each expression is evaluated. Each scope is first
// analysed as Jinja2's idtracking.py analyses a frame (its own statements in order, the
// bodies with scopes of their own left out), which lays out its slots and decides which of
// them start undefined; only then are the names it reads resolved and the scopes inside it
// handled the same way, so that an inner scope knows everything its enclosing scopes assign.
#include "template/resolver.hpp"

#include <utility>
#include <vector>

#include "template/ast_walk.hpp"

namespace zf::detail {
namespace {

// Calls `visit(e)` for `expr` and every expression inside it.
template <typename Visit>
void walk(Expr& expr, Visit& visit) {
  visit(expr);
  std::visit([&](auto& node) { for_each_operand(node, [&](Expr& child) { walk(child, visit); }); },
             expr.node);
}

class Resolver {
 public:
  void run(TemplateTree& tree) {
    enter(tree.scope, Scope::Kind::Template);
    run_body(tree.body);
    leave();
  }

 private:
  struct NameKey {
    std::string_view name;
    std::uint64_t hash;
  };
  // A scope the statements being resolved are in.
  struct Level {
    Scope* scope;
    std::vector<NameKey> unslotted;  // names it assigns past kMaxSlots
    // Names it reads that no scope knew when it read them (Jinja2's "resolve" references):
    // an inner scope that assigns one starts with the value from outside, not undefined.
    std::vector<NameKey> read_first;
    std::uint64_t params = 0;  // slots set before the body runs (loop targets, parameters)
    std::uint64_t stored = 0;  // slots assigned by the statements analysed so far
  };

  static bool contains(const std::vector<NameKey>& names, std::string_view name,
                       std::uint64_t hash) {
    for (const auto& [n, h] : names) {
      if (h == hash && n == name) return true;
    }
    return false;
  }

  void enter(Scope& scope, Scope::Kind kind = Scope::Kind::Nested) {
    scope.kind = kind;
    levels_.push_back(Level{&scope, {}, {}, 0, 0});
  }
  void leave() { levels_.pop_back(); }

  // Analyses `body`, then resolves it, in the innermost scope.
  void run_body(Body& body) {
    analyse_body(body);
    resolve_body(body);
  }

  // ----- analysing a scope: its slots, and which start undefined -----

  // The slot of `name` in the innermost scope, made if needed.
  Resolved declare(std::string_view name, std::uint64_t hash) {
    Level& level = levels_.back();
    Scope& scope = *level.scope;
    std::uint16_t slot = scope.slot_of(name, hash);
    if (slot == kNoSlot) {
      if (scope.names.size() < Scope::kMaxSlots) {
        slot = static_cast<std::uint16_t>(scope.names.size());
        scope.names.push_back(name);
        scope.hashes.push_back(hash);
        scope.mask |= name_bit(hash);
      } else if (!contains(level.unslotted, name, hash)) {
        level.unslotted.push_back({name, hash});
      }
    }
    return {&scope, 0, slot};
  }

  // A name the owning statement binds before the body runs (a loop target, a parameter).
  Resolved param(std::string_view name, std::uint64_t hash) {
    Resolved where = declare(name, hash);
    if (where.slot != kNoSlot) {
      levels_.back().params |= std::uint64_t{1} << where.slot;
      levels_.back().stored |= std::uint64_t{1} << where.slot;
    }
    return where;
  }
  void param(Target& target) { target.where = param(target.name, target.hash); }

  // An assignment in the innermost scope.
  void store(Target& target) {
    target.where = declare(target.name, target.hash);
    if (target.where.slot == kNoSlot) return;  // kept by name, read from outside until set
    Level& level = levels_.back();
    const std::uint64_t bit = std::uint64_t{1} << target.where.slot;
    if (!(level.stored & bit) && !contains(level.read_first, target.name, target.hash) &&
        !known_outside(target.name, target.hash)) {
      level.scope->unset_is_undefined |= bit;
    }
    level.stored |= bit;
  }

  // A read in the innermost scope.
  void load(const NameRef& ref) {
    Level& level = levels_.back();
    if (knows(level, ref.name, ref.hash) || known_outside(ref.name, ref.hash)) return;
    level.read_first.push_back({ref.name, ref.hash});
  }
  void load(Expr& expr) {
    auto visit = [&](Expr& e) {
      if (auto* ref = std::get_if<NameRef>(&e.node)) load(*ref);
    };
    walk(expr, visit);
  }
  void load(CallArguments& args) {
    for_each_argument(args, [&](Expr& arg) { load(arg); });
  }
  void load(std::vector<FilterCall>& filters) {
    for (auto& filter : filters) load(filter.args);
  }

  // Whether `level` has assigned `name`, or read it first, in what was analysed so far.
  static bool knows(const Level& level, std::string_view name, std::uint64_t hash) {
    const std::uint16_t slot = level.scope->slot_of(name, hash);
    return (slot != kNoSlot && ((level.stored >> slot) & 1)) ||
           contains(level.unslotted, name, hash) || contains(level.read_first, name, hash);
  }

  // Whether a scope around the innermost one knows `name`: only scopes of the same template
  // count, and not past a block (Jinja2 analyses a block as a template of its own).
  bool known_outside(std::string_view name, std::uint64_t hash) const {
    for (std::size_t i = levels_.size() - 1; i > 0 && levels_[i].scope->kind == Scope::Kind::Nested;
         --i) {
      if (knows(levels_[i - 1], name, hash)) return true;
    }
    return false;
  }

  void analyse_body(Body& body) {
    for (auto& stmt : body) std::visit([&](auto& node) { analyse(node); }, stmt->node);
  }

  void analyse(TextStmt&) {}
  void analyse(PrintStmt& node) { load(*node.expr); }
  void analyse(IfStmt& node) {
    Level& level = levels_.back();
    const std::uint64_t stored_before = level.stored;
    for (auto& [test, body] : node.branches) {
      load(*test);
      analyse_body(body);
    }
    analyse_body(node.otherwise);
    // A name first assigned in a branch may not be assigned when it is read: Jinja2 starts
    // it with the value from outside.
    level.scope->unset_is_undefined &= ~(level.stored & ~stored_before);
  }
  // A loop's condition, body and else have scopes of their own.
  void analyse(ForStmt& node) { load(*node.iterable); }
  void analyse(SetStmt& node) {
    load(*node.value);
    if (node.namespace_ref) load(*node.namespace_ref);
    for (auto& target : node.targets) store(target);
  }
  // `set ns.attr` reads `ns` here, as Jinja2's NSRef does; only a name is assigned.
  void analyse(SetBlockStmt& node) {
    if (node.namespace_ref) {
      load(*node.namespace_ref);
    } else {
      for (auto& target : node.targets) store(target);
    }
  }
  void analyse(IncludeStmt& node) { load(*node.name); }
  void analyse(ExtendsStmt& node) { load(*node.name); }
  void analyse(BlockStmt&) {}
  void analyse(MacroStmt& node) { store(node.target); }
  void analyse(CallBlockStmt& node) { load(*node.call); }
  void analyse(FilterBlockStmt& node) { load(node.filters); }
  void analyse(ImportStmt& node) {
    load(*node.name);
    store(node.alias);
  }
  void analyse(FromImportStmt& node) {
    load(*node.name);
    for (auto& [name, alias] : node.names) store(alias);
  }
  void analyse(WithStmt& node) {
    for (auto& [target, expr] : node.assignments) load(*expr);
  }

  // ----- resolving what each statement reads -----

  void resolve_body(Body& body) {
    for (auto& stmt : body) std::visit([&](auto& node) { resolve_stmt(node); }, stmt->node);
  }

  void resolve_stmt(TextStmt&) {}
  void resolve_stmt(PrintStmt& node) { resolve(*node.expr); }
  void resolve_stmt(IfStmt& node) {
    for (auto& [test, body] : node.branches) {
      resolve(*test);
      resolve_body(body);
    }
    resolve_body(node.otherwise);
  }
  void resolve_stmt(ForStmt& node) {
    resolve(*node.iterable);
    enter(node.scope);
    for (auto& target : node.targets) param(target);
    // Resolved while the scope has only the targets, so it sees nothing else of it.
    if (node.condition) resolve(*node.condition);
    if (node.uses_loop) param(node.loop);
    run_body(node.body);
    leave();
    enter(node.else_scope);
    run_body(node.otherwise);
    leave();
  }
  void resolve_stmt(SetStmt& node) {
    resolve(*node.value);
    if (node.namespace_ref) resolve(*node.namespace_ref);
  }
  void resolve_stmt(SetBlockStmt& node) {
    enter(node.scope);
    analyse_body(node.body);
    load(node.filters);
    resolve_body(node.body);
    resolve_filters(node.filters);
    leave();
    // The namespace is looked up in the enclosing scope, not the block's.
    if (node.namespace_ref) resolve(*node.namespace_ref);
  }
  void resolve_stmt(IncludeStmt& node) { resolve(*node.name); }
  void resolve_stmt(ExtendsStmt& node) { resolve(*node.name); }
  void resolve_stmt(BlockStmt& node) {
    enter(node.scope, Scope::Kind::Block);
    run_body(node.body);
    leave();
  }
  void resolve_stmt(MacroStmt& node) { resolve_macro(node); }
  void resolve_macro(MacroStmt& node) {
    enter(node.scope);
    for (auto& p : node.params) param(p.name, ValueDict::hash(p.name));  // slot i
    // Then the implicit parameters, in Jinja2's order.
    if (node.accesses_caller && !node.explicit_caller) param(node.caller_param);
    if (node.catch_kwargs) param(node.kwargs_param);
    if (node.catch_varargs) param(node.varargs_param);
    for (auto& p : node.params) {
      if (p.default_value) load(*p.default_value);
    }
    analyse_body(node.body);
    for (auto& p : node.params) {
      if (p.default_value) resolve(*p.default_value);
    }
    resolve_body(node.body);
    leave();
  }
  void resolve_stmt(CallBlockStmt& node) {
    resolve(*node.call);
    resolve_macro(node.caller);
  }
  void resolve_stmt(FilterBlockStmt& node) {
    enter(node.scope);
    analyse_body(node.body);
    load(node.filters);
    resolve_body(node.body);
    resolve_filters(node.filters);
    leave();
  }
  void resolve_stmt(ImportStmt& node) { resolve(*node.name); }
  void resolve_stmt(FromImportStmt& node) { resolve(*node.name); }
  void resolve_stmt(WithStmt& node) {
    for (auto& [target, expr] : node.assignments) resolve(*expr);
    enter(node.scope);
    for (auto& [target, expr] : node.assignments) param(target);
    run_body(node.body);
    leave();
  }

  void resolve_filters(std::vector<FilterCall>& filters) {
    for (auto& filter : filters) for_each_argument(filter.args, [&](Expr& arg) { resolve(arg); });
  }

  void resolve(Expr& expr) {
    auto visit = [&](Expr& e) {
      if (auto* ref = std::get_if<NameRef>(&e.node)) {
        ref->where = find(ref->name, ref->hash);
        ref->reaches_outside = reaches_outside(ref->name, ref->hash);
        // (A global function's name keeps the function the parser gave it.)
        if (!ref->missing.is_callable())
          ref->missing =
              Value::undefined_variable(ref->name);  // points at ref->name, which stays put now
      } else if (auto* attr = std::get_if<GetAttr>(&e.node)) {
        attr->missing_key = Value::undefined_attribute("dict", attr->attribute);
      }
    };
    walk(expr, visit);
  }

  // The innermost scope that assigns `name`, or the first boundary on the way out.
  Resolved find(std::string_view name, std::uint64_t hash) const {
    std::uint16_t hops = 0;
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it, ++hops) {
      std::uint16_t slot = it->scope->slot_of(name, hash);
      if (slot != kNoSlot || it->scope->kind != Scope::Kind::Nested ||
          contains(it->unslotted, name, hash)) {
        return {it->scope, hops, slot};
      }
    }
    return {};  // not reached: the top level is a boundary
  }

  // Whether a read of `name` in the innermost scope may look past the template's scopes: no
  // scope on the way holds it for sure (a parameter, or a variable that is undefined until
  // it is assigned), which the analyzer reports as a name the template needs.
  bool reaches_outside(std::string_view name, std::uint64_t hash) const {
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
      const std::uint16_t slot = it->scope->slot_of(name, hash);
      if (slot != kNoSlot && (((it->params | it->scope->unset_is_undefined) >> slot) & 1)) {
        return false;
      }
      if (it->scope->kind != Scope::Kind::Nested) break;
    }
    return true;
  }

  std::vector<Level> levels_;
};

}  // namespace

void resolve_scopes(TemplateTree& tree) { Resolver().run(tree); }

}  // namespace zf::detail
