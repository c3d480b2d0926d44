// SPDX-License-Identifier: MIT
// Python str methods on UTF-8 text and Python's int()/float() parsing of strings.
#include "template/python_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>

#include "template/limits.hpp"
#include "template/unicode_case.hpp"

namespace zf::detail {
namespace {

// A code point of `text` for the case functions: decoded, with the byte length, and a flag for
// a byte that starts no valid sequence (copied through unchanged, never case-mapped).
struct Point {
  char32_t c;
  std::size_t pos, size;
  bool malformed;
};

std::vector<Point> points_of(std::string_view text) {
  std::vector<Point> out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    std::size_t n = decode_utf8(text, pos, c);
    bool malformed = n == 1 && static_cast<unsigned char>(text[pos]) >= 0x80;
    out.push_back({c, pos, n, malformed});
    pos += n;
  }
  return out;
}

char ascii_lower(char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch; }
char ascii_upper(char ch) { return ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 32) : ch; }

// Python's lower() of points[i] within points[first, last): a capital sigma becomes the final
// form when a cased letter precedes it and none follows, skipping case-ignorable code points
// both ways (CPython's handle_capital_sigma).
void append_lower_at(std::string& out, const std::vector<Point>& points, std::size_t first,
                     std::size_t last, std::size_t i, std::string_view text) {
  const Point& p = points[i];
  if (p.malformed) {
    out.append(text.substr(p.pos, p.size));
    return;
  }
  if (p.c != 0x3A3) {
    append_lower(out, p.c);
    return;
  }
  std::size_t j = i;
  while (j > first && is_case_ignorable(points[j - 1].c)) --j;
  bool final_sigma = j > first && is_cased(points[j - 1].c);
  if (final_sigma) {
    std::size_t k = i + 1;
    while (k < last && is_case_ignorable(points[k].c)) ++k;
    final_sigma = k == last || !is_cased(points[k].c);
  }
  append_utf8(out, final_sigma ? 0x3C2 : 0x3C3);
}

// Appends one point mapped by `map` (append_upper, append_title, append_fold), or its bytes.
void append_mapped(std::string& out, const Point& p, std::string_view text,
                   void (*map)(std::string&, char32_t)) {
  if (p.malformed) {
    out.append(text.substr(p.pos, p.size));
  } else {
    map(out, p.c);
  }
}

bool is_title_separator(char32_t c) {
  return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || is_space(c);
}

struct CodePointRange {
  char32_t first, last;
};

#include "template/generated/unicode_classes.inc"

template <std::size_t N>
bool in_ranges(const CodePointRange (&ranges)[N], char32_t c) {
  auto it = std::upper_bound(std::begin(ranges), std::end(ranges), c,
                             [](char32_t x, const CodePointRange& r) { return x < r.first; });
  return it != std::begin(ranges) && c <= std::prev(it)->last;
}

// Python's `\w`: `_` and every code point for which str.isalnum() holds.
bool is_word(char32_t c) {
  if (c < 0x80) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  }
  return is_alpha(c) || is_numeric(c);
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

std::u32string to_code_points(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c;
    pos += decode_utf8(text, pos, c);
    out += c;
  }
  return out;
}

std::string from_code_points(std::u32string_view points) {
  std::string out;
  out.reserve(points.size());
  for (char32_t c : points) append_utf8(out, c);
  return out;
}

bool is_word_char(char32_t c) { return is_word(c); }

bool is_decimal_char(char32_t c) { return is_decimal(c); }

bool is_alpha(char32_t c) { return in_ranges(kAlphaRanges, c); }
bool is_decimal(char32_t c) { return in_ranges(kDecimalRanges, c); }
bool is_digit(char32_t c) { return in_ranges(kDigitRanges, c); }
bool is_numeric(char32_t c) { return in_ranges(kNumericRanges, c); }
bool is_identifier_start(char32_t c) { return in_ranges(kIdentifierStartRanges, c); }
bool is_identifier_continue(char32_t c) { return in_ranges(kIdentifierContinueRanges, c); }

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

std::string to_lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // ASCII text (most of what templates lower-case) in one pass; the first other byte starts
  // the Unicode path over.
  for (char ch : text) {
    if (static_cast<unsigned char>(ch) >= 0x80) {
      out.clear();
      break;
    }
    out += ascii_lower(ch);
  }
  if (out.size() == text.size()) return out;
  auto points = points_of(text);
  for (std::size_t i = 0; i < points.size(); ++i)
    append_lower_at(out, points, 0, points.size(), i, text);
  return out;
}

