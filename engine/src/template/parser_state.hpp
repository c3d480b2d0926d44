// SPDX-License-Identifier: MIT
// The recursive-descent parser's state: the tokens, the position, the stack of open blocks (so
// that a wrong or missing end tag names the innermost one) and the nesting budget. The class is
// defined across files that each own one part of the grammar: parser.cpp (entry, token
// expectations, errors), parse_statements.cpp, parse_expressions.cpp and parse_literals.cpp
// (strings, numbers, list and dict displays).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/ast.hpp"
#include "template/ast_walk.hpp"
#include "template/token.hpp"
#include "zeroforge/environment.hpp"

namespace zf::detail {

/// A chain of postfix operations and filters longer than this is stored flat (ast.hpp, Chain);
/// shorter ones, nearly all a template has, nest as usual and render without copies.
inline constexpr std::size_t kFlatChainFrom = 8;

class Parser {
 public:
  Parser(TemplateTree& tree, std::vector<Token> tokens, const FunctionRegistry& functions,
         int max_nesting)
      : tree_(tree), tokens_(std::move(tokens)), functions_(functions), max_nesting_(max_nesting) {}

  /// Parses the whole token stream into the tree's body.
  void run();

 private:
  struct OpenBlock {
    std::string name;
    std::size_t offset;
  };

  // ----- tokens and errors (parser.cpp) -----

