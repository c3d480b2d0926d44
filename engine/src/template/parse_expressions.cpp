// SPDX-License-Identifier: MIT
// Expressions: Jinja2's precedence ladder, one function per level (long chains of one level
// are one flat node), postfix operations, calls, filters and tests (unknown names: SoftFrame in
// parser_state.hpp).
#include <algorithm>

#include "template/builtin_filters.hpp"
#include "template/methods.hpp"
#include "template/native_function.hpp"
#include "template/parser_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

ExprPtr& link_subject(Expr& link) {
  if (auto* node = std::get_if<GetAttr>(&link.node)) return node->object;
  if (auto* node = std::get_if<GetItem>(&link.node)) return node->object;
  if (auto* node = std::get_if<SliceExpr>(&link.node)) return node->object;
  if (auto* node = std::get_if<Call>(&link.node)) return node->callee;
  if (auto* node = std::get_if<FilterExpr>(&link.node)) return node->subject;
  return std::get<TestExpr>(link.node).subject;
}

// The body of `spec` as a plain function when a call passes no arguments (the renderer
// then skips the binder and std::function), else nullptr.
DirectBody direct_body(const FunctionSpec& spec, const CallArguments& args) {
  if (!args.empty()) return nullptr;
  const DirectBody* body = spec.body.target<DirectBody>();
  return body ? *body : nullptr;
}

}  // namespace

