// SPDX-License-Identifier: MIT
// Python's str methods and str-to-number conversions on UTF-8 text, as the builtin filters and
// tests need them: lengths and slices count code points, case mapping is Unicode's full one
// (unicode_case.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "code_points.hpp"  // decode_utf8 and is_printable, shared with zf::Value
#include "text_helpers.hpp"

namespace zf::detail {

/// `len(s)`.
std::size_t code_point_count(std::string_view text);
/// `list(s)`: each code point as its own string view into `text`.
std::vector<std::string_view> split_code_points(std::string_view text);

/// Decodes `text` into code points (decode_utf8's rules) and encodes them back.
std::u32string to_code_points(std::string_view text);
std::string from_code_points(std::u32string_view points);

/// What Python's `re` matches with `\w` (a letter, digit or `_`) and `\d` (a decimal digit).
bool is_word_char(char32_t code_point);
bool is_decimal_char(char32_t code_point);
/// `str.isalpha()`, `isdecimal()`, `isdigit()`, `isnumeric()` for one code point (Python's
/// Unicode 14.0 data, generated/unicode_classes.inc). isdigit includes the decimals and
/// isnumeric both.
bool is_alpha(char32_t code_point);
bool is_decimal(char32_t code_point);
bool is_digit(char32_t code_point);
bool is_numeric(char32_t code_point);
/// What str.isidentifier() allows first (XID_Start and `_`) and after (XID_Continue).
bool is_identifier_start(char32_t code_point);
bool is_identifier_continue(char32_t code_point);

/// `str.isspace()` for one code point (also what `\s` matches in Python's `re`).
bool is_space(char32_t code_point);

std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);
/// `str.casefold()` and `str.swapcase()`.
std::string case_fold(std::string_view text);
std::string swap_case(std::string_view text);
/// `str.capitalize()`: the first code point upper case, the rest lower case.
std::string capitalize(std::string_view text);
/// Jinja2's `title` filter: words start after `-`, whitespace, `(`, `{`, `[` or `<`.
std::string title(std::string_view text);
/// `str.title()`: words start after any code point that has no case (`they're` -> `They'Re`).
std::string str_title(std::string_view text);
/// `str.islower()` / `str.isupper()`: at least one cased code point, and all of them lower
/// (upper) case.
bool is_lower(std::string_view text);
bool is_upper(std::string_view text);
/// `str.istitle()`.
bool is_title_case(std::string_view text);

/// `str.strip(chars)`; `chars == nullopt` strips whitespace.
std::string strip(std::string_view text, std::optional<std::string_view> chars);
/// `str.lstrip(chars)` (`right == false`), `str.rstrip(chars)` (`left == false`) or `strip`.
std::string strip(std::string_view text, std::optional<std::string_view> chars, bool left,
                  bool right);
/// `str.replace(old, new, count)`; a negative count replaces every occurrence.
std::string replace(std::string_view text, std::string_view old_text, std::string_view new_text,
                    std::int64_t count);
/// `str.center(width)`, with Python's choice of which side gets the odd space.
std::string center(std::string_view text, std::int64_t width);
/// `str.splitlines()` (without the line breaks), splitting on every break Python knows.
std::vector<std::string_view> split_lines(std::string_view text);
/// The number of matches of Python's `\w+` (see is_word_char).
std::size_t word_count(std::string_view text);

/// The result of parsing a number the way Python's `int(s, base)` or `float(s)` does.
enum class ParseStatus { Ok, Invalid, Overflow };

/// `int(text, base)`: surrounding whitespace, a sign, `_` between digits, and the `0x`/`0o`/`0b`
/// prefix matching the base (any prefix with base 0). Overflow means a valid integer that does
/// not fit in 64 bits.
ParseStatus parse_python_int(std::string_view text, std::int64_t base, std::int64_t& out);
/// `float(text)`: decimal or exponent notation with `_` between digits, `inf`, `infinity` and
/// `nan` in any case; out-of-range values become infinity or zero like Python's.
ParseStatus parse_python_float(std::string_view text, double& out);

}  // namespace zf::detail
