// SPDX-License-Identifier: MIT
// Recursive-descent parser for the Jinja2 subset. Statement parsing keeps a stack of open
// blocks so that a wrong or missing end tag names the innermost open block.
#include "template/parser.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <type_traits>

#include "source_position.hpp"
#include "template/ast_walk.hpp"
#include "template/builtin_filters.hpp"
#include "template/methods.hpp"
#include "template/resolver.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A chain of postfix operations and filters longer than this is stored flat (ast.hpp, Chain);
// shorter ones, nearly all a template has, nest as usual and render without copies.
constexpr std::size_t kFlatChainFrom = 8;

class Parser {
 public:
  Parser(TemplateTree& tree, std::vector<Token> tokens, const FunctionRegistry& functions,
         int max_nesting)
      : tree_(tree), tokens_(std::move(tokens)), functions_(functions), max_nesting_(max_nesting) {}

  void run() {
    tree_.body = parse_body({});
    if (current().kind != TokenKind::End) fail_here("unexpected " + describe_current());
    for (const auto& stmt : tree_.body) tree_.height = std::max(tree_.height, stmt->height);
  }

 private:
  struct OpenBlock {
    std::string name;
    std::size_t offset;
  };

  // ----- token helpers -----
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

  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const {
    throw error_at(ErrorKind::Syntax, message, tree_.origin, tree_.source, offset);
  }
  [[noreturn]] void fail_here(const std::string& message) const {
    fail_at(current().offset, message);
  }

  std::string describe_current() const {
    const Token& t = current();
    switch (t.kind) {
      case TokenKind::Name:
      case TokenKind::Integer:
      case TokenKind::Float:
      case TokenKind::String:
        return std::string(describe(t.kind)) + " '" + std::string(t.text) + "'";
      default:
        return describe(t.kind);
    }
  }

  const Token& expect(TokenKind kind, const char* context = nullptr) {
    if (!at(kind)) {
      std::string message = std::string("expected ") + describe(kind);
      if (context) message += std::string(" ") + context;
      fail_here(message + ", found " + describe_current());
    }
    return advance();
  }

  std::string expect_name(const char* what) {
    if (!at(TokenKind::Name))
      fail_here(std::string("expected ") + what + ", found " + describe_current());
    return std::string(advance().text);
  }

  void expect_block_end(const char* statement) {
    if (!at(TokenKind::BlockEnd)) {
      fail_here(std::string("expected end of statement block '%}' after '") + statement +
                "', found " + describe_current());
    }
    advance();
  }

  // The one limit on nesting (EnvironmentOptions::max_nesting), which statements and
  // expressions share: the parser's own recursion, and the height of the tree it builds (the
  // resolver, the analysis, the renderer and the destructor recurse over the tree), are both
  // held under it, so a template that parses cannot take any later pass off the stack.
  [[noreturn]] void fail_too_deep(std::size_t offset) const {
    fail_at(offset, "statements and expressions nest deeper than " + std::to_string(max_nesting_) +
                        " levels (EnvironmentOptions::max_nesting raises the limit)");
  }
  // A node of `height` levels at `offset`: the statements around it count too.
  void check_height(std::uint32_t height, std::size_t offset) const {
    if (statement_depth_ + static_cast<std::int64_t>(height) > max_nesting_) fail_too_deep(offset);
  }

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

  // ----- statements -----

  // Parses statements until a block tag whose name is in `ends` (left current, unconsumed,
  // at that name) or the end of input.
  Body parse_body(std::initializer_list<std::string_view> ends) {
    Nested nested(*this, current().offset, /*statement=*/true);
    Body body;
    while (true) {
      const Token& t = current();
      switch (t.kind) {
        case TokenKind::End:
          if (ends.size() != 0) fail_unclosed(ends);
          return body;
        case TokenKind::Data:
          body.push_back(make_stmt(t.offset, TextStmt{t.text}));
          advance();
          break;
        case TokenKind::VariableBegin: {
          std::size_t offset = advance().offset;
          auto expr = parse_tuple_or_expression();
          if (!at(TokenKind::VariableEnd)) {
            fail_here("expected end of print statement '}}', found " + describe_current());
          }
          advance();
          body.push_back(make_stmt(offset, PrintStmt{std::move(expr)}));
          break;
        }
        case TokenKind::BlockBegin: {
          const Token& name = peek();
          if (name.kind != TokenKind::Name) {
            advance();
            fail_here("expected a statement name after '{%', found " + describe_current());
          }
          for (auto end : ends) {
            if (name.text == end) {
              advance();  // {%
              return body;
            }
          }
          if (name.text.substr(0, 3) == "end" || name.text == "else" || name.text == "elif") {
            fail_stray_end(name);
          }
          advance();  // {%
          body.push_back(parse_statement());
          break;
        }
        default:
          fail_here("unexpected " + describe_current());
      }
    }
  }

  [[noreturn]] void fail_unclosed(std::initializer_list<std::string_view> ends) const {
    std::string expected;
    std::size_t i = 0;
    for (auto end : ends) {
      if (i++) expected += i == ends.size() ? " or " : ", ";
      expected += "'" + std::string(end) + "'";
    }
    std::string message = "unexpected end of template: expected " + expected;
    if (!open_.empty()) {
      auto [line, column] = line_column(tree_.source, open_.back().offset);
      message +=
          " to close the '" + open_.back().name + "' block opened at line " + std::to_string(line);
      (void)column;
    }
    fail_here(message);
  }

