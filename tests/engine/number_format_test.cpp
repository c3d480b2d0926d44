// SPDX-License-Identifier: MIT
// Float printing: the short-decimal fast path must give exactly what the general shortest
// round-trip search gives, in both styles. The reference here formats std::to_chars' shortest
// scientific digits by the documented rules; the cases cover short config-style decimals,
// 15/16/17-digit values, powers of ten, boundaries of the fast path and random bit patterns.
#include "number_format.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace zf::detail {
namespace {

// Shortest digits and decimal exponent of the first digit, from the standard library.
void shortest(double value, std::string& digits, int& exponent) {
  char buf[64];
  auto end =
      std::to_chars(buf, buf + sizeof buf, std::fabs(value), std::chars_format::scientific).ptr;
  std::string text(buf, end);
  auto e = text.find('e');
  digits.clear();
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  exponent = std::stoi(text.substr(e + 1));
}

std::string reference(double value, bool python) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string digits;
  int exponent = 0;
  shortest(value, digits, exponent);
  std::string out = std::signbit(value) ? "-" : "";
  int fixed_limit = python ? 16 : 21;
  if (exponent >= -4 && exponent < fixed_limit) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else if (digits.size() <= static_cast<std::size_t>(exponent) + 1) {
      out +=
          digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
             digits.substr(static_cast<std::size_t>(exponent) + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += 'e';
  int e = exponent;
  if (e < 0) {
    out += '-';
    e = -e;
  } else if (python) {
    out += '+';
  }
  if (python && e < 10) out += '0';
  return out + std::to_string(e);
}

void expect_both(double value) {
  std::string python, json;
  append_python_float(python, value);
  ASSERT_EQ(python, reference(value, true)) << "python style, bits of " << reference(value, true);
  if (!std::isfinite(value)) return;
  append_json_float(json, value);
  ASSERT_EQ(json, reference(value, false)) << "json style";
}

TEST(NumberFormatTest, ShortDecimalsAndTheirNeighboursPrintAsTheShortestRoundTrip) {
  std::vector<double> values = {0.1,
                                0.2,
                                0.3,
                                1.5,
                                0.0002,
                                3e-4,
                                1e-8,
                                1e-10,
                                0.999,
                                0.9,
                                0.01,
                                2e-5,
                                5e-5,
                                1.0000000000000002,
                                0.30000000000000004,
                                123456789.123,
                                1e-4,
                                9.999e-5,
                                0.1 + 0.2,
                                1.0 / 3.0,
                                2.0 / 3.0,
                                3.141592653589793,
                                2.718281828459045,
                                999999999999999.9,
                                99999999999999.99,
                                123456789012345.6,
                                1e15 - 0.5,
                                1e-10,
                                9.99999999e-11,
                                1.7976931348623157e308,
                                5e-324,
                                std::numeric_limits<double>::infinity(),
                                std::nan("")};
  for (double v : values) {
    expect_both(v);
    expect_both(-v);
    expect_both(std::nextafter(v, 0.0));
    expect_both(std::nextafter(v, 1e300));
  }
  for (int digits = 1; digits <= 17; ++digits) {  // 0.1, 0.12, ... and 0.9, 0.99, ...
    for (int exponent = -12; exponent <= 16; ++exponent) {
      double a = std::stod(
          std::string("0.123456789012345678").substr(0, 2 + static_cast<std::size_t>(digits)) +
          "e" + std::to_string(exponent));
      double b = std::stod("0." + std::string(static_cast<std::size_t>(digits), '9') + "e" +
                           std::to_string(exponent));
      expect_both(a);
      expect_both(b);
    }
  }
}

TEST(NumberFormatTest, RandomValuesPrintAsTheShortestRoundTrip) {
  std::mt19937_64 random(42);  // fixed seed: the same values every run
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    expect_both(v);
    // And short decimals in the ranges configs use: k / 10^p.
    double k = static_cast<double>(random() % 100000000);
    double p = std::pow(10.0, static_cast<double>(random() % 20));
    expect_both(k / p);
  }
}

}  // namespace
}  // namespace zf::detail
