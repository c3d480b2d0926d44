// SPDX-License-Identifier: MIT
// Shortest round-trip float formatting in Python's and in zeroforge's JSON style.
#include "number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

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
    double product = magnitude * kPow10[p];
    if (product >= 1e15) return false;
    // Rounded by conversion, not nearbyint (a library call): the two differ only on a tie,
    // and at a tie no integer is the decimal (the product is exact to well under 0.5 here).
    auto rounded = static_cast<long long>(product + 0.5);
    auto scaled = static_cast<double>(rounded);
    if (scaled >= 1e15) return false;
    if (rounded == 0 || scaled / kPow10[p] != magnitude) continue;
    char buf[24];
    auto result = std::to_chars(buf, buf + sizeof buf, rounded);
    auto count = static_cast<std::size_t>(result.ptr - buf);
    d.negative = std::signbit(value);
    d.size = count;
    for (std::size_t i = 0; i < count; ++i) d.digits[i] = buf[i];
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

void append_fixed(std::string& out, const Decimal& d) {
  std::string_view digits = d.text();
  if (d.exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-d.exponent - 1), '0');
    out += digits;
    return;
  }
  auto integral = static_cast<std::size_t>(d.exponent) + 1;
  if (digits.size() <= integral) {
    out += digits;
    out.append(integral - digits.size(), '0');
    out += ".0";
  } else {
    out += digits.substr(0, integral);
    out += '.';
    out += digits.substr(integral);
  }
}

void append_scientific(std::string& out, const Decimal& d, bool pad_exponent) {
  out += d.digits[0];
  if (d.size > 1) {
    out += '.';
    out += d.text().substr(1);
  }
  out += 'e';
  int exponent = d.exponent;
  if (exponent < 0) {
    out += '-';
    exponent = -exponent;
  } else if (pad_exponent) {
    out += '+';
  }
  if (pad_exponent && exponent < 10) out += '0';
  out += std::to_string(exponent);
}

// Integral values below 1e16 print as their integer digits plus ".0" in both styles; this
// skips the shortest-digits search for the bucket sizes and thresholds templates print most.
bool append_small_integral(std::string& out, double value) {
  if (!(std::fabs(value) < 1e16) || std::trunc(value) != value) return false;
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
  if (std::signbit(value) && value == 0) out += '-';
  out.append(buf, result.ptr);
  out += ".0";
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
  Decimal d = decompose(value);
  if (d.negative) out += '-';
  if (d.exponent >= -4 && d.exponent < 16) {
    append_fixed(out, d);
  } else {
    append_scientific(out, d, true);
  }
}

void append_json_float(std::string& out, double value) {
  if (std::isfinite(value) && append_small_integral(out, value)) return;
  Decimal d = decompose(value);
  if (d.negative) out += '-';
  if (d.exponent >= -4 && d.exponent < 21) {
    append_fixed(out, d);
  } else {
    append_scientific(out, d, false);
  }
}

}  // namespace zf::detail
