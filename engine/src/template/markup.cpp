// SPDX-License-Identifier: MIT
// MarkupSafe's Markup semantics and Python's html.unescape (markup.hpp). The entity table is
// generated (generated/html_entities.inc) from the list Python itself uses.
#include "template/markup.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

#include "template/python_text.hpp"
#include "text_helpers.hpp"

namespace zf::detail {
namespace {

struct EntityIndex {
  std::uint16_t name, text;
  std::uint8_t name_size, text_size;
};

#include "template/generated/html_entities.inc"

std::string_view entity_name(const EntityIndex& e) {
  return std::string_view(kEntityText + e.name, e.name_size);
}

// The named reference `name`, or nullptr.
const EntityIndex* find_entity(std::string_view name) {
  auto it =
      std::lower_bound(std::begin(kEntities), std::end(kEntities), name,
                       [](const EntityIndex& e, std::string_view n) { return entity_name(e) < n; });
  return it != std::end(kEntities) && entity_name(*it) == name ? it : nullptr;
}

std::string_view entity_text(const EntityIndex& e) {
  return std::string_view(kEntityText + e.text, e.text_size);
}

// What a numeric reference to `n` becomes (Python's html module: the Windows-1252 fix-ups of
// 0x80-0x9F, U+FFFD for NUL, surrogates and past U+10FFFF, nothing for other controls and
// noncharacters).
void append_numeric_reference(std::string& out, std::uint64_t n) {
  static constexpr std::array<char16_t, 32> kWindows1252 = {
      0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
      0x2039, 0x0152, 0x8D,   0x017D, 0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};
  if (n == 0) return append_utf8(out, 0xFFFD);
  if (n == 0x0D) return append_utf8(out, 0x0D);
  if (n >= 0x80 && n <= 0x9F) return append_utf8(out, kWindows1252[n - 0x80]);
  if ((n >= 0xD800 && n <= 0xDFFF) || n > 0x10FFFF) return append_utf8(out, 0xFFFD);
  bool control =
      (n >= 0x01 && n <= 0x08) || n == 0x0B || (n >= 0x0E && n <= 0x1F) || (n >= 0x7F && n <= 0x9F);
  bool noncharacter = (n >= 0xFDD0 && n <= 0xFDEF) || (n & 0xFFFE) == 0xFFFE;
  if (control || noncharacter) return;
  append_utf8(out, static_cast<char32_t>(n));
}

bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) {
  return is_decimal_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Decodes the reference after the '&' at `text[pos - 1]`; returns the bytes consumed (0 when
// the text there is no reference, so the '&' stays).
std::size_t unescape_reference(std::string& out, std::string_view text, std::size_t pos) {
  if (pos < text.size() && text[pos] == '#') {
    bool hex = pos + 1 < text.size() && (text[pos + 1] == 'x' || text[pos + 1] == 'X');
    std::size_t start = pos + (hex ? 2 : 1), end = start;
    while (end < text.size() && (hex ? is_hex_digit(text[end]) : is_decimal_digit(text[end])))
      ++end;
    if (end == start) return 0;
    // Saturates: any number past U+10FFFF gives U+FFFD, however many digits it has.
    std::uint64_t n = 0;
    for (std::size_t i = start; i < end; ++i) {
      char c = text[i];
      unsigned digit = is_decimal_digit(c) ? static_cast<unsigned>(c - '0')
                                           : static_cast<unsigned>((c | 0x20) - 'a' + 10);
      n = std::min<std::uint64_t>(n * (hex ? 16 : 10) + digit, 0x110000);
    }
    if (end < text.size() && text[end] == ';') ++end;
    append_numeric_reference(out, n);
    return end - pos;
  }
  // A name: up to 32 bytes other than tab, newline, form feed, space, '<', '&', '#', ';'.
  std::size_t end = pos;
  while (end < text.size() && end - pos < 32 &&
         std::string_view("\t\n\f <&#;").find(text[end]) == std::string_view::npos) {
    ++end;
  }
  if (end == pos) return 0;
  if (end < text.size() && text[end] == ';') ++end;
  std::string_view name = text.substr(pos, end - pos);
  if (const EntityIndex* e = find_entity(name)) {
    out += entity_text(*e);
    return name.size();
  }
  // The longest known prefix of at least two bytes (the names valid without ';').
  for (std::size_t k = name.size() - 1; k > 1; --k) {
    if (const EntityIndex* e = find_entity(name.substr(0, k))) {
      out += entity_text(*e);
      out += name.substr(k);
      return name.size();
    }
  }
  out += '&';
  out += name;
  return name.size();
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '"':
        out += "&#34;";
        break;
      default:
        out += c;
    }
  }
}

Value escape(const Value& v) {
  if (v.is_markup()) return v;
  v.require_defined();
  std::string out;
  if (v.is_string()) {
    append_html_escaped(out, v.as_string());
  } else {
    append_html_escaped(out, v.str());
  }
  return Value::markup(std::move(out));
}

Value mark_safe(const Value& v) {
  if (v.is_markup()) return v;
  v.require_defined();
  return Value::markup(v.str());
}

Value escape_argument(const Value& v) { return v.is_string() ? escape(v) : v; }

Value markup_concatenate(const Value& a, const Value& b) {
  std::string out = escape(a).as_string();
  out += escape(b).as_string();
  return Value::markup(std::move(out));
}

std::string html_unescape(std::string_view text) {
  if (text.find('&') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '&') {
      out += text[i++];
      continue;
    }
    std::size_t used = unescape_reference(out, text, i + 1);
    if (used == 0) out += '&';
    i += 1 + used;
  }
  return out;
}

std::string strip_tags(std::string_view text) {
  std::string value(text);
  // Comments first, so that a tag inside a comment does not end it early. Removing one can
  // join a new "<!--" across the cut, so the next search starts up to 3 bytes before it.
  for (std::size_t start = 0; (start = value.find("<!--", start)) != std::string::npos;) {
    std::size_t end = value.find("-->", start);
    if (end == std::string::npos) break;
    value.erase(start, end + 3 - start);
    start = start >= 3 ? start - 3 : 0;
  }
  // Then tags: everything from a '<' to the next '>'. No '<' precedes a removed tag, so one
  // pass finds what MarkupSafe's repeated search from the start finds.
  std::string untagged;
  untagged.reserve(value.size());
  for (std::size_t i = 0; i < value.size();) {
    std::size_t start = value.find('<', i);
    std::size_t end = start == std::string::npos ? start : value.find('>', start);
    if (end == std::string::npos) {
      untagged.append(value, i, std::string::npos);
      break;
    }
    untagged.append(value, i, start - i);
    i = end + 1;
  }
  value = std::move(untagged);
  // " ".join(value.split()): runs of Unicode whitespace become one space.
  std::string collapsed;
  bool pending_space = false;
  for (std::size_t i = 0; i < value.size();) {
    char32_t c;
    std::size_t n = decode_utf8(value, i, c);
    if (is_space(c)) {
      pending_space = !collapsed.empty();
    } else {
      if (pending_space) collapsed += ' ';
      pending_space = false;
      collapsed.append(value, i, n);
    }
    i += n;
  }
  return html_unescape(collapsed);
}

}  // namespace zf::detail
