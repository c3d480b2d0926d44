// SPDX-License-Identifier: MIT
// Statements: bodies and their end tags (a wrong or missing one names the innermost open
// block), and one rule per statement (if, for, set, include, extends, block, macro, filter,
// import, from, with); a macro's parameter list is in parse_macro_parameters.cpp.
#include <type_traits>

#include "source_position.hpp"
#include "template/macro_specials.hpp"
#include "template/parser_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

// The height of the tallest statement or expression directly inside a statement.
std::uint32_t height_of(const ExprPtr& expr) { return expr ? expr->height : 0; }

std::uint32_t height_of(const Body& body) {
  std::uint32_t height = 0;
  for (const auto& stmt : body) height = std::max(height, stmt->height);
  return height;
}

std::uint32_t height_of(const CallArguments& args) {
  std::uint32_t height = 0;
  for_each_argument(args, [&](const Expr& arg) { height = std::max(height, arg.height); });
  return height;
}

std::uint32_t height_of(const std::vector<FilterCall>& filters) {
  std::uint32_t height = 0;
  for (const auto& filter : filters) height = std::max(height, height_of(filter.args));
  return height;
}

std::uint32_t height_inside(const TextStmt&) { return 0; }

std::uint32_t height_inside(const PrintStmt& node) { return height_of(node.expr); }

std::uint32_t height_inside(const IfStmt& node) {
  std::uint32_t height = height_of(node.otherwise);
  for (const auto& [test, body] : node.branches)
    height = std::max({height, height_of(test), height_of(body)});
  return height;
}

std::uint32_t height_inside(const ForStmt& node) {
  return std::max({height_of(node.iterable), height_of(node.condition), height_of(node.body),
                   height_of(node.otherwise)});
}

std::uint32_t height_inside(const SetStmt& node) {
  return std::max(height_of(node.value), height_of(node.namespace_ref));
}

std::uint32_t height_inside(const SetBlockStmt& node) {
  return std::max({height_of(node.filters), height_of(node.body), height_of(node.namespace_ref)});
}

std::uint32_t height_inside(const IncludeStmt& node) { return height_of(node.name); }

std::uint32_t height_inside(const ExtendsStmt& node) { return height_of(node.name); }

std::uint32_t height_inside(const BlockStmt& node) { return height_of(node.body); }

std::uint32_t height_inside(const MacroStmt& node) {
  std::uint32_t height = height_of(node.body);
  for (const auto& param : node.params) height = std::max(height, height_of(param.default_value));
  return height;
}

std::uint32_t height_inside(const CallBlockStmt& node) {
  return std::max(height_of(node.call), height_inside(node.caller));
}

std::uint32_t height_inside(const FilterBlockStmt& node) {
  return std::max(height_of(node.filters), height_of(node.body));
}

std::uint32_t height_inside(const ImportStmt& node) { return height_of(node.name); }

std::uint32_t height_inside(const FromImportStmt& node) { return height_of(node.name); }

std::uint32_t height_inside(const WithStmt& node) {
  std::uint32_t height = height_of(node.body);
  for (const auto& [target, value] : node.assignments) height = std::max(height, height_of(value));
  return height;
}

// A name a statement assigns, with its hash.
Target make_target(std::string name) {
  std::uint64_t hash = ValueDict::hash(name);
  return Target{std::move(name), hash, {}};
}

// Jinja2 3.1.3 and later accept `set ns.a, b = ...`; 3.1.2, the oldest oracle, refuses it.
constexpr const char* kAttributeInTuple =
    "a namespace attribute is assigned on its own, not in a tuple (use one 'set' per "
    "attribute)";

}  // namespace

