// SPDX-License-Identifier: MIT
// shortest_floats: a scan of JSON text that skips strings and re-prints float literals with
// std::to_chars's shortest round-trip digits in zeroforge's notation.
#include "json_floats.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace zf::memory {
namespace {

// `value` as append_json_float writes it.
std::string json_float(double value) {
  char buf[64];
  auto end = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific).ptr;
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  std::string out;
  if (!text.empty() && text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const std::size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  if (exponent >= -4 && exponent < 21) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else {
      const auto integral = static_cast<std::size_t>(exponent) + 1;
      if (digits.size() <= integral) {
        out += digits + std::string(integral - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, integral) + "." + digits.substr(integral);
      }
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += "e" + std::to_string(exponent);
  }
  return out;
}

bool number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

}  // namespace

std::string shortest_floats(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {  // a string, escapes and all, copied as it is
      std::size_t j = i + 1;
      while (j < json.size() && json[j] != '"') j += json[j] == '\\' ? 2 : 1;
      out.append(json, i, j + 1 - i);
      i = j + 1;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i;
      while (j < json.size() && number_char(json[j])) ++j;
      const std::string literal = json.substr(i, j - i);
      if (literal.find_first_of(".eE") == std::string::npos) {
        out += literal;  // an integer
      } else {
        double value = 0;
        auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
        out += error == std::errc() && end == literal.data() + literal.size() ? json_float(value)
                                                                              : literal;
      }
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace zf::memory