  [[noreturn]] void fail_stray_end(const Token& name) const {
    std::string message = "unexpected '" + std::string(name.text) + "'";
    if (open_.empty()) {
      message += ": no block is open";
    } else {
      auto [line, column] = line_column(tree_.source, open_.back().offset);
      (void)column;
      message += ": the innermost open block is '" + open_.back().name + "' (line " +
                 std::to_string(line) + "), which needs 'end" + open_.back().name + "'";
    }
    fail_at(name.offset, message);
  }

  template <typename T>
  StmtPtr make_stmt(std::size_t offset, T node) {
    // Within the limit already: every expression inside was checked with the statements
    // around it counted, and the bodies by Nested.
    const std::uint32_t height = 1 + height_inside(node);
    if constexpr (std::is_same_v<T, BlockStmt> || std::is_same_v<T, MacroStmt>)
      node.height = height;
    return StmtPtr(new Stmt{offset, height, std::move(node)});
  }

  // The height of the tallest statement or expression directly inside a statement.
  static std::uint32_t height_of(const ExprPtr& expr) { return expr ? expr->height : 0; }
  static std::uint32_t height_of(const Body& body) {
    std::uint32_t height = 0;
    for (const auto& stmt : body) height = std::max(height, stmt->height);
    return height;
  }
  static std::uint32_t height_of(const CallArguments& args) {
    std::uint32_t height = 0;
    for_each_argument(args, [&](const Expr& arg) { height = std::max(height, arg.height); });
    return height;
  }
  static std::uint32_t height_of(const std::vector<FilterCall>& filters) {
    std::uint32_t height = 0;
    for (const auto& filter : filters) height = std::max(height, height_of(filter.args));
    return height;
  }
  static std::uint32_t height_inside(const TextStmt&) { return 0; }
  static std::uint32_t height_inside(const PrintStmt& node) { return height_of(node.expr); }
  static std::uint32_t height_inside(const IfStmt& node) {
    std::uint32_t height = height_of(node.otherwise);
    for (const auto& [test, body] : node.branches)
      height = std::max({height, height_of(test), height_of(body)});
    return height;
  }
  static std::uint32_t height_inside(const ForStmt& node) {
    return std::max({height_of(node.iterable), height_of(node.condition), height_of(node.body),
                     height_of(node.otherwise)});
  }
  static std::uint32_t height_inside(const SetStmt& node) { return height_of(node.value); }
  static std::uint32_t height_inside(const SetBlockStmt& node) {
    return std::max(height_of(node.filters), height_of(node.body));
  }
  static std::uint32_t height_inside(const IncludeStmt& node) { return height_of(node.name); }
  static std::uint32_t height_inside(const ExtendsStmt& node) { return height_of(node.name); }
  static std::uint32_t height_inside(const BlockStmt& node) { return height_of(node.body); }
  static std::uint32_t height_inside(const MacroStmt& node) {
    std::uint32_t height = height_of(node.body);
    for (const auto& param : node.params) height = std::max(height, height_of(param.default_value));
    return height;
  }
  static std::uint32_t height_inside(const FilterBlockStmt& node) {
    return std::max(height_of(node.filters), height_of(node.body));
  }
  static std::uint32_t height_inside(const ImportStmt& node) { return height_of(node.name); }
  static std::uint32_t height_inside(const FromImportStmt& node) { return height_of(node.name); }
  static std::uint32_t height_inside(const WithStmt& node) {
    std::uint32_t height = height_of(node.body);
    for (const auto& [target, value] : node.assignments)
      height = std::max(height, height_of(value));
    return height;
  }

  // After `{%`: the statement name is current.
  StmtPtr parse_statement() {
    const Token& keyword = current();
    std::string_view name = keyword.text;
    std::size_t offset = keyword.offset;
    advance();
    if (name == "if") return parse_if(offset);
    if (name == "for") return parse_for(offset);
    if (name == "set") return parse_set(offset);
    if (name == "include") return parse_include(offset);
    if (name == "extends") return parse_extends(offset);
    if (name == "block") return parse_block(offset);
    if (name == "macro") return parse_macro(offset);
    if (name == "filter") return parse_filter_block(offset);
    if (name == "import") return parse_import(offset);
    if (name == "from") return parse_from_import(offset);
    if (name == "with") return parse_with(offset);
    if (name == "call")
      fail_at(offset, "'call' blocks are not supported (call the macro with '{{ name(...) }}')");
    fail_at(offset, "unknown statement '" + std::string(name) + "'");
  }

  void open(const char* name, std::size_t offset) { open_.push_back({name, offset}); }
  // Whether a `name` statement encloses the one being parsed.
  bool inside(std::string_view name) const {
    for (const auto& block : open_) {
      if (block.name == name) return true;
    }
    return false;
  }
  void close() { open_.pop_back(); }

  // Consumes `endNAME %}` (the `{%` was consumed by parse_body).
  void expect_end(const char* end_name) {
    advance();  // the end name
    expect_block_end(end_name);
  }

