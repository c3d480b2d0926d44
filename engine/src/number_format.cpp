// SPDX-License-Identifier: MIT
// Shortest round-trip float formatting in Python's and in zeroforge's JSON style.
#include "number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace zf::detail {
namespace {

// The shortest digits that round-trip, and the decimal exponent of the first digit.
struct Decimal {
  bool negative = false;
  char digits[24];       // no leading or trailing zeros, at least one digit
  std::size_t size = 0;  // of digits
  int exponent = 0;      // d1 is at 10^exponent
  std::string_view text() const { return {digits, size}; }
};

// Config values are mostly short decimals (0.0002, 1e-08, 0.999): find the fewest decimals p
// for which an integer m of at most 15 digits makes m / 10^p the same double (the division of
// two exact doubles is correctly rounded, so this is exactly "the decimal reads back as the
// value"). Decimals of at most 15 significant digits map to distinct doubles (DBL_DIG), so
// such an m is unique at its p, the rounded product finds it, and no shorter decimal exists at
// a smaller p: m's digits are the shortest round-trip representation. Values that need 16 or
// 17 digits take the general search.
bool decompose_short(double value, Decimal& d) {
  static constexpr double kPow10[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                      1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
  double magnitude = std::fabs(value);
  if (!(magnitude >= 1e-10 && magnitude < 1e15)) return false;
  for (int p = 0; p < 18; ++p) {
    const double x = magnitude * kPow10[p];
    if (x < 0.5) continue;  // m would be 0
    if (x >= 1e15) return false;
    // m = x rounded half up: x + 0.5 is exact below 2^50. Only an exact half differs from
    // round-half-even, and then neither neighbour can read back as the value (it would
    // have to lie within a quarter of x), so both roundings find the same m.
    const auto m = static_cast<long long>(x + 0.5);  // NOLINT(bugprone-incorrect-roundings)
    const auto scaled = static_cast<double>(m);
    if (scaled >= 1e15) return false;
    if (scaled / kPow10[p] != magnitude) continue;
    auto result = std::to_chars(d.digits, d.digits + sizeof d.digits, m);
    auto count = static_cast<std::size_t>(result.ptr - d.digits);
    d.negative = std::signbit(value);
    d.size = count;
    d.exponent = static_cast<int>(count) - 1 - p;
    while (d.size > 1 && d.digits[d.size - 1] == '0') --d.size;
    return true;
  }
  return false;
}

Decimal decompose(double value) {
  if (Decimal d; decompose_short(value, d)) return d;
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const char* p = buf;
  Decimal d;
  if (*p == '-') {
    d.negative = true;
    ++p;
  }
  for (; p < result.ptr && *p != 'e'; ++p) {
    if (*p != '.') d.digits[d.size++] = *p;
  }
  ++p;  // 'e'
  bool negative_exponent = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  int exponent = 0;
  std::from_chars(p, result.ptr, exponent);
  d.exponent = negative_exponent ? -exponent : exponent;
  while (d.size > 1 && d.digits[d.size - 1] == '0') --d.size;
  return d;
}

// The characters of one number, built on the stack and appended to the output in one go.
struct NumberText {
  char chars[64];  // the longest form, JSON's fixed notation below 1e21, takes 24
  std::size_t size = 0;

  void put(char c) { chars[size++] = c; }
  void put(std::string_view text) {
    std::memcpy(chars + size, text.data(), text.size());
    size += text.size();
  }
  void put_zeros(std::size_t count) {
    std::memset(chars + size, '0', count);
    size += count;
  }
};

void put_fixed(NumberText& text, const Decimal& d) {
  std::string_view digits = d.text();
  if (d.exponent < 0) {
    text.put("0.");
    text.put_zeros(static_cast<std::size_t>(-d.exponent - 1));
    text.put(digits);
    return;
  }
  auto integral = static_cast<std::size_t>(d.exponent) + 1;
  if (digits.size() <= integral) {
    text.put(digits);
    text.put_zeros(integral - digits.size());
    text.put(".0");
  } else {
    text.put(digits.substr(0, integral));
    text.put('.');
    text.put(digits.substr(integral));
  }
}

void put_scientific(NumberText& text, const Decimal& d, bool pad_exponent) {
  text.put(d.digits[0]);
  if (d.size > 1) {
    text.put('.');
    text.put(d.text().substr(1));
  }
  text.put('e');
  int exponent = d.exponent;
  if (exponent < 0) {
    text.put('-');
    exponent = -exponent;
  } else if (pad_exponent) {
    text.put('+');
  }
  if (pad_exponent && exponent < 10) text.put('0');
  text.size = static_cast<std::size_t>(
      std::to_chars(text.chars + text.size, text.chars + sizeof text.chars, exponent).ptr -
      text.chars);
}

// The shortest round-trip digits of `value` in fixed notation for decimal exponents in
// [-4, fixed_limit), else in scientific notation (`pad_exponent`: Python's `e+05`).
void append_decimal(std::string& out, double value, int fixed_limit, bool pad_exponent) {
  Decimal d = decompose(value);
  NumberText text;
  if (d.negative) text.put('-');
  if (d.exponent >= -4 && d.exponent < fixed_limit) {
    put_fixed(text, d);
  } else {
    put_scientific(text, d, pad_exponent);
  }
  out.append(text.chars, text.size);
}

// Integral values below 1e16 print as their integer digits plus ".0" in both styles; this
// skips the shortest-digits search for the bucket sizes and thresholds templates print most.
bool append_small_integral(std::string& out, double value) {
  if (!(std::fabs(value) < 1e16)) return false;
  const auto integer = static_cast<long long>(value);  // in range: |value| < 1e16
  if (static_cast<double>(integer) != value) return false;
  char buf[24];
  char* end = buf;
  if (std::signbit(value) && value == 0) *end++ = '-';
  end = std::to_chars(end, buf + sizeof buf, integer).ptr;
  *end++ = '.';
  *end++ = '0';
  out.append(buf, static_cast<std::size_t>(end - buf));
  return true;
}

}  // namespace

void append_python_float(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  if (append_small_integral(out, value)) return;
  append_decimal(out, value, 16, true);
}

void append_json_float(std::string& out, double value) {
  if (std::isfinite(value) && append_small_integral(out, value)) return;
  append_decimal(out, value, 21, false);
}

}  // namespace zf::detail
