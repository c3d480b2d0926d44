// SPDX-License-Identifier: MIT
// Small text helpers several areas share: JSON's short escapes (zeroforge's JSON writer and
// the tojson filter) and the escapes JSON and Python literals share (JSON reader, template
// parser), the 8-byte test for plain JSON string bytes (JSON reader and writer), UTF-8
// encoding and checking (string escapes in templates and JSON, readers of input), the one
// check for characters that end or control a line (launch values, output paths), and the
// did-you-mean rule (zeroforge/nearest_name.hpp in the plugin SDK, shared with plugins).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/nearest_name.hpp"

namespace zf::detail {

/// True when `name` is one of `names` (the fixed lists of launcher and Kubernetes names).
template <std::size_t N>
bool is_listed(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// True when one of the 8 bytes of `word` is a control character, '"' or '\\': the bytes a
/// JSON string cannot hold as they are. (Exact for "any", which is all callers ask; it lets
/// them skip runs of plain text 8 bytes at a time.)
inline bool json_word_needs_escape(std::uint64_t word) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  return ((word - ones * 0x20) & ~word & highs) | has_zero(word ^ (ones * '"')) |
         has_zero(word ^ (ones * '\\'));
}

/// What the two-character escape `\e` stands for where JSON and Python string literals agree
/// (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), or '\0' for any other `e`: each reader then
/// handles the escapes only its language has.
inline char shared_escape_value(char e) {
  switch (e) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return '\0';
  }
}

/// The two-character JSON escape of `c` (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`), or nullptr
/// when JSON has none for it (other control characters take `\u00XX`).
inline const char* json_short_escape(char32_t c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      return nullptr;
  }
}

/// Appends the UTF-8 encoding of `code_point` to `out`.
inline void append_utf8(std::string& out, char32_t code_point) {
  auto c = static_cast<std::uint32_t>(code_point);
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

/// The length of the well-formed UTF-8 sequence at `text[i]` (1 to 4), or 0 when it is not one
/// (a stray continuation byte, a truncated sequence, an overlong form, a surrogate D800-DFFF,
/// or above U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  std::size_t length = 0;
  std::uint32_t cp = 0, minimum = 0;
  if ((c & 0xE0) == 0xC0) {
    length = 2, cp = c & 0x1F, minimum = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3, cp = c & 0x0F, minimum = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4, cp = c & 0x07, minimum = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (next & 0x3F);
  }
  if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

/// The offset of the first byte of `text` that is not well-formed UTF-8 (see
/// utf8_sequence_length), or npos when all of it is. Output must be valid JSON text, so input
/// that is not is refused where it is read, at its line and column.
inline std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

/// A character that ends or controls a line for some reader of the files zeroforge writes.
struct LineControl {
  std::size_t offset;   ///< of its first byte
  std::size_t length;   ///< its bytes (1 to 3)
  char32_t code_point;  ///< U+0000-U+001F, U+007F, U+0080-U+009F, U+2028 or U+2029
};

/// The line control (see find_line_control) that starts at `text[i]`: its length in bytes and
/// code point, or length 0.
inline LineControl line_control_at(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x20 || c == 0x7f) return {i, 1, c};
  if (i + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + 1]);
    if (c == 0xc2 && next >= 0x80 && next <= 0x9f) return {i, 2, next};
    if (c == 0xe2 && next == 0x80 && i + 2 < text.size()) {
      const auto last = static_cast<unsigned char>(text[i + 2]);
      if (last == 0xa8 || last == 0xa9) return {i, 3, char32_t{0x2000} + last - 0x80};
    }
  }
  return {i, 0, 0};
}

/// The first C0 control (U+0000-U+001F: a newline, a tab, NUL, ESC), DEL, C1 control
/// (U+0080-U+009F, NEL U+0085 among them) or Unicode line or paragraph separator (U+2028,
/// U+2029) in the UTF-8 `text`, if any. YAML 1.1 (PyYAML, which accelerate reads its config
/// with) ends a line at U+0085, U+2028 and U+2029 as at a newline, and terminals obey C0 and C1
/// controls: the one check for every value zeroforge writes on one line of a file or into a
/// path. Bytes that are not well-formed UTF-8 are not characters and are not found.
inline std::optional<LineControl> find_line_control(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (LineControl control = line_control_at(text, i); control.length != 0) return control;
  }
  return std::nullopt;
}

/// `U+0085`: how messages name a code point.
inline std::string code_point_name(char32_t code_point) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string digits;
  for (auto c = static_cast<std::uint32_t>(code_point); c != 0 || digits.size() < 4; c >>= 4)
    digits.insert(digits.begin(), kHex[c & 0xf]);
  return "U+" + digits;
}

/// `text` as a JSON string literal for a message: each character find_line_control finds is
/// written as an escape (`\n`, `\u0085`, `\u2028`), so the message shows it rather than obeys
/// it, and a byte that is not UTF-8 as U+FFFD; other characters as they are.
inline std::string quoted_for_message(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    if (LineControl control = line_control_at(text, i); control.length != 0) {
      if (const char* escape = json_short_escape(control.code_point)) {
        out += escape;
      } else {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4)
          out += kHex[(control.code_point >> shift) & 0xf];
      }
      i += control.length;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    if (text[i] == '"' || text[i] == '\\') out += '\\';
    out.append(text.substr(i, length));
    i += length;
  }
  return out + "\"";
}

// Edit distance and did-you-mean: one rule for the host and plugins, in the plugin SDK.
using sdk::edit_distance;
using sdk::nearest_name;

}  // namespace zf::detail
