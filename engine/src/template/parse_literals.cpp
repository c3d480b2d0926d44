// SPDX-License-Identifier: MIT
// Literals: string escapes (Python's), numbers (64-bit integers, Python's float syntax), and
// list, tuple and dict displays, folded into one constant when every item is one.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "template/parser_state.hpp"
#include "template/unicode_names.hpp"
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {
// Lists, tuples and dicts written with literals only are folded into one literal value
// (values are immutable, so every render can share it), as Jinja2's compiler does.
ExprPtr Parser::make(std::size_t offset, ListExpr node) {
  ValueList items;
  for (const auto& item : node.items) {
    auto* literal = std::get_if<Literal>(&item->node);
    if (!literal) return make<ListExpr>(offset, std::move(node));
    items.push_back(literal->value);
  }
  Value folded = node.tuple ? Value::tuple(std::move(items)) : Value(std::move(items));
  return make(offset, Literal{std::move(folded)});
}

ExprPtr Parser::make(std::size_t offset, DictExpr node) {
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

// Adjacent strings concatenate, as in Python: `'a' 'b'` is `'ab'`.
ExprPtr Parser::parse_strings() {
  const std::size_t offset = current().offset;
  std::string text;
  while (at(TokenKind::String)) text += decode_string(advance());
  return make(offset, Literal{Value(std::move(text))});
}

// `[a, b, ]`, after the `[` at `offset` (current).
ExprPtr Parser::parse_list(std::size_t offset) {
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

// `{k: v, }`, after the `{` at `offset` (current).
ExprPtr Parser::parse_dict(std::size_t offset) {
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

std::string Parser::decode_string(const Token& token) {
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
      case 'N': {
        // `\N{NAME}`: a character by its Unicode name (unicode_names.hpp).
        std::size_t close = raw.find('}', i + 1);
        if (i + 1 >= raw.size() || raw[i + 1] != '{' || close == std::string_view::npos ||
            close == i + 2) {
          fail_at(token.offset, "malformed \\N character escape in string (expected \\N{NAME})");
        }
        std::string_view name = raw.substr(i + 2, close - i - 2);
        auto code_point = lookup_character_name(name);
        if (!code_point) {
          fail_at(token.offset,
                  "unknown Unicode character name in \\N{" + std::string(name) + "} in string");
        }
        append_utf8(out, *code_point);
        i = close;
        break;
      }
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

Value Parser::parse_number(const Token& token) {
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

}  // namespace zf::detail
