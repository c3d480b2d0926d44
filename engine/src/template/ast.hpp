// SPDX-License-Identifier: MIT
// The template AST: plain structs with a byte offset and owned children. Passes (renderer,
// analyzer) live outside the nodes and visit the variants, so a new node kind breaks the
// build until every pass handles it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "template/scope.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class UnaryOp { Not, Negate, Plus };
enum class BinaryOp {
  Add,
  Subtract,
  Multiply,
  Divide,
  FloorDivide,
  Modulo,
  Power,
  Concat,
  And,
  Or
};
enum class CompareOp { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, In, NotIn };

/// Arguments written at a call site: positional, then keyword, and Python's `*iterable` and
/// `**mapping` (null when absent), which add positional and keyword arguments at render time.
struct CallArguments {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> keyword;
  ExprPtr star;       ///< `*args`, or null
  ExprPtr star_star;  ///< `**kwargs`, or null
  /// Whether the arguments are known only at render time (`*` or `**` is used).
  bool dynamic() const noexcept { return star || star_star; }
  /// Whether the call passes nothing.
  bool empty() const noexcept { return positional.empty() && keyword.empty() && !dynamic(); }
};

/// A function body that is a plain function (every builtin's), callable without std::function.
using DirectBody = Value (*)(const Value& subject, Arguments& args, const CallContext& context);

struct Literal {
  Value value;
};
/// `hash` is ValueDict::hash(name), computed once when parsing. The resolver fills `where`,
/// `missing`: the undefined value the name reads as when nothing holds it, and
/// `reaches_outside`: whether a render may read the name from outside the template's scopes
/// (the values, an includer's variables), as no scope on the way is sure to hold it.
struct NameRef {
  std::string name;
  std::uint64_t hash;
  Resolved where;
  Value missing;
  bool reaches_outside = true;
};
/// `maybe_method`: some type has a method of this name (else the name can only be a key).
/// `missing_key`, filled by the resolver: what the attribute reads as on a dict without the key.
struct GetAttr {
  ExprPtr object;
  std::string attribute;
  std::uint64_t hash;
  bool maybe_method;
  Value missing_key;
};
struct GetItem {
  ExprPtr object;
  ExprPtr key;
};
struct SliceExpr {
  ExprPtr object;
  ExprPtr start, stop, step;
};
struct Unary {
  UnaryOp op;
  ExprPtr operand;
};
/// `first op operand op operand ...` of one precedence level, applied left to right:
/// `a + b - c` is one node however long it is, as a comparison chain is, so that a long sum
/// or concatenation adds one level to the tree, not one per operator. `offset` is the
/// operator's, where its errors point.
struct BinaryOperand {
  BinaryOp op;
  std::size_t offset;
  ExprPtr operand;
};
struct Binary {
  ExprPtr first;
  std::vector<BinaryOperand> rest;  // not empty; `and` and `or` never share a chain
};
struct Compare {
  ExprPtr first;
  std::vector<std::pair<CompareOp, ExprPtr>> rest;
};
struct Conditional {
  ExprPtr test, then, otherwise;
};  // otherwise may be null
struct ListExpr {
  std::vector<ExprPtr> items;
  bool tuple = false;
};
struct DictExpr {
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};
struct Call {
  ExprPtr callee;
  CallArguments args;
};
/// `subject | name(args)`; `spec` is resolved when parsing: null for an unknown filter inside
/// an `if` or a conditional, which fails when it runs (parser_state.hpp, SoftFrame).
/// `builtin_default`: the built-in `default` filter with at most its two positional
/// arguments, which the renderer evaluates in place.
struct FilterExpr {
  ExprPtr subject;
  std::string name;
  const FunctionSpec* spec;
  CallArguments args;
  bool builtin_default;         ///< the built-in `default` with at most two positional arguments
  bool builtin_tojson = false;  ///< the built-in `tojson` without arguments
  /// `spec`'s body when it is a plain function and the call passes no arguments.
  DirectBody direct = nullptr;
};
/// `subject is [not] name(args)`; `spec` as in FilterExpr.
/// `direct`: as in FilterExpr.
struct TestExpr {
  ExprPtr subject;
  std::string name;
  const FunctionSpec* spec;
  CallArguments args;
  bool negated;
  DirectBody direct = nullptr;
};