// Parses statements until a block tag whose name is in `ends` (left current, unconsumed,
// at that name) or the end of input.
Body Parser::parse_body(std::initializer_list<std::string_view> ends) {
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

void Parser::fail_unclosed(std::initializer_list<std::string_view> ends) const {
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

void Parser::fail_stray_end(const Token& name) const {
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
StmtPtr Parser::make_stmt(std::size_t offset, T node) {
  // Within the limit already: every expression inside was checked with the statements
  // around it counted, and the bodies by Nested.
  const std::uint32_t height = 1 + height_inside(node);
  if constexpr (std::is_same_v<T, BlockStmt> || std::is_same_v<T, MacroStmt>) node.height = height;
  if constexpr (std::is_same_v<T, CallBlockStmt>) node.caller.height = height;
  return StmtPtr(new Stmt{offset, height, std::move(node)});
}

// After `{%`: the statement name is current.
StmtPtr Parser::parse_statement() {
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
  if (name == "call") return parse_call_block(offset);
  fail_at(offset, "unknown statement '" + std::string(name) + "'");
}

// Whether a `name` statement encloses the one being parsed.
bool Parser::inside(std::string_view name) const {
  for (const auto& block : open_) {
    if (block.name == name) return true;
  }
  return false;
}

// Consumes `endNAME %}` (the `{%` was consumed by parse_body).
void Parser::expect_end(const char* end_name) {
  advance();  // the end name
  expect_block_end(end_name);
}

StmtPtr Parser::parse_if(std::size_t offset) {
  IfStmt node;
  SoftFrame soft(*this, /*soft=*/true);
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

// One name, or a tuple of names (`a, b`, `(a, b)`, `(a,)`, `a,` before `%}`): `tuple` says
// which, since a tuple of one name unpacks too. After a trailing comma only the tuple's end
// may follow (`)`, `%}`), as in Jinja2: `set a, = x` is an error there.
std::vector<Target> Parser::parse_assign_targets(const char* statement, bool& tuple) {
  std::vector<Target> targets;
  bool parens = skip(TokenKind::LeftParen);
  tuple = false;
  do {
    if (!targets.empty()) {
      tuple = true;
      if (at(parens ? TokenKind::RightParen : TokenKind::BlockEnd)) break;
    }
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
  } while (skip(TokenKind::Comma));
  if (parens) expect(TokenKind::RightParen);
  return targets;
}

StmtPtr Parser::parse_for(std::size_t offset) {
  ForStmt node;
  open("for", offset);
  node.targets = parse_assign_targets("for", node.unpack);
  if (!skip_name("in")) fail_here("expected 'in' in 'for', found " + describe_current());
  node.iterable = parse_tuple_or_expression(/*allow_condexpr=*/false);
  SoftFrame loop_frame(*this, /*soft=*/false);  // the condition, the body and the else
  if (skip_name("if")) node.condition = parse_expression();
  node.recursive = skip_name("recursive");
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

StmtPtr Parser::parse_set(std::size_t offset) {
  if (at(TokenKind::Name) && peek().kind == TokenKind::Dot) {
    // `set ns.attr = value` or `{% set ns.attr %}...{% endset %}`: Jinja2 allows an attribute
    // only on a plain name, one level deep. That name is not a read of `loop` for Jinja2 (its
    // NSRef is not a Name), so it does not make an enclosing loop build its loop object.
    const std::size_t loop_refs_before = loop_refs_;
    ExprPtr namespace_ref = parse_primary();
    loop_refs_ = loop_refs_before;
    advance();  // '.'
    std::string attribute = expect_name("an attribute name");
    if (at(TokenKind::Comma)) fail_here(kAttributeInTuple);
    if (skip(TokenKind::Assign)) {
      SetStmt node;
      node.namespace_ref = std::move(namespace_ref);
      node.attribute = std::move(attribute);
      node.value = parse_tuple_or_expression();
      expect_block_end("set");
      return make_stmt(offset, std::move(node));
    }
    SetBlockStmt node;
    node.namespace_ref = std::move(namespace_ref);
    node.attribute = std::move(attribute);
    return parse_set_block(offset, std::move(node));
  }
  bool tuple = false;
  auto targets = parse_assign_targets("set", tuple);
  if (targets.size() > 1 && at(TokenKind::Dot)) fail_here(kAttributeInTuple);
  if (skip(TokenKind::Assign)) {
    auto value = parse_tuple_or_expression();
    expect_block_end("set");
    return make_stmt(offset, SetStmt{std::move(targets), std::move(value), nullptr, {}, tuple});
  }
  // `{% set a, b %}xy{% endset %}` unpacks the body's text, as Jinja2 does.
  SetBlockStmt node;
  node.targets = std::move(targets);
  node.unpack = tuple;
  return parse_set_block(offset, std::move(node));
}

// A block `set` after its target: the filters, the body and `endset`.
StmtPtr Parser::parse_set_block(std::size_t offset, SetBlockStmt node) {
  SoftFrame block_frame(*this, /*soft=*/false);
  while (skip(TokenKind::Pipe)) node.filters.push_back(parse_filter_call());
  expect_block_end("set");
  open("set", offset);
  node.body = parse_body({"endset"});
  expect_end("endset");
  close();
  return make_stmt(offset, std::move(node));
}

bool Parser::parse_context_modifier(bool default_value) {
  if ((at_name("with") || at_name("without")) && peek().kind == TokenKind::Name &&
      peek().text == "context") {
    bool with = current().text == "with";
    advance();
    advance();
    return with;
  }
  return default_value;
}

StmtPtr Parser::parse_include(std::size_t offset) {
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

StmtPtr Parser::parse_extends(std::size_t offset) {
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

StmtPtr Parser::parse_block(std::size_t offset) {
  std::string name = expect_name("a block name");
  bool scoped = skip_name("scoped");
  bool required = skip_name("required");
  expect_block_end("block");
  SoftFrame block_frame(*this, /*soft=*/false);
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

// After the body is parsed: the implicit parameters the body asks for (macro_specials.hpp).
void Parser::finish_macro(MacroStmt& node, std::size_t offset) {
  node.caller_param = make_target("caller");
  node.kwargs_param = make_target("kwargs");
  node.varargs_param = make_target("varargs");
  if (!find_macro_specials(node)) {
    fail_at(offset,
            "when defining macros or call blocks the special 'caller' argument must be omitted "
            "or be given a default");
  }
}

StmtPtr Parser::parse_macro(std::size_t offset) {
  MacroStmt node;
  node.target = make_target(expect_name("a macro name"));
  SoftFrame macro_frame(*this, /*soft=*/false);
  parse_parameters(node);
  expect_block_end("macro");
  open("macro", offset);
  node.body = parse_body({"endmacro"});
  advance();  // endmacro
  if (at(TokenKind::Name) && current().text == node.target.name) advance();
  expect_block_end("endmacro");
  close();
  finish_macro(node, offset);
  return make_stmt(offset, std::move(node));
}

StmtPtr Parser::parse_call_block(std::size_t offset) {
  CallBlockStmt node;
  node.caller.target = make_target("caller");
  node.caller.anonymous = true;
  if (at(TokenKind::LeftParen)) {
    SoftFrame caller_frame(*this, /*soft=*/false);
    parse_parameters(node.caller);
  }
  const std::size_t call_offset = current().offset;
  node.call = parse_expression();
  // A long chain (`a.b.c.d.e.f.g.h.m()`, more than kFlatChainFrom operations) is stored flat:
  // its last link, the call, becomes a call of the chain before it.
  if (auto* flat = std::get_if<Chain>(&node.call->node);
      flat && std::holds_alternative<Call>(flat->links.back()->node)) {
    ExprPtr call = std::move(flat->links.back());
    flat->links.pop_back();
    ExprPtr callee = std::move(flat->subject);
    if (!flat->links.empty()) {
      const std::size_t offset = flat->links.back()->offset;
      callee = make(offset, Chain{std::move(callee), std::move(flat->links)});
    }
    node.call = attach(std::move(callee), std::move(call));
  }
  // A call is the last operation: `m(1)`, `lib.m(1)`, not `m(1).x` or `m(1) | f`.
  if (!std::holds_alternative<Call>(node.call->node)) fail_at(call_offset, "expected call");
  expect_block_end("call");
  open("call", offset);
  SoftFrame caller_frame(*this, /*soft=*/false);
  node.caller.body = parse_body({"endcall"});
  expect_end("endcall");
  close();
  finish_macro(node.caller, offset);
  return make_stmt(offset, std::move(node));
}

StmtPtr Parser::parse_filter_block(std::size_t offset) {
  FilterBlockStmt node;
  SoftFrame filter_frame(*this, /*soft=*/false);
  node.filters.push_back(parse_filter_call());
  while (skip(TokenKind::Pipe)) node.filters.push_back(parse_filter_call());
  expect_block_end("filter");
  open("filter", offset);
  node.body = parse_body({"endfilter"});
  expect_end("endfilter");
  close();
  return make_stmt(offset, std::move(node));
}

StmtPtr Parser::parse_import(std::size_t offset) {
  ImportStmt node;
  node.name = parse_expression();
  if (!skip_name("as")) fail_here("expected 'as' in 'import', found " + describe_current());
  node.alias = make_target(expect_name("a name after 'as'"));
  node.with_context = parse_context_modifier(false);
  expect_block_end("import");
  return make_stmt(offset, std::move(node));
}

StmtPtr Parser::parse_from_import(std::size_t offset) {
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
    const std::size_t name_offset = current().offset;
    std::string name = expect_name("a name to import");
    // Jinja2 refuses this when it parses, also where the import never runs.
    if (name.front() == '_')
      fail_at(name_offset, "names starting with an underline can not be imported");
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

StmtPtr Parser::parse_with(std::size_t offset) {
  WithStmt node;
  while (!at(TokenKind::BlockEnd)) {
    if (!node.assignments.empty()) expect(TokenKind::Comma, "between 'with' assignments");
    std::string name = expect_name("a name to assign to");
    expect(TokenKind::Assign, "in 'with'");
    node.assignments.emplace_back(make_target(std::move(name)), parse_expression());
  }
  advance();
  SoftFrame with_frame(*this, /*soft=*/false);  // the body; the values are in the outer one
  open("with", offset);
  node.body = parse_body({"endwith"});
  expect_end("endwith");
  close();
  return make_stmt(offset, std::move(node));
}

}  // namespace zf::detail