std::string to_upper(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {  // as to_lower: ASCII in one pass
    if (static_cast<unsigned char>(ch) >= 0x80) {
      out.clear();
      break;
    }
    out += ascii_upper(ch);
  }
  if (out.size() == text.size()) return out;
  for (const Point& p : points_of(text)) append_mapped(out, p, text, append_upper);
  return out;
}

std::string case_fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const Point& p : points_of(text)) append_mapped(out, p, text, append_fold);
  return out;
}

std::string swap_case(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto points = points_of(text);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (!p.malformed && is_uppercase(p.c)) {
      append_lower_at(out, points, 0, points.size(), i, text);
    } else if (!p.malformed && is_lowercase(p.c)) {
      append_upper(out, p.c);
    } else {
      out.append(text.substr(p.pos, p.size));
    }
  }
  return out;
}

std::string capitalize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto points = points_of(text);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i == 0) {
      append_mapped(out, points[0], text, append_title);
    } else {
      append_lower_at(out, points, 0, points.size(), i, text);
    }
  }
  return out;
}

std::string title(std::string_view text) {
  // Jinja2 splits on runs of `-`, whitespace and opening brackets, and joins
  // `item[0].upper() + item[1:].lower()` for every piece (separator runs included), so the
  // lower-casing of a word sees only the rest of that word.
  std::string out;
  out.reserve(text.size());
  auto points = points_of(text);
  for (std::size_t start = 0; start < points.size();) {
    bool separator = is_title_separator(points[start].c);
    std::size_t end = start;
    while (end < points.size() && is_title_separator(points[end].c) == separator) ++end;
    append_mapped(out, points[start], text, append_upper);
    for (std::size_t i = start + 1; i < end; ++i)
      append_lower_at(out, points, start + 1, end, i, text);
    start = end;
  }
  return out;
}

std::string str_title(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto points = points_of(text);
  bool after_cased = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (after_cased) {
      append_lower_at(out, points, 0, points.size(), i, text);
    } else {
      append_mapped(out, points[i], text, append_title);
    }
    after_cased = !points[i].malformed && is_cased(points[i].c);
  }
  return out;
}

bool is_lower(std::string_view text) {
  bool cased = false;
  for (const Point& p : points_of(text)) {
    if (is_uppercase(p.c) || is_titlecase(p.c)) return false;
    cased = cased || is_lowercase(p.c);
  }
  return cased;
}

bool is_upper(std::string_view text) {
  bool cased = false;
  for (const Point& p : points_of(text)) {
    if (is_lowercase(p.c) || is_titlecase(p.c)) return false;
    cased = cased || is_uppercase(p.c);
  }
  return cased;
}

bool is_title_case(std::string_view text) {
  bool cased = false, previous_cased = false;
  for (const Point& p : points_of(text)) {
    if (is_uppercase(p.c) || is_titlecase(p.c)) {
      if (previous_cased) return false;
      previous_cased = cased = true;
    } else if (is_lowercase(p.c)) {
      if (!previous_cased) return false;
      previous_cased = cased = true;
    } else {
      previous_cased = false;
    }
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
  // Code point by code point from each end, without splitting the whole text: the template
  // strips a whole captured config (`body.rstrip().rstrip(",")`) once per render, and splitting
  // it cost a vector of views of its size. From the left, decoding is exact as it goes; from the
  // right, the code point ending at `end` starts at the last lead byte, unless the text is not
  // valid UTF-8 there, where the points are taken as the forward split takes them.
  std::size_t begin = 0, end = text.size();
  while (left && begin < end) {
    char32_t c;
    std::size_t n = decode_utf8(text, begin, c);
    if (!strips(text.substr(begin, n))) break;
    begin += n;
  }
  while (right && end > begin) {
    std::size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    char32_t c;
    if (decode_utf8(text, start, c) != end - start) {
      std::vector<std::string_view> points = split_code_points(text.substr(begin, end - begin));
      std::size_t kept = points.size();
      while (kept > 0 && strips(points[kept - 1])) end -= points[--kept].size();
      break;
    }
    if (!strips(text.substr(start, end - start))) break;
    end = start;
  }
  return std::string(text.substr(begin, end - begin));
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