  const Token& current() const { return tokens_[pos_]; }
  const Token& peek(std::size_t ahead = 1) const {
    std::size_t i = pos_ + ahead;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  const Token& advance() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool at(TokenKind kind) const { return current().kind == kind; }
  bool at_name(std::string_view name) const {
    return at(TokenKind::Name) && current().text == name;
  }
  bool skip(TokenKind kind) {
    if (!at(kind)) return false;
    advance();
    return true;
  }
  bool skip_name(std::string_view name) {
    if (!at_name(name)) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;
  std::string describe_current() const;
  const Token& expect(TokenKind kind, const char* context = nullptr);
  std::string expect_name(const char* what);
  void expect_block_end(const char* statement);

  // The one limit on nesting (EnvironmentOptions::max_nesting), which statements and
  // expressions share: the parser's own recursion, and the height of the tree it builds (the
  // resolver, the analysis, the renderer and the destructor recurse over the tree), are both
  // held under it, so a template that parses cannot take any later pass off the stack.
  [[noreturn]] void fail_too_deep(std::size_t offset) const;
  // A node of `height` levels at `offset`: the statements around it count too.
  void check_height(std::uint32_t height, std::size_t offset) const;

  // One level of the parser's recursion for as long as it lives. Parentheses nest the parser
  // without adding to the tree, so its recursion has the bound too.
  class Nested {
   public:
    // `statement`: a body (the statements inside are one level deeper), else an expression.
    Nested(Parser& parser, std::size_t offset, bool statement)
        : depth_(statement ? parser.statement_depth_ : parser.expression_depth_) {
      ++depth_;
      if (parser.statement_depth_ + parser.expression_depth_ > parser.max_nesting_) {
        --depth_;
        parser.fail_too_deep(offset);
      }
    }
    ~Nested() { --depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    std::int64_t& depth_;
  };

  // Jinja2 3.x compiles a filter or test it does not know into a call that fails when it runs
  // if it stands inside an `if` statement or a conditional expression ("soft" frames in its
  // compiler), and refuses the template otherwise, where a new frame starts again: the body of
  // a `for` (and its `else` and `if` condition), a macro or call block (and their defaults),
  // a block, a `with`, a block `set` and a `{% filter %}`. The expressions a statement
  // evaluates in its own frame (a `for`'s iterable, a `with`'s values, a call block's call)
  // keep the frame they are in.
  class SoftFrame {
   public:
    // `soft`: an `if` or a conditional; else a new frame.
    SoftFrame(Parser& parser, bool soft) : parser_(parser), saved_(parser.soft_) {
      parser.soft_ = soft ? saved_ + 1 : 0;
    }
    ~SoftFrame() { parser_.soft_ = saved_; }
    SoftFrame(const SoftFrame&) = delete;
    SoftFrame& operator=(const SoftFrame&) = delete;

   private:
    Parser& parser_;
    int saved_;
  };
  // An unknown filter or test outside a soft frame: the template is refused once it has
  // parsed (Jinja2 parses it whole before it compiles, so a syntax error anywhere comes first).
  struct Unknown {
    std::size_t offset;
    std::string message;
  };

  // ----- statements (parse_statements.cpp) -----

  Body parse_body(std::initializer_list<std::string_view> ends);
  [[noreturn]] void fail_unclosed(std::initializer_list<std::string_view> ends) const;
  [[noreturn]] void fail_stray_end(const Token& name) const;
  template <typename T>
  StmtPtr make_stmt(std::size_t offset, T node);
  StmtPtr parse_statement();
  void open(const char* name, std::size_t offset) { open_.push_back({name, offset}); }
  bool inside(std::string_view name) const;
  void close() { open_.pop_back(); }
  void expect_end(const char* end_name);
  StmtPtr parse_if(std::size_t offset);
  std::vector<Target> parse_assign_targets(const char* statement, bool& tuple);
  StmtPtr parse_for(std::size_t offset);
  StmtPtr parse_set(std::size_t offset);
  StmtPtr parse_set_block(std::size_t offset, SetBlockStmt node);
  bool parse_context_modifier(bool default_value);
  StmtPtr parse_include(std::size_t offset);
  StmtPtr parse_extends(std::size_t offset);
  StmtPtr parse_block(std::size_t offset);
  void parse_parameters(MacroStmt& node);
  void finish_macro(MacroStmt& node, std::size_t offset);
  StmtPtr parse_macro(std::size_t offset);
  StmtPtr parse_call_block(std::size_t offset);
  StmtPtr parse_filter_block(std::size_t offset);
  StmtPtr parse_import(std::size_t offset);
  StmtPtr parse_from_import(std::size_t offset);
  StmtPtr parse_with(std::size_t offset);

  // ----- expressions (parse_expressions.cpp) -----

  // A node over its operands, refused when it would nest the tree past the limit.
  template <typename T>
  ExprPtr make(std::size_t offset, T node) {
    std::uint32_t below = 0;
    for_each_operand(node, [&](const Expr& operand) { below = std::max(below, operand.height); });
    check_height(below + 1, offset);
    return ExprPtr(new Expr{offset, below + 1, std::move(node)});
  }
  ExprPtr parse_tuple_or_expression(bool allow_condexpr = true);
  ExprPtr parse_expression();
  template <typename Operand, typename OpHere>
  ExprPtr parse_chain(Operand&& operand, OpHere&& op_here);
  ExprPtr parse_or();
  ExprPtr parse_and();
  ExprPtr parse_not();
  ExprPtr parse_compare();
  ExprPtr parse_math1();
  ExprPtr parse_concat();
  ExprPtr parse_math2();
  ExprPtr parse_pow();
  ExprPtr parse_unary(bool with_filter);
  ExprPtr chain(ExprPtr subject, std::vector<ExprPtr> links);
  ExprPtr attach(ExprPtr subject, ExprPtr link);
  ExprPtr parse_postfixed(ExprPtr node);
  ExprPtr parse_primary();
  void parse_postfix(const Expr& subject, std::vector<ExprPtr>& links);
  ExprPtr parse_subscript();
  /// `(args)`; a repeated keyword is an error unless `last_keyword_wins` (a filter's).
  CallArguments parse_call_arguments(bool last_keyword_wins = false);
  /// The filter or test `name`, or nullptr for an unknown one (recorded in unknown_ outside a
  /// soft frame; inside one the renderer fails when it reaches it).
  const FunctionSpec* resolve(FunctionKind kind, const std::string& name, std::size_t offset);
  FilterCall parse_filter_call();
  void parse_filters(std::vector<ExprPtr>& links);
  bool starts_test_argument() const;

  // ----- literals (parse_literals.cpp) -----

  // Lists, tuples and dicts written with literals only are folded into one literal value.
  ExprPtr make(std::size_t offset, ListExpr node);
  ExprPtr make(std::size_t offset, DictExpr node);
  ExprPtr parse_strings();
  ExprPtr parse_list(std::size_t offset);
  ExprPtr parse_dict(std::size_t offset);
  std::string decode_string(const Token& token);
  Value parse_number(const Token& token);

  // ----- the state -----

  TemplateTree& tree_;
  std::vector<Token> tokens_;
  const FunctionRegistry& functions_;
  std::size_t pos_ = 0;
  std::vector<OpenBlock> open_;
  std::size_t loop_refs_ = 0;
  int max_nesting_;
  std::int64_t statement_depth_ = 0;  // the Nested levels open now, per kind
  std::int64_t expression_depth_ = 0;
  int soft_ = 0;                  // the soft frames open now, since the last new frame
  std::vector<Unknown> unknown_;  // unknown filters and tests outside a soft frame
};

}  // namespace zf::detail