/// A long chain of postfix operations and filters, `x.a.b[0](1) | f | g is t ...`, stored
/// flat: `subject`, then each link applied in turn to the value so far. A link is a GetAttr,
/// GetItem, SliceExpr, Call, FilterExpr or TestExpr whose object (callee, subject) is null.
/// Short chains, the usual ones, are nested nodes instead (parser.cpp, kFlatChainFrom), which
/// the renderer reads in place without copying each step's value.
struct Chain {
  ExprPtr subject;
  std::vector<ExprPtr> links;
};

/// `height`: the levels of the tree this node roots (1 for a leaf). The parser refuses a node
/// that would nest deeper than EnvironmentOptions::max_nesting, which bounds every pass that
/// recurses over the tree (the renderer, the analyzer, the resolver and this destructor).
struct Expr {
  std::size_t offset;
  std::uint32_t height;
  std::variant<Literal, NameRef, GetAttr, GetItem, SliceExpr, Unary, Binary, Compare, Conditional,
               ListExpr, DictExpr, Call, FilterExpr, TestExpr, Chain>
      node;
  /// Releases the operands from a work list instead of recursing into them: however the tree
  /// was built, destroying it takes a bounded stack.
  ~Expr();
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

/// One filter of a `{% filter a | b(1) %}` block.
struct FilterCall {
  std::string name;
  const FunctionSpec* spec;
  CallArguments args;
  std::size_t offset;
};

struct TextStmt {
  std::string_view text;
};
struct PrintStmt {
  ExprPtr expr;
};
struct IfStmt {
  std::vector<std::pair<ExprPtr, Body>> branches;
  Body otherwise;
};
/// The statements with a body of their own have a Scope for it (the variables it assigns);
/// the resolver fills it. An `if` has none: its branches run in the enclosing scope.
struct ForStmt {
  std::vector<Target> targets;  // `for k, v in ...` unpacks; assigned in `scope`
  bool unpack = false;  // a tuple (`k, v`, `(x,)`): each item is unpacked, even into one name
  ExprPtr iterable;
  /// `for x in xs if cond`, may be null; evaluated in `scope` when only the targets are set,
  /// and sees nothing else of it (Jinja2 evaluates it in a scope of its own).
  ExprPtr condition;
  Body body;
  Body otherwise;
  bool uses_loop;  // the body reads `loop`, so it is built per iteration
  /// `for ... recursive`: `loop(items)` runs the loop again over `items`, one level deeper.
  bool recursive = false;
  Target loop;  // `loop`, when uses_loop
  Scope scope;
  Scope else_scope;  // `otherwise`'s: what the else assigns stays there, as in Jinja2
};
struct SetStmt {
  std::vector<Target> targets;  // empty for `set ns.attr = ...`
  ExprPtr value;
  ExprPtr namespace_ref;  // `ns` of `set ns.attr = ...` (a name), else null
  std::string attribute;  // `attr` of `set ns.attr = ...`
  bool unpack = false;    // a tuple of targets (`a, b`, `(a,)`): the value is unpacked
};
/// `{% set x | f %}body{% endset %}`, or `{% set ns.attr | f %}...` (namespace_ref set):
/// the body and the filters run in `scope`; the namespace is looked up where the statement
/// is, as in Jinja2, so a body that assigns `ns` does not change which namespace is set.
struct SetBlockStmt {
  std::vector<Target> targets;  // empty when namespace_ref is set
  bool unpack = false;  // a tuple (`{% set a, b %}`): the body's text is unpacked, as Python does
  std::vector<FilterCall> filters;
  Body body;
  Scope scope;
  ExprPtr namespace_ref;  // `ns` of `set ns.attr`, a name, else null
  std::string attribute;  // `attr` of `set ns.attr`
};
struct IncludeStmt {
  ExprPtr name;
  bool ignore_missing;
  bool with_context;
};
struct ExtendsStmt {
  ExprPtr name;
};
struct BlockStmt {
  std::string name;
  Body body;
  bool scoped;
  bool required;
  Scope scope;
  std::uint32_t height = 0;  ///< its Stmt's: what rendering it draws on the depth budget
};
/// A macro parameter is slot i of its macro's scope, i its position.
struct MacroParam {
  std::string name;
  ExprPtr default_value;
};
/// `target`: the macro's name, assigned where it is defined. As in Jinja2, a body that reads
/// `caller`, `kwargs` or `varargs` (and does not declare it) makes the macro take the call
/// block's caller, the extra keyword arguments or the extra positional arguments: each is one
/// more slot after the parameters, in that order (`caller` only when no parameter has the name).
struct MacroStmt {
  Target target;
  std::vector<MacroParam> params;
  Body body;
  Scope scope;
  std::uint32_t height = 0;      ///< its Stmt's: what a call draws on the depth budget
  bool accesses_caller = false;  ///< Jinja2's `caller` attribute
  bool catch_kwargs = false;
  bool catch_varargs = false;
  bool explicit_caller = false;  ///< a parameter is called `caller`
  bool anonymous = false;        ///< the caller of a `{% call %}` block (its `name` is none)
  /// The implicit parameters, assigned in the macro's scope when the flags above ask for them.
  Target caller_param, kwargs_param, varargs_param;
  /// Whether a call has to bind through Jinja2's general rules (see Renderer::invoke_macro).
  bool special() const noexcept {
    return accesses_caller || catch_kwargs || catch_varargs || explicit_caller;
  }
};
/// `{% call(params) callee(args) %}body{% endcall %}`: `caller` is an anonymous macro (the
/// body, with the parameters) that `call` receives as its `caller` keyword argument.
struct CallBlockStmt {
  MacroStmt caller;
  ExprPtr call;  ///< a Call expression
};
struct FilterBlockStmt {
  std::vector<FilterCall> filters;
  Body body;
  Scope scope;
};
struct ImportStmt {
  ExprPtr name;
  Target alias;
  bool with_context;
};
struct FromImportStmt {
  ExprPtr name;
  std::vector<std::pair<std::string, Target>> names;  // (name, alias)
  bool with_context;
};
struct WithStmt {
  std::vector<std::pair<Target, ExprPtr>> assignments;
  Body body;
  Scope scope;
};

/// `height`: as Expr's, counting the statements and expressions inside.
struct Stmt {
  std::size_t offset;
  std::uint32_t height;
  std::variant<TextStmt, PrintStmt, IfStmt, ForStmt, SetStmt, SetBlockStmt, IncludeStmt,
               ExtendsStmt, BlockStmt, MacroStmt, FilterBlockStmt, ImportStmt, FromImportStmt,
               WithStmt, CallBlockStmt>
      node;
};

/// A number no other tree of this process has (TemplateTree::id).
std::uint64_t new_tree_id() noexcept;

/// A parsed template: its name, normalised source (tokens and TextStmt point into it),
/// the statement list, its top-level scope, and the blocks it defines.
struct TemplateTree {
  /// Unique in the process: what outlives a tree (IncludeMemo) knows it by this, as its
  /// address may be reused by a later tree.
  std::uint64_t id = new_tree_id();
  std::string name;
  std::string origin;  // the file (or `<string>` name) errors point at
  std::string source;
  Body body;
  Scope scope;
  std::map<std::string, const BlockStmt*, std::less<>> blocks;
  /// The levels of statements and expressions of the deepest statement (0 when empty).
  std::uint32_t height = 0;
  bool has_extends = false;
  bool is_json = false;
};

}  // namespace zf::detail
