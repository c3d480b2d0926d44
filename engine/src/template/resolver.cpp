// SPDX-License-Identifier: MIT
// The resolver pass. It mirrors the renderer's scoping: which statements run their body in a
// frame of their own, and in which frame each expression is evaluated. On entering a scope
// it first declares every name the scope assigns anywhere in its body, so a read placed
// before the assignment (a macro defined above a `set` it reads) still finds the slot.
#include "template/resolver.hpp"

#include <utility>
#include <vector>

namespace zf::detail {
namespace {

class Resolver {
 public:
  void run(TemplateTree& tree) { in_scope(tree.scope, true, tree.body); }

 private:
  // A scope the statements being resolved are in.
  struct Level {
    Scope* scope;
    bool boundary;  // its frame's parent is picked at render time (the top level, a block)
    std::vector<std::pair<std::string_view, std::uint64_t>> unslotted;  // past kMaxSlots
  };

  // Resolves `body`, which runs in a frame of `scope`. `declare_own` declares the names the
  // statement owning the body binds in that frame (loop targets, parameters); `resolve_own`
  // resolves what it evaluates there before the body (a loop condition, parameter defaults).
  template <typename DeclareOwn = void (*)(), typename ResolveOwn = void (*)()>
  void in_scope(
      Scope& scope, bool boundary, Body& body, DeclareOwn&& declare_own = [] {},
      ResolveOwn&& resolve_own = [] {}) {
    levels_.push_back(Level{&scope, boundary, {}});
    declare_own();
    declare_body(body);
    resolve_own();
    resolve_body(body);
    levels_.pop_back();
  }

  static bool holds(const Level& level, std::string_view name, std::uint64_t hash) {
    for (const auto& [n, h] : level.unslotted) {
      if (h == hash && n == name) return true;
    }
    return false;
  }

  // ----- declaring the names a scope assigns -----