// `{{ a, b }}` and `for x in a, b` build a tuple (a list here).
ExprPtr Parser::parse_tuple_or_expression(bool allow_condexpr) {
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

ExprPtr Parser::parse_expression() {
  Nested nested(*this, current().offset, /*statement=*/false);
  const std::size_t unknown_before = unknown_.size();
  auto expr = parse_or();
  while (at_name("if")) {
    // All three parts of a conditional are a soft frame, the part before `if` too.
    unknown_.resize(unknown_before);
    SoftFrame soft(*this, /*soft=*/true);
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
ExprPtr Parser::parse_chain(Operand&& operand, OpHere&& op_here) {
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

ExprPtr Parser::parse_or() {
  return parse_chain([&] { return parse_and(); },
                     [&]() -> std::optional<BinaryOp> {
                       if (at_name("or")) return BinaryOp::Or;
                       return std::nullopt;
                     });
}

ExprPtr Parser::parse_and() {
  return parse_chain([&] { return parse_not(); },
                     [&]() -> std::optional<BinaryOp> {
                       if (at_name("and")) return BinaryOp::And;
                       return std::nullopt;
                     });
}

ExprPtr Parser::parse_not() {
  if (at_name("not")) {
    Nested nested(*this, current().offset, /*statement=*/false);
    std::size_t offset = advance().offset;
    return make(offset, Unary{UnaryOp::Not, parse_not()});
  }
  return parse_compare();
}

ExprPtr Parser::parse_compare() {
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

ExprPtr Parser::parse_math1() {
  return parse_chain([&] { return parse_concat(); },
                     [&]() -> std::optional<BinaryOp> {
                       if (at(TokenKind::Plus)) return BinaryOp::Add;
                       if (at(TokenKind::Minus)) return BinaryOp::Subtract;
                       return std::nullopt;
                     });
}

ExprPtr Parser::parse_concat() {
  return parse_chain([&] { return parse_math2(); },
                     [&]() -> std::optional<BinaryOp> {
                       if (at(TokenKind::Tilde)) return BinaryOp::Concat;
                       return std::nullopt;
                     });
}

ExprPtr Parser::parse_math2() {
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
ExprPtr Parser::parse_pow() {
  return parse_chain([&] { return parse_unary(true); },
                     [&]() -> std::optional<BinaryOp> {
                       if (at(TokenKind::StarStar)) return BinaryOp::Power;
                       return std::nullopt;
                     });
}

ExprPtr Parser::parse_unary(bool with_filter) {
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
ExprPtr Parser::chain(ExprPtr subject, std::vector<ExprPtr> links) {
  const std::size_t nested = links.size() <= kFlatChainFrom ? links.size() : 1;
  for (std::size_t i = 0; i < nested; ++i)
    subject = attach(std::move(subject), std::move(links[i]));
  if (nested == links.size()) return subject;
  links.erase(links.begin(), links.begin() + static_cast<std::ptrdiff_t>(nested));
  const std::size_t offset = links.back()->offset;
  return make(offset, Chain{std::move(subject), std::move(links)});
}

// `link` applied to `subject`: the link's empty object (callee, subject) filled.
ExprPtr Parser::attach(ExprPtr subject, ExprPtr link) {
  const std::uint32_t height = std::max(link->height, subject->height + 1);
  check_height(height, link->offset);
  link->height = height;
  link_subject(*link) = std::move(subject);
  return link;
}

// `node` with the postfix operations that follow it.
ExprPtr Parser::parse_postfixed(ExprPtr node) {
  std::vector<ExprPtr> links;
  parse_postfix(*node, links);
  return chain(std::move(node), std::move(links));
}

ExprPtr Parser::parse_primary() {
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
      NameRef ref{std::string(name), ValueDict::hash(name), {}, {}, true};
      // A global function's name, when no variable of the name is in scope, is the function.
      if (const FunctionSpec* spec = functions_.find(FunctionKind::Global, name))
        ref.missing = Value(std::make_shared<const GlobalFunction>(*spec));
      return make(offset, std::move(ref));
    }
    case TokenKind::String:
      return parse_strings();
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
    case TokenKind::LeftBracket:
      return parse_list(offset);
    case TokenKind::LeftBrace:
      return parse_dict(offset);
    case TokenKind::VariableEnd:
    case TokenKind::BlockEnd:
    case TokenKind::End:
      fail_here("expected an expression, found " + describe_current());
    default:
      fail_here("unexpected " + describe_current());
  }
}

// The postfix operations after `subject` (`.name`, `.0`, `[...]`, `(...)`), as links.
void Parser::parse_postfix(const Expr& subject, std::vector<ExprPtr>& links) {
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

ExprPtr Parser::parse_subscript() {
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

CallArguments Parser::parse_call_arguments(bool last_keyword_wins) {
  const std::size_t open_offset = current().offset;
  expect(TokenKind::LeftParen);
  CallArguments args;
  // Jinja2's order: positional arguments, `*args`, keyword arguments, `**kwargs`.
  auto ensure = [&](bool ok) {
    if (!ok) fail_at(open_offset, "invalid syntax for function call expression");
  };
  bool first = true;
  while (!at(TokenKind::RightParen)) {
    if (!first) {
      expect(TokenKind::Comma, "between arguments");
      if (at(TokenKind::RightParen)) break;
    }
    first = false;
    if (skip(TokenKind::Star)) {
      ensure(!args.dynamic());
      args.star = parse_expression();
    } else if (skip(TokenKind::StarStar)) {
      ensure(!args.star_star);
      args.star_star = parse_expression();
    } else if (at(TokenKind::Name) && peek().kind == TokenKind::Assign) {
      ensure(!args.star_star);
      const std::size_t name_offset = current().offset;
      std::string name(advance().text);
      // Jinja2 writes a call or a test as Python, which refuses a repeated keyword when it
      // compiles; a filter's keywords go through a dict, where the last one wins.
      auto repeated = std::find_if(args.keyword.begin(), args.keyword.end(),
                                   [&](const auto& keyword) { return keyword.first == name; });
      if (repeated != args.keyword.end() && !last_keyword_wins)
        fail_at(name_offset, "keyword argument repeated: " + name);
      advance();  // =
      if (repeated != args.keyword.end()) {
        repeated->second = parse_expression();
      } else {
        args.keyword.emplace_back(std::move(name), parse_expression());
      }
    } else {
      if (!args.keyword.empty() && !args.dynamic())
        fail_here("positional argument follows keyword argument");
      ensure(!args.dynamic());
      args.positional.push_back(parse_expression());
    }
  }
  advance();  // )
  return args;
}

const FunctionSpec* Parser::resolve(FunctionKind kind, const std::string& name,
                                    std::size_t offset) {
  const FunctionSpec* spec = functions_.find(kind, name);
  if (!spec && soft_ == 0) {
    unknown_.push_back(
        {offset, std::string(kind == FunctionKind::Filter ? "unknown filter '" : "unknown test '") +
                     name + "'"});
  }
  return spec;
}

FilterCall Parser::parse_filter_call() {
  std::size_t offset = current().offset;
  std::string name = expect_name("a filter name");
  while (at(TokenKind::Dot) && peek().kind == TokenKind::Name) {
    advance();
    name += "." + std::string(advance().text);
  }
  const FunctionSpec* spec = resolve(FunctionKind::Filter, name, offset);
  CallArguments args;
  if (at(TokenKind::LeftParen)) args = parse_call_arguments(true);
  return FilterCall{std::move(name), spec, std::move(args), offset};
}

// The filters, tests and calls after a postfixed operand (`| f(1)`, `is t`, `(...)`), as
// links.
void Parser::parse_filters(std::vector<ExprPtr>& links) {
  while (true) {
    if (at(TokenKind::Pipe)) {
      advance();
      FilterCall call = parse_filter_call();
      const bool known = call.spec != nullptr;
      bool builtin_default = known && is_builtin_default(*call.spec) && call.args.keyword.empty() &&
                             !call.args.dynamic() && call.args.positional.size() <= 2;
      bool builtin_tojson = known && is_builtin_tojson(*call.spec) && call.args.empty();
      DirectBody direct = known ? direct_body(*call.spec, call.args) : nullptr;
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
      DirectBody direct = spec ? direct_body(*spec, args) : nullptr;
      links.push_back(
          make(offset, TestExpr{nullptr, std::move(name), spec, std::move(args), negated, direct}));
      // Jinja2's grammar: `x is odd is defined` is a syntax error, not a test of a test.
      if (at_name("is")) fail_here("you cannot chain multiple tests with 'is'");
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
// can start one (Jinja2's rule: only `else`, `or` and `and` end the test, so `x is defined if
// c else d` reads `if` as the test's argument and fails, as in Jinja2; `is` is then the error
// for chained tests).
bool Parser::starts_test_argument() const {
  const Token& t = current();
  switch (t.kind) {
    case TokenKind::Name:
      return !(t.text == "else" || t.text == "or" || t.text == "and" || t.text == "is");
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

}  // namespace zf::detail
