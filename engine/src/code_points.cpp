// SPDX-License-Identifier: MIT
// is_printable (code_points.hpp): Python's str.isprintable() for one code point.
#include "code_points.hpp"

namespace zf::detail {

bool is_printable(char32_t c) {
  if (c < 0x7F) return c >= 0x20;
  if (c <= 0xA0 || c == 0xAD) return false;
  if (c < 0x600) return true;
  return !((c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x180E || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
           (c >= 0x205F && c <= 0x206F) || c == 0x3000 || (c >= 0xD800 && c <= 0xF8FF) ||
           c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0xE0000 && c <= 0xE00FF) ||
           c >= 0xF0000);
}

}  // namespace zf::detail