  void declare(Target& target) { target.where = declare(target.name, target.hash); }

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
      } else if (!holds(level, name, hash)) {
        level.unslotted.emplace_back(name, hash);
      }
    }
    return {&scope, 0, slot};
  }

  void declare_body(Body& body) {
    for (auto& stmt : body) std::visit([&](auto& node) { declare_stmt(node); }, stmt->node);
  }

  void declare_stmt(SetStmt& node) {
    for (auto& target : node.targets) declare(target);
  }
  void declare_stmt(SetBlockStmt& node) { declare(node.target); }
  void declare_stmt(MacroStmt& node) { declare(node.target); }
  void declare_stmt(ImportStmt& node) { declare(node.alias); }
  void declare_stmt(FromImportStmt& node) {
    for (auto& [name, alias] : node.names) declare(alias);
  }
  void declare_stmt(IfStmt& node) {
    for (auto& [test, body] : node.branches) declare_body(body);
    declare_body(node.otherwise);
  }
  void declare_stmt(ForStmt& node) { declare_body(node.otherwise); }  // `else` runs out here
  // These assign nothing in the enclosing scope (their bodies have scopes of their own).
  void declare_stmt(TextStmt&) {}
  void declare_stmt(PrintStmt&) {}
  void declare_stmt(IncludeStmt&) {}
  void declare_stmt(ExtendsStmt&) {}
  void declare_stmt(BlockStmt&) {}
  void declare_stmt(FilterBlockStmt&) {}
  void declare_stmt(WithStmt&) {}

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
    in_scope(
        node.scope, false, node.body,
        [&] {
          if (node.uses_loop) declare(node.loop);
          for (auto& target : node.targets) declare(target);
        },
        [&] {
          if (node.condition) resolve(*node.condition);
        });
    resolve_body(node.otherwise);
  }
  void resolve_stmt(SetStmt& node) { resolve(*node.value); }
  void resolve_stmt(SetBlockStmt& node) {
    in_scope(node.scope, false, node.body);
    resolve_filters(node.filters);
  }
  void resolve_stmt(IncludeStmt& node) { resolve(*node.name); }
  void resolve_stmt(ExtendsStmt& node) { resolve(*node.name); }
  void resolve_stmt(BlockStmt& node) { in_scope(node.scope, true, node.body); }
  void resolve_stmt(MacroStmt& node) {
    in_scope(
        node.scope, false, node.body,
        [&] {
          for (auto& param : node.params)
            declare(param.name, ValueDict::hash(param.name));  // slot i
        },
        [&] {
          for (auto& param : node.params) {
            if (param.default_value) resolve(*param.default_value);
          }
        });
  }
  void resolve_stmt(FilterBlockStmt& node) {
    resolve_filters(node.filters);
    in_scope(node.scope, false, node.body);
  }
  void resolve_stmt(ImportStmt& node) { resolve(*node.name); }
  void resolve_stmt(FromImportStmt& node) { resolve(*node.name); }
  void resolve_stmt(WithStmt& node) {
    for (auto& [target, expr] : node.assignments) resolve(*expr);
    in_scope(node.scope, false, node.body, [&] {
      for (auto& [target, expr] : node.assignments) declare(target);
    });
  }

  void resolve_filters(std::vector<FilterCall>& filters) {
    for (auto& filter : filters) resolve_args(filter.args);
  }
  void resolve_args(CallArguments& args) {
    for (auto& arg : args.positional) resolve(*arg);
    for (auto& [name, arg] : args.keyword) resolve(*arg);
  }

  // ----- expressions -----

  void resolve(Expr& expr) {
    std::visit([&](auto& node) { resolve_expr(node); }, expr.node);
  }

  void resolve_expr(Literal&) {}
  void resolve_expr(NameRef& node) {
    node.where = find(node.name, node.hash);
    node.missing =
        Value::undefined_variable(node.name);  // points at node.name, which stays put now
  }
  void resolve_expr(GetAttr& node) {
    resolve(*node.object);
    node.missing_key = Value::undefined_attribute("dict", node.attribute);
  }
  void resolve_expr(GetItem& node) {
    resolve(*node.object);
    resolve(*node.key);
  }
  void resolve_expr(SliceExpr& node) {
    resolve(*node.object);
    for (ExprPtr* bound : {&node.start, &node.stop, &node.step}) {
      if (*bound) resolve(**bound);
    }
  }
  void resolve_expr(Unary& node) { resolve(*node.operand); }
  void resolve_expr(Binary& node) {
    resolve(*node.left);
    resolve(*node.right);
  }
  void resolve_expr(Compare& node) {
    resolve(*node.first);
    for (auto& [op, operand] : node.rest) resolve(*operand);
  }
  void resolve_expr(Conditional& node) {
    resolve(*node.test);
    resolve(*node.then);
    if (node.otherwise) resolve(*node.otherwise);
  }
  void resolve_expr(ListExpr& node) {
    for (auto& item : node.items) resolve(*item);
  }
  void resolve_expr(DictExpr& node) {
    for (auto& [key, value] : node.items) {
      resolve(*key);
      resolve(*value);
    }
  }
  void resolve_expr(Call& node) {
    resolve(*node.callee);
    resolve_args(node.args);
  }
  void resolve_expr(FilterExpr& node) {
    resolve(*node.subject);
    resolve_args(node.args);
  }
  void resolve_expr(TestExpr& node) {
    resolve(*node.subject);
    resolve_args(node.args);
  }

  // The innermost scope that assigns `name`, or the first boundary on the way out.
  Resolved find(std::string_view name, std::uint64_t hash) const {
    std::uint16_t hops = 0;
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it, ++hops) {
      std::uint16_t slot = it->scope->slot_of(name, hash);
      if (slot != kNoSlot || it->boundary || holds(*it, name, hash)) return {it->scope, hops, slot};
    }
    return {};  // not reached: the top level is a boundary
  }

  std::vector<Level> levels_;
};

}  // namespace

void resolve_scopes(TemplateTree& tree) { Resolver().run(tree); }

}  // namespace zf::detail
