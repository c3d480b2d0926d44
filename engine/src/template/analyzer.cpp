// SPDX-License-Identifier: MIT
// The analyzer pass: visits every node, tracking names declared by set/for/macro/import, and
// collects names read before any declaration that the resolver found a render may look for
// outside the template's scopes (NameRef::reaches_outside).
#include "template/analyzer.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "template/ast_walk.hpp"
#include "zeroforge/template.hpp"

namespace zf::detail {
namespace {

class Analyzer {
 public:
  explicit Analyzer(const Environment& environment,
                    const std::set<const BlockStmt*>* skip = nullptr)
      : env_(environment), skip_(skip) {}

  void run(const TemplateTree& tree) {
    scopes_.emplace_back();
    levels_ = tree.height;
    visit_tree(tree);
  }

  std::set<std::string> result() const {
    std::set<std::string> out;
    for (const auto& name : used_) {
      if (!guarded_.count(name)) out.insert(name);
    }
    return out;
  }
  NamesRead names_read() const {
    NamesRead out{used_, calls_super_};
    out.names.insert(guarded_.begin(), guarded_.end());
    return out;
  }
  void run_block(const BlockStmt& block) {
    scopes_.emplace_back();
    scoped(block.body);
  }

 private:
  bool declared(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->count(name)) return true;
    }
    return false;
  }
  void declare(const std::string& name) { scopes_.back().insert(name); }

  void visit_tree(const TemplateTree& tree) {
    if (!visited_.insert(&tree).second) return;
    visit_body(tree.body);
  }

  // Follows include/extends/import when the name is a string literal on the search path.
  void follow(const Expr& name) {
    auto* literal = std::get_if<Literal>(&name.node);
    if (!literal || !literal->value.is_string()) {
      visit(name);
      return;
    }
    try {
      if (!env_.resolve(literal->value.as_string())) return;
      auto tpl = env_.load(literal->value.as_string());
      keep_.push_back(tpl);
      // This pass nests as a render would, and draws on the same budget (render_state.hpp,
      // DepthGuard): a render fails before it reaches a template past it.
      const std::uint32_t height = tpl->tree().height;
      if (levels_ + height > env_.options().max_nesting) return;
      levels_ += height;
      struct Release {
        std::int64_t& levels;
        std::uint32_t height;
        ~Release() { levels -= height; }
      } release{levels_, height};
      visit_tree(tpl->tree());
    } catch (const std::exception&) {
      // A broken include is reported when rendering reaches it.
    }
  }

  void visit_body(const Body& body) {
    for (const auto& stmt : body) visit_stmt(*stmt);
  }

  void scoped(const Body& body, std::initializer_list<std::string> names = {}) {
    scopes_.emplace_back();
    for (const auto& n : names) declare(n);
    visit_body(body);
    scopes_.pop_back();
  }

  void visit_stmt(const Stmt& stmt) {
    std::visit([&](const auto& node) { visit_node(node); }, stmt.node);
  }

  void visit_node(const TextStmt&) {}
  void visit_node(const PrintStmt& node) { visit(*node.expr); }
  // A name set in some branches only may still be unset after the `if`, and a read of it
  // then looks in the values: it counts as declared after the `if` only when every branch,
  // `else` included, sets it.
  void visit_node(const IfStmt& node) {
    std::optional<std::set<std::string>> in_every_branch;
    auto visit_branch = [&](const Body& body) {
      scopes_.emplace_back();
      visit_body(body);
      std::set<std::string> declared_here = std::move(scopes_.back());
      scopes_.pop_back();
      if (!in_every_branch) {
        in_every_branch = std::move(declared_here);
        return;
      }
      std::erase_if(*in_every_branch,
                    [&](const std::string& name) { return !declared_here.count(name); });
    };
    for (const auto& [test, body] : node.branches) {
      visit(*test);
      visit_branch(body);
    }
    visit_branch(node.otherwise);  // no `else`: an empty branch that sets nothing
    for (const auto& name : *in_every_branch) declare(name);
  }
  void visit_node(const ForStmt& node) {
    visit(*node.iterable);
    scopes_.emplace_back();
    declare("loop");
    for (const auto& t : node.targets) declare(t.name);
    if (node.condition) visit(*node.condition);
    visit_body(node.body);
    scopes_.pop_back();
    scoped(node.otherwise);
  }
  void visit_node(const SetStmt& node) {
    visit(*node.value);
    if (node.namespace_ref) visit(*node.namespace_ref);
    for (const auto& t : node.targets) declare(t.name);
  }
  void visit_node(const SetBlockStmt& node) {
    scoped(node.body);
    visit_filters(node.filters);
    if (node.namespace_ref) {
      visit(*node.namespace_ref);  // `ns` of `set ns.attr` is read where the statement is
    } else {
      for (const auto& t : node.targets) declare(t.name);
    }
  }
  void visit_node(const IncludeStmt& node) { follow(*node.name); }
  void visit_node(const ExtendsStmt& node) { follow(*node.name); }
  void visit_node(const BlockStmt& node) {
    if (skip_ == nullptr || !skip_->count(&node)) scoped(node.body);
  }
  void visit_node(const MacroStmt& node) {
    declare(node.target.name);
    visit_macro(node);
  }
  void visit_macro(const MacroStmt& node) {
    scopes_.emplace_back();
    for (const auto& p : node.params) {
      if (p.default_value) visit(*p.default_value);
      declare(p.name);
    }
    if (node.accesses_caller) declare("caller");
    if (node.catch_kwargs) declare("kwargs");
    if (node.catch_varargs) declare("varargs");
    visit_body(node.body);
    scopes_.pop_back();
  }
  void visit_node(const CallBlockStmt& node) {
    visit(*node.call);
    visit_macro(node.caller);
  }
  void visit_node(const FilterBlockStmt& node) {
    visit_filters(node.filters);
    scoped(node.body);
  }
  void visit_node(const ImportStmt& node) {
    // A module without context reads nothing from our values.
    if (auto* literal = std::get_if<Literal>(&node.name->node); !literal) visit(*node.name);
    declare(node.alias.name);
  }
  void visit_node(const FromImportStmt& node) {
    if (auto* literal = std::get_if<Literal>(&node.name->node); !literal) visit(*node.name);
    for (const auto& [name, alias] : node.names) declare(alias.name);
  }
  void visit_node(const WithStmt& node) {
    for (const auto& [name, expr] : node.assignments) visit(*expr);
    scopes_.emplace_back();
    for (const auto& [target, expr] : node.assignments) declare(target.name);
    visit_body(node.body);
    scopes_.pop_back();
  }

