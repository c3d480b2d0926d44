// SPDX-License-Identifier: MIT
// Tokens of the template language: a kind, the text it covers and its byte offset.
#pragma once

#include <cstddef>
#include <string_view>

namespace zf::detail {

enum class TokenKind {
  Data,           // literal text between tags (already whitespace-controlled)
  VariableBegin,  // {{
  VariableEnd,    // }}
  BlockBegin,     // {%
  BlockEnd,       // %}
  Name,           // identifier or keyword
  Integer,        // 42, 0x1f, 1_000
  Float,          // 1.5, 1e9, 5e-5
  String,         // 'text' or "text" (text keeps the quotes and escapes)
  Plus,           // +
  Minus,          // -
  Star,           // *
  StarStar,       // **
  Slash,          // /
  SlashSlash,     // //
  Percent,        // %
  Tilde,          // ~
  Dot,            // .
  Comma,          // ,
  Colon,          // :
  Pipe,           // |
  Assign,         // =
  Equal,          // ==
  NotEqual,       // !=
  Less,           // <
  LessEqual,      // <=
  Greater,        // >
  GreaterEqual,   // >=
  LeftParen,      // (
  RightParen,     // )
  LeftBracket,    // [
  RightBracket,   // ]
  LeftBrace,      // {
  RightBrace,     // }
  End,            // end of input
};

struct Token {
  TokenKind kind;
  std::string_view text;
  std::size_t offset;
};

/// How a token kind is shown in "expected X, found Y" messages.
const char* describe(TokenKind kind) noexcept;

}  // namespace zf::detail
