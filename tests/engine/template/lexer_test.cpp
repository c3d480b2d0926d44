// SPDX-License-Identifier: MIT
// Lexer: token streams, whitespace control and lexical errors.
#include "template/lexer.hpp"

#include <gtest/gtest.h>

#include "zeroforge/error.hpp"

namespace zf::detail {
namespace {

std::string kinds(const std::string& source, LexerOptions options = {}) {
  std::string out;
  for (const auto& token : tokenize(source, "t.j2", options)) {
    if (!out.empty()) out += ' ';
    out += describe(token.kind);
    if (token.kind == TokenKind::Data || token.kind == TokenKind::Name)
      out += "[" + std::string(token.text) + "]";
  }
  return out;
}

std::string data(const std::string& source, LexerOptions options = {}) {
  std::string out;
  std::string normalized = normalize_source(source);  // tokens point into it
  for (const auto& token : tokenize(normalized, "t.j2", options)) {
    if (token.kind == TokenKind::Data) out += token.text;
  }
  return out;
}

TEST(LexerTest, SplitsDataAndTags) {
  EXPECT_EQ(
      kinds("a{{ x }}b"),
      "template data[a] '{{' name[x] end of print statement '}}' template data[b] end of template");
  EXPECT_EQ(kinds("{% if x %}"),
            "'{%' name[if] name[x] end of statement block '%}' end of template");
}

TEST(LexerTest, RecognisesOperatorsLongestFirst) {
  std::string out;
  for (const auto& t : tokenize("{{ a ** b // c != d <= e }}", "t", {}))
    out += std::string(describe(t.kind)) + " ";
  EXPECT_EQ(out,
            "'{{' name '**' name '//' name '!=' name '<=' name end of print statement '}}' end of "
            "template ");
}

TEST(LexerTest, LexesNumbers) {
  struct Case {
    std::string source;
    TokenKind kind;
    std::string text;
  };
  const Case cases[] = {
      {"{{ 42 }}", TokenKind::Integer, "42"},       {"{{ 1_000 }}", TokenKind::Integer, "1_000"},
      {"{{ 0x1F }}", TokenKind::Integer, "0x1F"},   {"{{ 1.5 }}", TokenKind::Float, "1.5"},
      {"{{ 1e9 }}", TokenKind::Float, "1e9"},       {"{{ 5e-5 }}", TokenKind::Float, "5e-5"},
      {"{{ 2.5E+3 }}", TokenKind::Float, "2.5E+3"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    auto tokens = tokenize(c.source, "t", {});
    EXPECT_EQ(tokens[1].kind, c.kind);
    EXPECT_EQ(tokens[1].text, c.text);
  }
}

TEST(LexerTest, AttributeIndexAfterDotIsAnInteger) {
  auto tokens = tokenize("{{ a.0.1 }}", "t", {});
  EXPECT_EQ(tokens[3].kind, TokenKind::Integer);
  EXPECT_EQ(tokens[5].kind, TokenKind::Integer);
}

TEST(LexerTest, BracesInsideExpressionsDoNotCloseTheTag) {
  EXPECT_EQ(kinds("{{ {'a': {'b': 1}} }}").find("template data"), std::string::npos);
}

TEST(LexerTest, WhitespaceControl) {
  struct Case {
    std::string name, source, expected;
    LexerOptions options;
  };
  const Case cases[] = {
      {"minus strips left", "a  \n  {%- if x %}", "a", {}},
      {"minus strips right", "{% if x -%}  \n  b", "b", {}},
      {"comment stripping", "a \n{#- c -#}\n b", "ab", {}},
      {"trim_blocks removes one newline", "{% if x %}\n\nb", "\nb", {true, false}},
      {"trim_blocks ignores print tags", "{{ x }}\nb", "\nb", {true, false}},
      {"plus disables trim_blocks", "{% if x +%}\nb", "\nb", {true, false}},
      {"lstrip_blocks strips indentation", "a\n    {% if x %}", "a\n", {false, true}},
      {"lstrip_blocks keeps text before tag", "a  {% if x %}", "a  ", {false, true}},
      {"lstrip_blocks at template start", "   {% if x %}", "", {false, true}},
      {"plus disables lstrip_blocks", "a\n  {%+ if x %}", "a\n  ", {false, true}},
      {"raw keeps tags", "{% raw %}{{ x }}{% endraw %}", "{{ x }}", {}},
      {"raw with minus", "{% raw -%}  {{ x }}  {%- endraw %}", "{{ x }}", {}},
      {"trim_blocks only after endraw", "{% raw %}\nx\n{% endraw %}\nb", "\nx\nb", {true, false}},
      {"trailing newline dropped", "a\n", "a", {}},
      {"crlf normalised", "a\r\nb", "a\nb", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(data(c.source, c.options), c.expected);
  }
}

TEST(LexerTest, ReportsLexicalErrorsWithLocation) {
  struct Case {
    std::string source, expected;
  };
  const Case cases[] = {
      {"ab\n{# never closed", "t.j2:2:1: error: unclosed comment: missing '#}'"},
      {"{{ x ", "t.j2:1:1: error: unclosed '{{': missing '}}'"},
      {"x {% if y", "t.j2:1:3: error: unclosed '{%': missing '%}'"},
      {"{{ 'abc }}", "t.j2:1:4: error: unterminated string"},
      {"{{ a ? b }}", "t.j2:1:6: error: unexpected character '?'"},
      {"{{ a) }}", "t.j2:1:5: error: unexpected ')'"},
      {"{{ (a] }}", "t.j2:1:6: error: unexpected ']', expected ')'"},
      {"{% raw %}abc", "t.j2:1:1: error: unclosed 'raw' block: missing '{% endraw %}'"},
      {"{% raw +%}x{% endraw %}", "t.j2:1:8: error: expected '%}' after 'raw'"},
      {"{{ 007 }}", "t.j2:1:4: error: leading zeros in decimal integer literals are not permitted"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    try {
      tokenize(c.source, "t.j2", {});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
      EXPECT_EQ(e.kind(), ErrorKind::Syntax);
    }
  }
}

}  // namespace
}  // namespace zf::detail
