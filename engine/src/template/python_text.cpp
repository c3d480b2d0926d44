// SPDX-License-Identifier: MIT
// Python str methods on UTF-8 text and Python's int()/float() parsing of strings.
#include "template/limits.hpp"
#include "template/python_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace zf::detail {
namespace {

// Simple one-to-one case mappings for ASCII, Latin-1, basic Greek and Cyrillic. Python also
// maps the rest of Unicode and has one-to-many mappings (`ß` -> `SS`); those are left alone.
char32_t lower_of(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0xC0) return c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c == 0x178) return 0xFF;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

char32_t upper_of(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0xE0) return c;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}

bool is_cased_lower(char32_t c) { return upper_of(c) != c || c == 0xDF || c == 0x3C2; }
bool is_cased_upper(char32_t c) { return lower_of(c) != c; }

bool is_cased(char32_t c) { return is_cased_lower(c) || is_cased_upper(c); }

// The lower case of the code point `c` at byte `pos` of `text`. Python lowers a capital sigma
// to the final form ς at the end of a word: after a cased letter and not before one (Unicode's
// Final_Sigma rule, without skipping case-ignorable characters such as apostrophes).
char32_t lower_in(std::string_view text, char32_t c, std::size_t pos) {
  if (c != 0x3A3) return lower_of(c);
  bool after_cased = false;
  if (pos > 0) {
    std::size_t start = pos - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    char32_t previous;
    decode_utf8(text, start, previous);
    after_cased = is_cased(previous);
  }
  char32_t next = 0;
  std::size_t after = pos + decode_utf8(text, pos, next);
  bool before_cased = after < text.size() && (decode_utf8(text, after, next), is_cased(next));
  return after_cased && !before_cased ? 0x3C2 : 0x3C3;
}

// What a Map may return for ß, whose upper and title cases are two letters (Python's full case
// mapping; the only such expansion Latin text meets). Not code points: past U+10FFFF.
constexpr char32_t kSharpSUpper = 0x110000;  // "SS"
constexpr char32_t kSharpSTitle = 0x110001;  // "Ss"

// ß at the start of a word in upper case (Jinja2's `title` filter upper-cases the first
// letter) or title case (`capitalize`, `str.title()`); other code points as `case_of` maps them.
char32_t sharp_s_as(char32_t c, char32_t sharp_s, char32_t (*case_of)(char32_t)) {
  return c == 0xDF ? sharp_s : case_of(c);
}

template <typename Map>
std::string map_code_points(std::string_view text, Map map) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte < 0x80) {  // every mapping takes ASCII to ASCII: a byte in, a byte out
      out += static_cast<char>(map(char32_t{byte}, pos));
      ++pos;
      continue;
    }
    char32_t c;
    std::size_t n = decode_utf8(text, pos, c);
    char32_t mapped = map(c, pos);
    if (mapped == c) {
      out.append(text.substr(pos, n));  // keeps malformed bytes byte-for-byte
    } else if (mapped == kSharpSUpper || mapped == kSharpSTitle) {
      out += mapped == kSharpSUpper ? "SS" : "Ss";
    } else {
      append_utf8(out, mapped);
    }
    pos += n;
  }
  return out;
}

bool is_title_separator(char32_t c) {
  return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || is_space(c);
}

bool is_word(char32_t c) {
  if (c < 0x80) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  }
  if (is_space(c) || c < 0xA0) return false;
  if (c < 0xC0) {
    // Latin-1 punctuation and symbols, except the letters and numbers among them.
    return c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA ||
           (c >= 0xBC && c <= 0xBE);
  }
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x2BFF) return false;    // punctuation, currency, arrows, math, shapes
  if (c >= 0x3000 && c <= 0x303F) return false;    // CJK punctuation
  if (c >= 0xFE30 && c <= 0xFE4F) return false;    // CJK compatibility forms
  if (c >= 0xFF00 && c <= 0xFF0F) return false;    // fullwidth punctuation
  if (c >= 0x1F000 && c <= 0x1FAFF) return false;  // emoji and pictographs
  return true;
}

bool is_digit_in_base(char c, std::int64_t base, int& digit) {
  if (c >= '0' && c <= '9') {
    digit = c - '0';
  } else if (c >= 'a' && c <= 'z') {
    digit = c - 'a' + 10;
  } else if (c >= 'A' && c <= 'Z') {
    digit = c - 'A' + 10;
  } else {
    return false;
  }
  return digit < base;
}

std::string_view strip_spaces(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    char32_t c;
    std::size_t n = decode_utf8(text, begin, c);
    if (!is_space(c)) break;
    begin += n;
  }
  std::size_t end = text.size();
  while (end > begin) {
    std::size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    char32_t c;
    if (decode_utf8(text, start, c) != end - start || !is_space(c)) break;
    end = start;
  }
  return text.substr(begin, end - begin);
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (x != b[i]) return false;
  }
  return true;
}

