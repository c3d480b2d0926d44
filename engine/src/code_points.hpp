// SPDX-License-Identifier: MIT
// Code points of UTF-8 text, below the value type: decoding and Python's printable test, which
// Value::repr (value.cpp) and the template engine's str methods (template/python_text.hpp) share.
#pragma once

#include <cstddef>
#include <string_view>

namespace zf::detail {

/// Decodes the code point at `pos` and returns the length of its UTF-8 sequence. A byte that
/// does not start a valid sequence counts as one code point (its own value), so malformed
/// input never loops or throws. Inline: the str methods call it once per code point.
inline std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t& code_point) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  code_point = lead;
  if (lead < 0x80) return 1;
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || pos + length > text.size()) return 1;
  char32_t value = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return 1;
    value = (value << 6) | (byte(pos + i) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
  if ((length == 3 && value < 0x800) || (length == 4 && (value < 0x10000 || value > 0x10FFFF)) ||
      (value >= 0xD800 && value <= 0xDFFF)) {
    return 1;
  }
  code_point = value;
  return length;
}

/// `str.isprintable()` for one code point, which decides what `repr()` escapes: false for
/// controls, format characters, private use and separators other than ' '. Unassigned code
/// points (also not printable in Python) are treated as printable.
bool is_printable(char32_t code_point);

}  // namespace zf::detail