  StmtPtr parse_if(std::size_t offset) {
    IfStmt node;
    open("if", offset);
    auto test = parse_expression();
    expect_block_end("if");
    while (true) {
      Body body = parse_body({"elif", "else", "endif"});
      node.branches.emplace_back(std::move(test), std::move(body));
      if (at_name("elif")) {
        advance();
        test = parse_expression();
        expect_block_end("elif");
        continue;
      }
      if (at_name("else")) {
        advance();
        expect_block_end("else");
        node.otherwise = parse_body({"endif"});
      }
      break;
    }
    expect_end("endif");
    close();
    return make_stmt(offset, std::move(node));
  }

  // A name a statement assigns, with its hash.
  static Target make_target(std::string name) {
    std::uint64_t hash = ValueDict::hash(name);
    return Target{std::move(name), hash, {}};
  }

  std::vector<Target> parse_assign_targets(const char* statement) {
    std::vector<Target> targets;
    bool parens = skip(TokenKind::LeftParen);
    do {
      if (!at(TokenKind::Name)) {
        fail_here(std::string("expected a name to assign to in '") + statement + "', found " +
                  describe_current());
      }
      const std::size_t target_offset = current().offset;
      std::string target(advance().text);
      if (target == "true" || target == "false" || target == "none" || target == "True" ||
          target == "False" || target == "None") {
        fail_at(target_offset, "cannot assign to '" + target + "'");
      }
      // Jinja2 refuses this anywhere inside a 'for' (its body, its else, nested statements).
      if (target == "loop" && inside("for")) {
        fail_at(target_offset, "cannot assign to the special loop variable 'loop' inside a 'for'");
      }
      targets.push_back(make_target(std::move(target)));
    } while (skip(TokenKind::Comma) && at(TokenKind::Name));
    if (parens) expect(TokenKind::RightParen);
    return targets;
  }