// Removes the underscores Python allows between two digits; false if one is misplaced.
bool remove_digit_underscores(std::string_view digits, std::string& out) {
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (digits[i] != '_') {
      out += digits[i];
      continue;
    }
    bool digit_before = i > 0 && digits[i - 1] >= '0' && digits[i - 1] <= '9';
    bool digit_after = i + 1 < digits.size() && digits[i + 1] >= '0' && digits[i + 1] <= '9';
    if (!digit_before || !digit_after) return false;
  }
  return true;
}

}  // namespace

std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t& code_point) {
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

std::size_t code_point_count(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t pos = 0; pos < text.size(); ++count) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
  }
  return count;
}

std::vector<std::string_view> split_code_points(std::string_view text) {
  std::vector<std::string_view> out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    std::size_t n = decode_utf8(text, pos, c);
    out.push_back(text.substr(pos, n));
    pos += n;
  }
  return out;
}

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

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

std::string to_lower(std::string_view text) {
  return map_code_points(text,
                         [text](char32_t c, std::size_t pos) { return lower_in(text, c, pos); });
}

std::string to_upper(std::string_view text) {
  return map_code_points(
      text, [](char32_t c, std::size_t) { return sharp_s_as(c, kSharpSUpper, upper_of); });
}

std::string capitalize(std::string_view text) {
  return map_code_points(text, [text](char32_t c, std::size_t pos) {
    return pos == 0 ? sharp_s_as(c, kSharpSTitle, upper_of) : lower_in(text, c, pos);
  });
}

std::string title(std::string_view text) {
  bool word_start = true;
  return map_code_points(text, [&](char32_t c, std::size_t pos) {
    if (is_title_separator(c)) {
      word_start = true;
      return c;
    }
    char32_t mapped = word_start ? sharp_s_as(c, kSharpSUpper, upper_of) : lower_in(text, c, pos);
    word_start = false;
    return mapped;
  });
}

std::string str_title(std::string_view text) {
  bool after_cased = false;
  return map_code_points(text, [&](char32_t c, std::size_t pos) {
    char32_t mapped = after_cased ? lower_in(text, c, pos) : sharp_s_as(c, kSharpSTitle, upper_of);
    after_cased = is_cased(c);
    return mapped;
  });
}

bool is_lower(std::string_view text) {
  bool cased = false;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
    if (is_cased_upper(c)) return false;
    cased = cased || is_cased_lower(c);
  }
  return cased;
}

bool is_upper(std::string_view text) {
  bool cased = false;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
    if (is_cased_lower(c)) return false;
    cased = cased || is_cased_upper(c);
  }
  return cased;
}

std::string strip(std::string_view text, std::optional<std::string_view> chars) {
  if (!chars) return std::string(strip_spaces(text));
  return strip(text, chars, true, true);
}

std::string strip(std::string_view text, std::optional<std::string_view> chars, bool left,
                  bool right) {
  std::vector<std::string_view> set =
      chars ? split_code_points(*chars) : std::vector<std::string_view>{};
  auto strips = [&](std::string_view cp) {
    if (!chars) {
      char32_t c;
      decode_utf8(cp, 0, c);
      return is_space(c);
    }
    for (auto member : set) {
      if (member == cp) return true;
    }
    return false;
  };
  std::vector<std::string_view> points = split_code_points(text);
  std::size_t begin = 0, end = points.size();
  while (left && begin < end && strips(points[begin])) ++begin;
  while (right && end > begin && strips(points[end - 1])) --end;
  std::string out;
  for (std::size_t i = begin; i < end; ++i) out.append(points[i]);
  return out;
}

std::string replace(std::string_view text, std::string_view old_text, std::string_view new_text,
                    std::int64_t count) {
  std::string out;
  std::int64_t done = 0;
  auto more = [&] { return count < 0 || done < count; };
  if (old_text.empty()) {
    // Python inserts the replacement before every code point and once at the end.
    for (auto cp : split_code_points(text)) {
      if (more()) {
        out.append(new_text);
        ++done;
      }
      out.append(cp);
      check_value_size(out.size(), "replace");
    }
    if (more()) out.append(new_text);
    return out;
  }
  std::size_t pos = 0;
  while (more()) {
    std::size_t hit = text.find(old_text, pos);
    if (hit == std::string_view::npos) break;
    out.append(text.substr(pos, hit - pos));
    out.append(new_text);
    check_value_size(out.size(), "replace");
    pos = hit + old_text.size();
    ++done;
  }
  out.append(text.substr(pos));
  return out;
}

