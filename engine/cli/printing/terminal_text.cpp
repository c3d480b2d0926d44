// SPDX-License-Identifier: MIT
// terminal_text and caret_line: text decoded as UTF-8 one unit at a time (a valid sequence, or
// one byte that is not part of one), each unit shown as itself or escaped.
#include "terminal_text.hpp"

#include <cstdio>

namespace zf::cli {
namespace {

// One unit of text: a valid UTF-8 sequence and its code point, or a single stray byte.
struct Unit {
  std::size_t size = 1;
  char32_t code = 0;
  bool valid = false;
};

Unit next_unit(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {1, lead, true};
  std::size_t size = 0;
  char32_t code = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    size = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    size = 3;
    code = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    size = 4;
    code = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return {1, lead, false};
  }
  if (at + size > text.size()) return {1, lead, false};
  for (std::size_t i = 1; i < size; ++i) {
    const unsigned char b = byte(i);
    if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) return {1, lead, false};
    code = (code << 6) | (b & 0x3F);
  }
  return {size, code, true};
}

bool is_control(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// Appends how `unit` (at `at` in `text`) is shown; returns the columns that takes.
std::size_t show(std::string& out, std::string_view text, std::size_t at, const Unit& unit,
                 bool keep_tabs) {
  char code[16];
  if (!unit.valid) {
    std::snprintf(code, sizeof code, "<%02X>", static_cast<unsigned>(unit.code));
  } else if (is_control(unit.code) && !(keep_tabs && unit.code == '\t')) {
    std::snprintf(code, sizeof code, "<U+%04X>", static_cast<unsigned>(unit.code));
  } else {
    out.append(text.substr(at, unit.size));
    return 1;
  }
  out += code;
  return std::char_traits<char>::length(code);
}

}  // namespace

std::string terminal_text(std::string_view text, bool keep_tabs) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const Unit unit = next_unit(text, at);
    show(out, text, at, unit, keep_tabs);
    at += unit.size;
  }
  return out;
}

std::string caret_line(std::string_view line, std::size_t column) {
  std::string out;
  std::size_t at = 0;
  // zf::Error counts a column for every byte that does not continue a UTF-8 sequence.
  for (std::size_t col = 1; col < column && at < line.size();) {
    const Unit unit = next_unit(line, at);
    std::string shown;
    const std::size_t width = show(shown, line, at, unit, true);
    out.append(shown == "\t" ? "\t" : std::string(width, ' '));
    if (unit.valid || (static_cast<unsigned char>(line[at]) & 0xC0) != 0x80) ++col;
    at += unit.size;
  }
  return out + "^";
}

}  // namespace zf::cli