  StmtPtr parse_for(std::size_t offset) {
    ForStmt node;
    open("for", offset);
    node.targets = parse_assign_targets("for");
    if (!skip_name("in")) fail_here("expected 'in' in 'for', found " + describe_current());
    node.iterable = parse_tuple_or_expression(/*allow_condexpr=*/false);
    if (skip_name("if")) node.condition = parse_expression();
    if (at_name("recursive")) fail_here("recursive loops are not supported");
    expect_block_end("for");
    std::size_t loop_refs_before = loop_refs_;
    node.body = parse_body({"else", "endfor"});
    node.uses_loop = loop_refs_ != loop_refs_before;
    node.loop = make_target("loop");
    if (at_name("else")) {
      advance();
      expect_block_end("else");
      node.otherwise = parse_body({"endfor"});
    }
    expect_end("endfor");
    close();
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_set(std::size_t offset) {
    std::size_t target_offset = current().offset;
    auto targets = parse_assign_targets("set");
    if (at(TokenKind::Dot)) fail_here("assigning to attributes ('set a.b = ...') is not supported");
    if (skip(TokenKind::Assign)) {
      auto value = parse_tuple_or_expression();
      expect_block_end("set");
      return make_stmt(offset, SetStmt{std::move(targets), std::move(value)});
    }
    if (targets.size() != 1) fail_at(target_offset, "a block 'set' assigns exactly one name");
    SetBlockStmt node;
    node.target = std::move(targets.front());
    while (skip(TokenKind::Pipe)) node.filters.push_back(parse_filter_call());
    expect_block_end("set");
    open("set", offset);
    node.body = parse_body({"endset"});
    expect_end("endset");
    close();
    return make_stmt(offset, std::move(node));
  }

  bool parse_context_modifier(bool default_value) {
    if ((at_name("with") || at_name("without")) && peek().kind == TokenKind::Name &&
        peek().text == "context") {
      bool with = current().text == "with";
      advance();
      advance();
      return with;
    }
    return default_value;
  }

  StmtPtr parse_include(std::size_t offset) {
    IncludeStmt node;
    node.name = parse_expression();
    node.ignore_missing = false;
    if (at_name("ignore") && peek().kind == TokenKind::Name && peek().text == "missing") {
      advance();
      advance();
      node.ignore_missing = true;
    }
    node.with_context = parse_context_modifier(true);
    expect_block_end("include");
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_extends(std::size_t offset) {
    if (!open_.empty())
      fail_at(offset, "'extends' must be at the top level of a template, not inside '" +
                          open_.back().name + "'");
    if (tree_.has_extends)
      fail_at(offset, "a template can extend only one parent ('extends' appears twice)");
    tree_.has_extends = true;
    ExtendsStmt node{parse_expression()};
    expect_block_end("extends");
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_block(std::size_t offset) {
    std::string name = expect_name("a block name");
    bool scoped = skip_name("scoped");
    bool required = skip_name("required");
    expect_block_end("block");
    if (tree_.blocks.count(name)) fail_at(offset, "block '" + name + "' is defined twice");
    open("block", offset);
    Body body = parse_body({"endblock"});
    advance();  // endblock
    if (at(TokenKind::Name)) {
      if (current().text != name) {
        fail_here("'endblock " + std::string(current().text) + "' does not match 'block " + name +
                  "'");
      }
      advance();
    }
    expect_block_end("endblock");
    close();
    auto stmt = make_stmt(offset, BlockStmt{name, std::move(body), scoped, required, {}, 0});
    tree_.blocks[name] = &std::get<BlockStmt>(stmt->node);
    return stmt;
  }

  StmtPtr parse_macro(std::size_t offset) {
    MacroStmt node;
    node.target = make_target(expect_name("a macro name"));
    expect(TokenKind::LeftParen, "after the macro name");
    bool seen_default = false;
    while (!at(TokenKind::RightParen)) {
      if (!node.params.empty()) expect(TokenKind::Comma, "between macro parameters");
      if (at(TokenKind::RightParen)) break;
      std::size_t param_offset = current().offset;
      MacroParam param{expect_name("a parameter name"), nullptr};
      for (const auto& earlier : node.params) {
        if (earlier.name == param.name)
          fail_at(param_offset,
                  "duplicate parameter '" + param.name + "' in macro '" + node.target.name + "'");
      }
      if (skip(TokenKind::Assign)) {
        param.default_value = parse_expression();
        seen_default = true;
      } else if (seen_default) {
        fail_at(param_offset,
                "parameter '" + param.name + "' without a default follows one with a default");
      }
      node.params.push_back(std::move(param));
    }
    advance();  // )
    expect_block_end("macro");
    open("macro", offset);
    node.body = parse_body({"endmacro"});
    advance();  // endmacro
    if (at(TokenKind::Name) && current().text == node.target.name) advance();
    expect_block_end("endmacro");
    close();
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_filter_block(std::size_t offset) {
    FilterBlockStmt node;
    node.filters.push_back(parse_filter_call());
    while (skip(TokenKind::Pipe)) node.filters.push_back(parse_filter_call());
    expect_block_end("filter");
    open("filter", offset);
    node.body = parse_body({"endfilter"});
    expect_end("endfilter");
    close();
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_import(std::size_t offset) {
    ImportStmt node;
    node.name = parse_expression();
    if (!skip_name("as")) fail_here("expected 'as' in 'import', found " + describe_current());
    node.alias = make_target(expect_name("a name after 'as'"));
    node.with_context = parse_context_modifier(false);
    expect_block_end("import");
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_from_import(std::size_t offset) {
    FromImportStmt node;
    node.name = parse_expression();
    if (!skip_name("import")) fail_here("expected 'import' in 'from', found " + describe_current());
    node.with_context = false;
    while (true) {
      if ((at_name("with") || at_name("without")) && peek().kind == TokenKind::Name &&
          peek().text == "context") {
        node.with_context = parse_context_modifier(false);
        break;
      }
      std::string name = expect_name("a name to import");
      std::string alias = name;
      if (skip_name("as")) alias = expect_name("a name after 'as'");
      node.names.emplace_back(std::move(name), make_target(std::move(alias)));
      if (!skip(TokenKind::Comma)) {
        node.with_context = parse_context_modifier(false);
        break;
      }
    }
    expect_block_end("from");
    return make_stmt(offset, std::move(node));
  }

  StmtPtr parse_with(std::size_t offset) {
    WithStmt node;
    while (!at(TokenKind::BlockEnd)) {
      if (!node.assignments.empty()) expect(TokenKind::Comma, "between 'with' assignments");
      std::string name = expect_name("a name to assign to");
      expect(TokenKind::Assign, "in 'with'");
      node.assignments.emplace_back(make_target(std::move(name)), parse_expression());
    }
    advance();
    open("with", offset);
    node.body = parse_body({"endwith"});
    expect_end("endwith");
    close();
    return make_stmt(offset, std::move(node));
  }

  // ----- expressions -----

  // A node over its operands, refused when it would nest the tree past the limit.
  template <typename T>
  ExprPtr make(std::size_t offset, T node) {
    std::uint32_t below = 0;
    for_each_operand(node, [&](const Expr& operand) { below = std::max(below, operand.height); });
    check_height(below + 1, offset);
    return ExprPtr(new Expr{offset, below + 1, std::move(node)});
  }
  // Lists, tuples and dicts written with literals only are folded into one literal value
  // (values are immutable, so every render can share it), as Jinja2's compiler does.
  ExprPtr make(std::size_t offset, ListExpr node) {
    ValueList items;
    for (const auto& item : node.items) {
      auto* literal = std::get_if<Literal>(&item->node);
      if (!literal) return make<ListExpr>(offset, std::move(node));
      items.push_back(literal->value);
    }
    Value folded = node.tuple ? Value::tuple(std::move(items)) : Value(std::move(items));
    return make(offset, Literal{std::move(folded)});
  }
  ExprPtr make(std::size_t offset, DictExpr node) {
    ValueDict dict;
    for (const auto& [key, value] : node.items) {
      auto* key_literal = std::get_if<Literal>(&key->node);
      auto* value_literal = std::get_if<Literal>(&value->node);
      if (!key_literal || !value_literal || !key_literal->value.is_string()) {
        return make<DictExpr>(offset, std::move(node));
      }
      dict.set(key_literal->value.as_string(), value_literal->value);
    }
    return make(offset, Literal{Value(std::move(dict))});
  }

  // `{{ a, b }}` and `for x in a, b` build a tuple (a list here).
  ExprPtr parse_tuple_or_expression(bool allow_condexpr = true) {
    std::size_t offset = current().offset;
    auto first = allow_condexpr ? parse_expression() : parse_or();
    if (!at(TokenKind::Comma)) return first;
    ListExpr list;
    list.tuple = true;
    list.items.push_back(std::move(first));
    while (skip(TokenKind::Comma)) {
      if (at(TokenKind::VariableEnd) || at(TokenKind::BlockEnd) || at(TokenKind::RightParen)) break;
      list.items.push_back(allow_condexpr ? parse_expression() : parse_or());
    }
    return make(offset, std::move(list));
  }

  ExprPtr parse_expression() {
    Nested nested(*this, current().offset, /*statement=*/false);
    auto expr = parse_or();
    while (at_name("if")) {
      std::size_t offset = advance().offset;
      auto test = parse_or();
      ExprPtr otherwise;
      if (skip_name("else")) otherwise = parse_expression();
      expr = make(offset, Conditional{std::move(test), std::move(expr), std::move(otherwise)});
    }
    return expr;
  }

  // One precedence level of left-associative operators as one flat node: `operand()` parses
  // an operand, `op_here()` gives the operator at the current token, if it is one of the level.
  template <typename Operand, typename OpHere>
  ExprPtr parse_chain(Operand&& operand, OpHere&& op_here) {
    ExprPtr first = operand();
    std::optional<BinaryOp> op = op_here();
    if (!op) return first;
    Binary chain{std::move(first), {}};
    for (; op; op = op_here()) {
      const std::size_t offset = advance().offset;
      ExprPtr next = operand();
      chain.rest.push_back(BinaryOperand{*op, offset, std::move(next)});
    }
    // Where the outermost operator of the nested form was: errors about the whole expression
    // point there.
    const std::size_t offset = chain.rest.back().offset;
    return make(offset, std::move(chain));
  }

  ExprPtr parse_or() {
    return parse_chain([&] { return parse_and(); },
                       [&]() -> std::optional<BinaryOp> {
                         if (at_name("or")) return BinaryOp::Or;
                         return std::nullopt;
                       });
  }

  ExprPtr parse_and() {
    return parse_chain([&] { return parse_not(); },
                       [&]() -> std::optional<BinaryOp> {
                         if (at_name("and")) return BinaryOp::And;
                         return std::nullopt;
                       });
  }

  ExprPtr parse_not() {
    if (at_name("not")) {
      Nested nested(*this, current().offset, /*statement=*/false);
      std::size_t offset = advance().offset;
      return make(offset, Unary{UnaryOp::Not, parse_not()});
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    std::size_t offset = current().offset;
    auto first = parse_math1();
    Compare compare{std::move(first), {}};
    while (true) {
      CompareOp op;
      switch (current().kind) {
        case TokenKind::Equal:
          op = CompareOp::Equal;
          break;
        case TokenKind::NotEqual:
          op = CompareOp::NotEqual;
          break;
        case TokenKind::Less:
          op = CompareOp::Less;
          break;
        case TokenKind::LessEqual:
          op = CompareOp::LessEqual;
          break;
        case TokenKind::Greater:
          op = CompareOp::Greater;
          break;
        case TokenKind::GreaterEqual:
          op = CompareOp::GreaterEqual;
          break;
        default:
          if (at_name("in")) {
            op = CompareOp::In;
          } else if (at_name("not") && peek().kind == TokenKind::Name && peek().text == "in") {
            advance();
            op = CompareOp::NotIn;
          } else {
            if (compare.rest.empty()) return std::move(compare.first);
            return make(offset, std::move(compare));
          }
      }
      advance();
      compare.rest.emplace_back(op, parse_math1());
    }
  }

  ExprPtr parse_math1() {
    return parse_chain([&] { return parse_concat(); },
                       [&]() -> std::optional<BinaryOp> {
                         if (at(TokenKind::Plus)) return BinaryOp::Add;
                         if (at(TokenKind::Minus)) return BinaryOp::Subtract;
                         return std::nullopt;
                       });
  }

  ExprPtr parse_concat() {
    return parse_chain([&] { return parse_math2(); },
                       [&]() -> std::optional<BinaryOp> {
                         if (at(TokenKind::Tilde)) return BinaryOp::Concat;
                         return std::nullopt;
                       });
  }

  ExprPtr parse_math2() {
    return parse_chain([&] { return parse_pow(); },
                       [&]() -> std::optional<BinaryOp> {
                         switch (current().kind) {
                           case TokenKind::Star:
                             return BinaryOp::Multiply;
                           case TokenKind::Slash:
                             return BinaryOp::Divide;
                           case TokenKind::SlashSlash:
                             return BinaryOp::FloorDivide;
                           case TokenKind::Percent:
                             return BinaryOp::Modulo;
                           default:
                             return std::nullopt;
                         }
                       });
  }

  // Jinja2's `**` is left-associative and binds tighter than unary minus on its right only.
  ExprPtr parse_pow() {
    return parse_chain([&] { return parse_unary(true); },
                       [&]() -> std::optional<BinaryOp> {
                         if (at(TokenKind::StarStar)) return BinaryOp::Power;
                         return std::nullopt;
                       });
  }

  ExprPtr parse_unary(bool with_filter) {
    std::size_t offset = current().offset;
    ExprPtr node;
    if (skip(TokenKind::Minus)) {
      Nested nested(*this, offset, /*statement=*/false);
      node = make(offset, Unary{UnaryOp::Negate, parse_unary(false)});
    } else if (skip(TokenKind::Plus)) {
      Nested nested(*this, offset, /*statement=*/false);
      node = make(offset, Unary{UnaryOp::Plus, parse_unary(false)});
    } else {
      node = parse_primary();
    }
    std::vector<ExprPtr> links;
    parse_postfix(*node, links);
    if (with_filter) parse_filters(links);
    return chain(std::move(node), std::move(links));
  }

  // `subject` with `links` (postfix operations and filters, each without its subject) applied
  // in order: nested nodes, or past kFlatChainFrom links a Chain. Its first link is always
  // nested, so that `f(x)` still calls the global `f` and `super()` the parent block.
  ExprPtr chain(ExprPtr subject, std::vector<ExprPtr> links) {
    const std::size_t nested = links.size() <= kFlatChainFrom ? links.size() : 1;
    for (std::size_t i = 0; i < nested; ++i)
      subject = attach(std::move(subject), std::move(links[i]));
    if (nested == links.size()) return subject;
    links.erase(links.begin(), links.begin() + static_cast<std::ptrdiff_t>(nested));
    const std::size_t offset = links.back()->offset;
    return make(offset, Chain{std::move(subject), std::move(links)});
  }

  // `link` applied to `subject`: the link's empty object (callee, subject) filled.
  ExprPtr attach(ExprPtr subject, ExprPtr link) {
    const std::uint32_t height = std::max(link->height, subject->height + 1);
    check_height(height, link->offset);
    link->height = height;
    link_subject(*link) = std::move(subject);
    return link;
  }
  static ExprPtr& link_subject(Expr& link) {
    if (auto* node = std::get_if<GetAttr>(&link.node)) return node->object;
    if (auto* node = std::get_if<GetItem>(&link.node)) return node->object;
    if (auto* node = std::get_if<SliceExpr>(&link.node)) return node->object;
    if (auto* node = std::get_if<Call>(&link.node)) return node->callee;
    if (auto* node = std::get_if<FilterExpr>(&link.node)) return node->subject;
    return std::get<TestExpr>(link.node).subject;
  }

  // `node` with the postfix operations that follow it.
  ExprPtr parse_postfixed(ExprPtr node) {
    std::vector<ExprPtr> links;
    parse_postfix(*node, links);
    return chain(std::move(node), std::move(links));
  }

  std::string decode_string(const Token& token) {
    std::string_view raw = token.text.substr(1, token.text.size() - 2);
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (c != '\\' || i + 1 >= raw.size()) {
        out += c;
        continue;
      }
      char e = raw[++i];
      auto hex = [&](std::size_t count) -> std::uint32_t {
        std::uint32_t value = 0;
        for (std::size_t k = 1; k <= count; ++k) {
          if (i + k >= raw.size())
            fail_at(token.offset, "truncated \\x, \\u or \\U escape in string");
          char h = raw[i + k];
          value <<= 4;
          if (h >= '0' && h <= '9')
            value |= static_cast<std::uint32_t>(h - '0');
          else if (h >= 'a' && h <= 'f')
            value |= static_cast<std::uint32_t>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F')
            value |= static_cast<std::uint32_t>(h - 'A' + 10);
          else
            fail_at(token.offset, "invalid escape in string");
        }
        i += count;
        return value;
      };
      if (char plain = shared_escape_value(e)) {
        out += plain;
        continue;
      }
      switch (e) {
        case '\n':
          break;  // line continuation
        case '\'':
          out += '\'';
          break;
        case 'a':
          out += '\a';
          break;
        case 'v':
          out += '\v';
          break;
        case 'x':
          append_utf8(out, hex(2));
          break;
        case 'u':
        case 'U': {
          const std::uint32_t value = hex(e == 'u' ? 4 : 8);
          // Python accepts a lone surrogate in a str, but no UTF-8 output can hold one; past
          // U+10FFFF Python refuses the literal too.
          if (value > 0x10FFFF) fail_at(token.offset, "escape past U+10FFFF in string");
          if (value >= 0xD800 && value <= 0xDFFF) {
            fail_at(token.offset,
                    "a lone surrogate escape in a string is not a character "
                    "(UTF-8 output cannot hold it)");
          }
          append_utf8(out, value);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            std::uint32_t value = static_cast<std::uint32_t>(e - '0');
            for (int k = 0; k < 2 && i + 1 < raw.size() && raw[i + 1] >= '0' && raw[i + 1] <= '7';
                 ++k) {
              value = value * 8 + static_cast<std::uint32_t>(raw[++i] - '0');
            }
            append_utf8(out, value);
          } else {
            out += '\\';  // Python keeps unknown escapes as written
            out += e;
          }
      }
    }
    return out;
  }

  Value parse_number(const Token& token) {
    std::string digits;
    for (char c : token.text) {
      if (c != '_') digits += c;
    }
    if (token.kind == TokenKind::Float) {
      double d = 0;
      auto r = std::from_chars(digits.data(), digits.data() + digits.size(), d);
      if (r.ec != std::errc() && !(r.ec == std::errc::result_out_of_range))
        fail_at(token.offset, "invalid number");
      if (r.ec == std::errc::result_out_of_range) d = std::strtod(digits.c_str(), nullptr);
      return Value(d);
    }
    int base = 10;
    std::string_view body = digits;
    if (body.size() > 2 && body[0] == '0') {
      char p = static_cast<char>(body[1] | 0x20);
      if (p == 'x') base = 16;
      if (p == 'o') base = 8;
      if (p == 'b') base = 2;
      if (base != 10) body.remove_prefix(2);
    }
    std::int64_t value = 0;
    auto r = std::from_chars(body.data(), body.data() + body.size(), value, base);
    if (r.ec != std::errc() || r.ptr != body.data() + body.size()) {
      fail_at(token.offset,
              "integer literal '" + std::string(token.text) + "' is out of range (64-bit)");
    }
    return Value(value);
  }

  ExprPtr parse_primary() {
    const Token& t = current();
    std::size_t offset = t.offset;
    switch (t.kind) {
      case TokenKind::Name: {
        std::string_view name = t.text;
        advance();
        if (name == "true" || name == "True") return make(offset, Literal{Value(true)});
        if (name == "false" || name == "False") return make(offset, Literal{Value(false)});
        if (name == "none" || name == "None") return make(offset, Literal{Value(nullptr)});
        if (name == "loop") ++loop_refs_;
        return make(offset, NameRef{std::string(name), ValueDict::hash(name), {}, {}, true});
      }
      case TokenKind::String: {
        std::string text;
        while (at(TokenKind::String)) text += decode_string(advance());  // 'a' 'b' concatenates
        return make(offset, Literal{Value(std::move(text))});
      }
      case TokenKind::Integer:
      case TokenKind::Float: {
        Value value = parse_number(t);
        advance();
        return make(offset, Literal{std::move(value)});
      }
      case TokenKind::LeftParen: {
        advance();
        if (skip(TokenKind::RightParen)) return make(offset, ListExpr{{}, true});
        auto expr = parse_expression();
        if (at(TokenKind::Comma)) {
          ListExpr list;
          list.tuple = true;
          list.items.push_back(std::move(expr));
          while (skip(TokenKind::Comma) && !at(TokenKind::RightParen))
            list.items.push_back(parse_expression());
          expr = make(offset, std::move(list));
        }
        expect(TokenKind::RightParen, "to close '('");
        return expr;
      }
      case TokenKind::LeftBracket: {
        advance();
        ListExpr list;
        while (!at(TokenKind::RightBracket)) {
          if (!list.items.empty()) {
            expect(TokenKind::Comma, "between list items");
            if (at(TokenKind::RightBracket)) break;
          }
          list.items.push_back(parse_expression());
        }
        advance();
        return make(offset, std::move(list));
      }
      case TokenKind::LeftBrace: {
        advance();
        DictExpr dict;
        while (!at(TokenKind::RightBrace)) {
          if (!dict.items.empty()) {
            expect(TokenKind::Comma, "between dict items");
            if (at(TokenKind::RightBrace)) break;
          }
          auto key = parse_expression();
          expect(TokenKind::Colon, "after a dict key");
          dict.items.emplace_back(std::move(key), parse_expression());
        }
        advance();
        return make(offset, std::move(dict));
      }
      case TokenKind::VariableEnd:
      case TokenKind::BlockEnd:
      case TokenKind::End:
        fail_here("expected an expression, found " + describe_current());
      default:
        fail_here("unexpected " + describe_current());
    }
  }

  // The postfix operations after `subject` (`.name`, `.0`, `[...]`, `(...)`), as links.
  void parse_postfix(const Expr& subject, std::vector<ExprPtr>& links) {
    while (true) {
      if (at(TokenKind::Dot)) {
        std::size_t offset = advance().offset;
        if (at(TokenKind::Name)) {
          std::string attribute(advance().text);
          std::uint64_t hash = ValueDict::hash(attribute);
          bool maybe_method = is_method_name(attribute);
          links.push_back(
              make(offset, GetAttr{nullptr, std::move(attribute), hash, maybe_method, {}}));
        } else if (at(TokenKind::Integer)) {
          Value index = parse_number(advance());
          ExprPtr key = make(offset, Literal{std::move(index)});
          links.push_back(make(offset, GetItem{nullptr, std::move(key)}));
        } else {
          fail_here("expected an attribute name after '.', found " + describe_current());
        }
      } else if (at(TokenKind::LeftBracket)) {
        links.push_back(parse_subscript());
      } else if (at(TokenKind::LeftParen)) {
        // Errors in a call point at what is called.
        std::size_t offset = links.empty() ? subject.offset : links.back()->offset;
        auto args = parse_call_arguments();
        links.push_back(make(offset, Call{nullptr, std::move(args)}));
      } else {
        return;
      }
    }
  }

  ExprPtr parse_subscript() {
    std::size_t offset = advance().offset;  // [
    ExprPtr start, stop, step;
    bool slice = false;
    if (!at(TokenKind::Colon)) start = parse_expression();
    if (skip(TokenKind::Colon)) {
      slice = true;
      if (!at(TokenKind::RightBracket) && !at(TokenKind::Colon)) stop = parse_expression();
      if (skip(TokenKind::Colon) && !at(TokenKind::RightBracket)) step = parse_expression();
    }
    expect(TokenKind::RightBracket, "to close '['");
    if (slice)
      return make(offset, SliceExpr{nullptr, std::move(start), std::move(stop), std::move(step)});
    return make(offset, GetItem{nullptr, std::move(start)});
  }

  CallArguments parse_call_arguments() {
    expect(TokenKind::LeftParen);
    CallArguments args;
    while (!at(TokenKind::RightParen)) {
      if (!args.positional.empty() || !args.keyword.empty()) {
        expect(TokenKind::Comma, "between arguments");
        if (at(TokenKind::RightParen)) break;
      }
      if (at(TokenKind::Star) || at(TokenKind::StarStar))
        fail_here("'*args' and '**kwargs' in calls are not supported");
      if (at(TokenKind::Name) && peek().kind == TokenKind::Assign) {
        std::string name(advance().text);
        advance();  // =
        args.keyword.emplace_back(std::move(name), parse_expression());
      } else {
        if (!args.keyword.empty()) fail_here("positional argument follows keyword argument");
        args.positional.push_back(parse_expression());
      }
    }
    advance();  // )
    return args;
  }

  const FunctionSpec* resolve(FunctionKind kind, const std::string& name, std::size_t offset) {
    const FunctionSpec* spec = functions_.find(kind, name);
    if (!spec)
      fail_at(offset,
              std::string(kind == FunctionKind::Filter ? "unknown filter '" : "unknown test '") +
                  name + "'");
    return spec;
  }

  // The body of `spec` as a plain function when a call passes no arguments (the renderer
  // then skips the binder and std::function), else nullptr.
  static DirectBody direct_body(const FunctionSpec& spec, const CallArguments& args) {
    if (!args.positional.empty() || !args.keyword.empty()) return nullptr;
    const DirectBody* body = spec.body.target<DirectBody>();
    return body ? *body : nullptr;
  }

  FilterCall parse_filter_call() {
    std::size_t offset = current().offset;
    std::string name = expect_name("a filter name");
    while (at(TokenKind::Dot) && peek().kind == TokenKind::Name) {
      advance();
      name += "." + std::string(advance().text);
    }
    const FunctionSpec* spec = resolve(FunctionKind::Filter, name, offset);
    CallArguments args;
    if (at(TokenKind::LeftParen)) args = parse_call_arguments();
    return FilterCall{std::move(name), spec, std::move(args), offset};
  }

  // The filters, tests and calls after a postfixed operand (`| f(1)`, `is t`, `(...)`), as
  // links.
  void parse_filters(std::vector<ExprPtr>& links) {
    while (true) {
      if (at(TokenKind::Pipe)) {
        advance();
        FilterCall call = parse_filter_call();
        bool builtin_default = is_builtin_default(*call.spec) && call.args.keyword.empty() &&
                               call.args.positional.size() <= 2;
        bool builtin_tojson = is_builtin_tojson(*call.spec) && call.args.keyword.empty() &&
                              call.args.positional.empty();
        DirectBody direct = direct_body(*call.spec, call.args);
        links.push_back(make(
            call.offset, FilterExpr{nullptr, std::move(call.name), call.spec, std::move(call.args),
                                    builtin_default, builtin_tojson, direct}));
      } else if (at_name("is")) {
        advance();
        bool negated = skip_name("not");
        std::size_t offset = current().offset;
        std::string name = expect_name("a test name");
        const FunctionSpec* spec = resolve(FunctionKind::Test, name, offset);
        CallArguments args;
        if (at(TokenKind::LeftParen)) {
          args = parse_call_arguments();
        } else if (starts_test_argument()) {
          args.positional.push_back(parse_postfixed(parse_primary()));
        }
        DirectBody direct = direct_body(*spec, args);
        links.push_back(make(
            offset, TestExpr{nullptr, std::move(name), spec, std::move(args), negated, direct}));
      } else if (at(TokenKind::LeftParen)) {
        std::size_t offset = current().offset;
        auto args = parse_call_arguments();
        links.push_back(make(offset, Call{nullptr, std::move(args)}));
      } else {
        return;
      }
    }
  }

  // `x is divisibleby 3`: a test takes one argument without parentheses when the next token
  // can start one (Jinja2's rule; `else`, `or`, `and` and friends end the test instead).
  bool starts_test_argument() const {
    const Token& t = current();
    switch (t.kind) {
      case TokenKind::Name:
        return !(t.text == "else" || t.text == "or" || t.text == "and" || t.text == "is" ||
                 t.text == "if" || t.text == "in" || t.text == "not");
      case TokenKind::String:
      case TokenKind::Integer:
      case TokenKind::Float:
      case TokenKind::LeftBracket:
      case TokenKind::LeftBrace:
      case TokenKind::Minus:
        return t.kind != TokenKind::Minus;
      default:
        return false;
    }
  }

  TemplateTree& tree_;
  std::vector<Token> tokens_;
  const FunctionRegistry& functions_;
  std::size_t pos_ = 0;
  std::vector<OpenBlock> open_;
  std::size_t loop_refs_ = 0;
  int max_nesting_;
  std::int64_t statement_depth_ = 0;  // the Nested levels open now, per kind
  std::int64_t expression_depth_ = 0;
};

}  // namespace

std::shared_ptr<const TemplateTree> parse_template(std::string name, std::string origin,
                                                   std::string_view source,
                                                   const LexerOptions& options,
                                                   const FunctionRegistry& functions,
                                                   int max_nesting) {
  auto tree = std::make_shared<TemplateTree>();
  tree->name = std::move(name);
  tree->origin = std::move(origin);
  tree->source = normalize_source(source);
  if (std::size_t bad = invalid_utf8_at(tree->source); bad != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(tree->source[bad]));
    throw error_at(ErrorKind::Syntax,
                   std::string("invalid UTF-8 (byte ") + byte + "); templates are UTF-8 text",
                   tree->origin, tree->source, bad);
  }
  tree->is_json = ends_with(tree->name, ".json") || ends_with(tree->name, ".json.j2");
  auto tokens = tokenize(tree->source, tree->origin, options);
  Parser(*tree, std::move(tokens), functions, max_nesting).run();
  resolve_scopes(*tree);
  return tree;
}

}  // namespace zf::detail