std::string center(std::string_view text, std::int64_t width) {
  auto length = static_cast<std::int64_t>(code_point_count(text));
  if (width <= length) return std::string(text);
  check_value_size(static_cast<std::uint64_t>(width), "center");
  std::int64_t margin = width - length;
  // CPython's rule for which side gets the extra space when the margin is odd.
  std::int64_t left = margin / 2 + (margin & width & 1);
  std::string out(static_cast<std::size_t>(left), ' ');
  out.append(text);
  out.append(static_cast<std::size_t>(margin - left), ' ');
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    std::size_t n = decode_utf8(text, pos, c);
    bool is_break = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
                    c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!is_break) {
      pos += n;
      continue;
    }
    lines.push_back(text.substr(start, pos - start));
    pos += n;
    if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
    start = pos;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::size_t word_count(std::string_view text) {
  std::size_t count = 0;
  bool in_word = false;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
    bool word = is_word(c);
    if (word && !in_word) ++count;
    in_word = word;
  }
  return count;
}

ParseStatus parse_python_int(std::string_view text, std::int64_t base, std::int64_t& out) {
  if (base != 0 && (base < 2 || base > 36)) return ParseStatus::Invalid;
  std::string_view s = strip_spaces(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  bool prefixed = false;
  if (s.size() >= 2 && s[0] == '0') {
    char p = static_cast<char>(s[1] | 0x20);
    std::int64_t prefix_base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (prefix_base != 0 && (base == 0 || base == prefix_base)) {
      base = prefix_base;
      prefixed = true;
      s.remove_prefix(2);
    }
  }
  if (base == 0) {
    // Without a prefix base 0 means decimal, where leading zeros are only allowed in zero.
    base = 10;
    bool nonzero = false, leading_zero = !s.empty() && s[0] == '0';
    for (char c : s) nonzero = nonzero || (c != '0' && c != '_');
    if (leading_zero && nonzero) return ParseStatus::Invalid;
  }
  if (s.empty()) return ParseStatus::Invalid;
  // After a prefix one underscore may come first (`0x_1f`); otherwise only between digits.
  if (prefixed && s[0] == '_') s.remove_prefix(1);
  std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t value = 0;
  bool overflow = false, previous_digit = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    int digit;
    if (s[i] == '_') {
      if (!previous_digit || i + 1 == s.size()) return ParseStatus::Invalid;
      previous_digit = false;
      continue;
    }
    if (!is_digit_in_base(s[i], base, digit)) return ParseStatus::Invalid;
    previous_digit = true;
    auto b = static_cast<std::uint64_t>(base);
    if (!overflow && (value > (limit - static_cast<std::uint64_t>(digit)) / b)) overflow = true;
    if (!overflow) value = value * b + static_cast<std::uint64_t>(digit);
  }
  if (overflow) return ParseStatus::Overflow;
  out = negative ? static_cast<std::int64_t>(0 - value) : static_cast<std::int64_t>(value);
  return ParseStatus::Ok;
}

ParseStatus parse_python_float(std::string_view text, double& out) {
  std::string_view s = strip_spaces(text);
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (equals_ignore_case(body, "inf") || equals_ignore_case(body, "infinity")) {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return ParseStatus::Ok;
  }
  if (equals_ignore_case(body, "nan")) {
    out = std::numeric_limits<double>::quiet_NaN();
    return ParseStatus::Ok;
  }
  // Validate the grammar ourselves: digits [. digits] [e [sign] digits], with at least one
  // mantissa digit; from_chars alone would accept hex floats and stop at junk.
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < body.size() && ((body[i] >= '0' && body[i] <= '9') || body[i] == '_')) ++i;
    return body.substr(start, i - start);
  };
  std::string clean = negative ? "-" : "";
  std::string_view integral = digits();
  if (!remove_digit_underscores(integral, clean)) return ParseStatus::Invalid;
  std::string_view fraction;
  if (i < body.size() && body[i] == '.') {
    ++i;
    fraction = digits();
    clean += '.';
    if (!remove_digit_underscores(fraction, clean)) return ParseStatus::Invalid;
  }
  if (integral.empty() && fraction.empty()) return ParseStatus::Invalid;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    clean += 'e';
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) clean += body[i++];
    std::string_view exponent = digits();
    if (exponent.empty() || !remove_digit_underscores(exponent, clean)) {
      return ParseStatus::Invalid;
    }
  }
  if (i != body.size()) return ParseStatus::Invalid;
  auto result = std::from_chars(clean.data(), clean.data() + clean.size(), out);
  if (result.ec == std::errc::result_out_of_range) {
    // from_chars leaves the value alone; strtod gives Python's answer (inf or 0).
    out = std::strtod(clean.c_str(), nullptr);
  } else if (result.ec != std::errc() || result.ptr != clean.data() + clean.size()) {
    return ParseStatus::Invalid;
  }
  return ParseStatus::Ok;
}

}  // namespace zf::detail
