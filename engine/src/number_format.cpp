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
  std::string digits;  // no leading or trailing zeros, at least one digit
  int exponent = 0;    // value = 0.d1d2d3... * 10^(exponent+1), i.e. d1 is at 10^exponent
};

Decimal decompose(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view text(buf, static_cast<std::size_t>(result.ptr - buf));
  Decimal d;
  if (!text.empty() && text.front() == '-') {
    d.negative = true;
    text.remove_prefix(1);
  }
  auto e = text.find('e');
  std::string_view mantissa = text.substr(0, e);
  for (char c : mantissa) {
    if (c != '.') d.digits += c;
  }
  d.exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

void append_fixed(std::string& out, const Decimal& d) {
  if (d.exponent < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-d.exponent - 1), '0');
    out += d.digits;
    return;
  }
  auto integral = static_cast<std::size_t>(d.exponent) + 1;
  if (d.digits.size() <= integral) {
    out += d.digits;
    out.append(integral - d.digits.size(), '0');
    out += ".0";
  } else {
    out.append(d.digits, 0, integral);
    out += '.';
    out.append(d.digits, integral);
  }
}

void append_scientific(std::string& out, const Decimal& d, bool pad_exponent) {
  out += d.digits[0];
  if (d.digits.size() > 1) {
    out += '.';
    out.append(d.digits, 1);
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
