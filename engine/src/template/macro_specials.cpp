// SPDX-License-Identifier: MIT
// The search for `caller`, `kwargs` and `varargs` in a macro's body (macro_specials.hpp).
#include "template/macro_specials.hpp"

#include <string_view>

#include "template/ast_walk.hpp"

namespace zf::detail {
namespace {

// Jinja2's UndeclaredNameVisitor over the three names: a read adds a name that is still
// looked for; an assignment or a parameter stops looking for it.
class SpecialNames {
 public:
  bool caller = false, kwargs = false, varargs = false;

  void body(const Body& statements) {
    for (const auto& stmt : statements) std::visit([&](const auto& n) { visit(n); }, stmt->node);
  }

 private:
  bool* flag(std::string_view name) {
    if (name == "caller") return &caller;
    if (name == "kwargs") return &kwargs;
    if (name == "varargs") return &varargs;
    return nullptr;
  }
  void read(std::string_view name) {
    if (bool* f = flag(name); f && !(declared_ & bit(name))) *f = true;
  }
  void declare(std::string_view name) {
    if (bool* f = flag(name); f && !*f) declared_ |= bit(name);
  }
  static unsigned bit(std::string_view name) {
    return name == "caller" ? 1u : name == "kwargs" ? 2u : 4u;
  }

  void expr(const Expr& e) {
    if (auto* ref = std::get_if<NameRef>(&e.node)) read(ref->name);
    std::visit([&](const auto& node) { for_each_operand(node, [&](const Expr& c) { expr(c); }); },
               e.node);
  }
  void expr(const ExprPtr& e) {
    if (e) expr(*e);
  }
  void args(const CallArguments& a) {
    for_each_argument(a, [&](const Expr& arg) { expr(arg); });
  }
  void filters(const std::vector<FilterCall>& list) {
    for (const auto& f : list) args(f.args);
  }
  void macro(const MacroStmt& m) {
    for (const auto& p : m.params) declare(p.name);
    for (const auto& p : m.params) expr(p.default_value);
    body(m.body);
  }

  void visit(const TextStmt&) {}
  void visit(const PrintStmt& n) { expr(n.expr); }
  void visit(const IfStmt& n) {
    for (const auto& [test, branch] : n.branches) {
      expr(test);
      body(branch);
    }
    body(n.otherwise);
  }
  void visit(const ForStmt& n) {
    for (const auto& t : n.targets) declare(t.name);
    expr(n.iterable);
    body(n.body);
    body(n.otherwise);
    expr(n.condition);
  }
  // Jinja2 visits a statement's fields in its node's order: an assignment's target, then the
  // value; a block set's target, then its filter, then its body. The `ns` of `set ns.attr`
  // is not a Name there (an NSRef), so it neither reads nor declares a special name.
  void visit(const SetStmt& n) {
    for (const auto& t : n.targets) declare(t.name);
    expr(n.value);
  }
  void visit(const SetBlockStmt& n) {
    for (const auto& t : n.targets) declare(t.name);
    filters(n.filters);
    body(n.body);
  }
  void visit(const IncludeStmt& n) { expr(n.name); }
  void visit(const ExtendsStmt& n) { expr(n.name); }
  void visit(const BlockStmt&) {}  // Jinja2 does not look into blocks
  void visit(const MacroStmt& n) {
    declare(n.target.name);
    macro(n);
  }
  void visit(const FilterBlockStmt& n) {
    body(n.body);
    filters(n.filters);
  }
  void visit(const ImportStmt& n) {
    expr(n.name);
    declare(n.alias.name);
  }
  void visit(const FromImportStmt& n) {
    expr(n.name);
    for (const auto& [name, alias] : n.names) declare(alias.name);
  }
  void visit(const WithStmt& n) {
    for (const auto& [target, value] : n.assignments) {
      declare(target.name);
      expr(value);
    }
    body(n.body);
  }
  void visit(const CallBlockStmt& n) {
    expr(n.call);
    macro(n.caller);
  }

  unsigned declared_ = 0;
};

}  // namespace

bool find_macro_specials(MacroStmt& node) {
  SpecialNames names;
  names.body(node.body);
  bool varargs_param = false, kwargs_param = false;
  const MacroParam* caller_param = nullptr;
  for (const auto& p : node.params) {
    if (p.name == "caller") caller_param = &p;
    if (p.name == "varargs") varargs_param = true;
    if (p.name == "kwargs") kwargs_param = true;
  }
  node.explicit_caller = caller_param != nullptr;
  node.accesses_caller = names.caller;
  node.catch_kwargs = names.kwargs && !kwargs_param;
  node.catch_varargs = names.varargs && !varargs_param;
  return !(names.caller && caller_param && !caller_param->default_value);
}

}  // namespace zf::detail