  void visit_filters(const std::vector<FilterCall>& filters) {
    for (const auto& f : filters) visit_args(f.args);
  }
  void visit_args(const CallArguments& args) {
    for_each_argument(args, [&](const Expr& arg) { visit(arg); });
  }

  void guard_subject(const Expr& subject) {
    if (auto* name = std::get_if<NameRef>(&subject.node)) {
      guarded_.insert(name->name);
    } else {
      visit(subject);
    }
  }

  void visit(const Expr& expr) {
    std::visit([&](const auto& node) { visit_expr(node); }, expr.node);
  }

  // Nodes without a rule of their own: their operands.
  template <typename Node>
  void visit_expr(const Node& node) {
    for_each_operand(node, [&](const Expr& operand) { visit(operand); });
  }
  // A name is needed when the resolver found that a render may look for it past the
  // template's scopes, unless an includer has declared it by then.
  void visit_expr(const NameRef& node) {
    if (node.reaches_outside && !declared(node.name)) used_.insert(node.name);
  }
  // A link of a Chain has no callee or subject of its own (it applies to the chain's value).
  void visit_expr(const Call& node) {
    auto* name = node.callee ? std::get_if<NameRef>(&node.callee->node) : nullptr;
    if (name && name->name == "super") calls_super_ = true;
    bool global =
        name && name->reaches_outside && !declared(name->name) &&
        (name->name == "super" || env_.functions().find(FunctionKind::Global, name->name));
    if (!global && node.callee) visit(*node.callee);
    visit_args(node.args);
  }
  void visit_expr(const FilterExpr& node) {
    if (node.subject && (node.name == "default" || node.name == "d")) {
      guard_subject(*node.subject);
    } else if (node.subject) {
      visit(*node.subject);
    }
    visit_args(node.args);
  }
  void visit_expr(const TestExpr& node) {
    if (node.subject && (node.name == "defined" || node.name == "undefined")) {
      guard_subject(*node.subject);
    } else if (node.subject) {
      visit(*node.subject);
    }
    visit_args(node.args);
  }

  const Environment& env_;
  std::vector<std::set<std::string>> scopes_;
  std::set<std::string> used_;
  std::set<std::string> guarded_;
  std::set<const TemplateTree*> visited_;
  std::vector<std::shared_ptr<const Template>> keep_;
  const std::set<const BlockStmt*>* skip_;
  bool calls_super_ = false;
  std::int64_t levels_ = 0;  // the heights of the templates being visited, summed
};

}  // namespace

std::set<std::string> find_required_names(const TemplateTree& tree,
                                          const Environment& environment) {
  Analyzer analyzer(environment);
  analyzer.run(tree);
  return analyzer.result();
}

NamesRead find_names_read(const TemplateTree& tree, const Environment& environment,
                          const std::set<const BlockStmt*>& skip) {
  Analyzer analyzer(environment, &skip);
  analyzer.run(tree);
  return analyzer.names_read();
}

NamesRead find_names_read(const BlockStmt& block, const Environment& environment) {
  Analyzer analyzer(environment);
  analyzer.run_block(block);
  return analyzer.names_read();
}

}  // namespace zf::detail
