// SPDX-License-Identifier: MIT
// The parser's entry (parse_template) and what every grammar rule shares: expecting tokens and
// reporting syntax errors at their place. The rules are in parse_statements.cpp,
// parse_expressions.cpp and parse_literals.cpp (parser_state.hpp declares the class).
#include "template/parser.hpp"

#include <cstdio>

#include "source_position.hpp"
#include "template/parser_state.hpp"
#include "template/resolver.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void Parser::run() {
  tree_.body = parse_body({});
  if (current().kind != TokenKind::End) fail_here("unexpected " + describe_current());
  if (!unknown_.empty()) fail_at(unknown_.front().offset, unknown_.front().message);
  for (const auto& stmt : tree_.body) tree_.height = std::max(tree_.height, stmt->height);
}

void Parser::fail_at(std::size_t offset, const std::string& message) const {
  throw error_at(ErrorKind::Syntax, message, tree_.origin, tree_.source, offset);
}

void Parser::fail_here(const std::string& message) const { fail_at(current().offset, message); }

std::string Parser::describe_current() const {
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

const Token& Parser::expect(TokenKind kind, const char* context) {
  if (!at(kind)) {
    std::string message = std::string("expected ") + describe(kind);
    if (context) message += std::string(" ") + context;
    fail_here(message + ", found " + describe_current());
  }
  return advance();
}

std::string Parser::expect_name(const char* what) {
  if (!at(TokenKind::Name))
    fail_here(std::string("expected ") + what + ", found " + describe_current());
  return std::string(advance().text);
}

void Parser::expect_block_end(const char* statement) {
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
void Parser::fail_too_deep(std::size_t offset) const {
  fail_at(offset, "statements and expressions nest deeper than " + std::to_string(max_nesting_) +
                      " levels (EnvironmentOptions::max_nesting raises the limit)");
}

// A node of `height` levels at `offset`: the statements around it count too.
void Parser::check_height(std::uint32_t height, std::size_t offset) const {
  if (statement_depth_ + static_cast<std::int64_t>(height) > max_nesting_) fail_too_deep(offset);
}

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
