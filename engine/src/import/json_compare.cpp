// SPDX-License-Identifier: MIT
// JSON comparison for import (see json_compare.hpp).
#include "import/json_compare.hpp"

#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

using Json = nlohmann::ordered_json;

// long double holds every 64-bit integer exactly on the platforms zeroforge builds for, so an
// integer and a float compare by value without rounding the integer.
long double as_number(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<std::uint64_t>());
  if (v.is_number_integer()) return static_cast<long double>(v.get<std::int64_t>());
  return static_cast<long double>(v.get<double>());
}

bool same_number(const Json& a, const Json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    // Both integers: exact, also where one is unsigned and beyond int64.
    if (a.is_number_unsigned() != b.is_number_unsigned()) return as_number(a) == as_number(b);
    return a == b;
  }
  return as_number(a) == as_number(b);
}

}  // namespace

bool same_json(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return same_number(a, b);
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      auto it = b.find(key);
      if (it == b.end() || !same_json(value, *it)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_json(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

std::vector<std::string> json_differences(const Json& a, const Json& b,
                                          const std::string& pointer) {
  std::vector<std::string> out;
  if (!a.is_object() || !b.is_object()) {
    if (!same_json(a, b)) out.push_back(pointer);
    return out;
  }
  for (const auto& [key, value] : a.items()) {
    const std::string at = pointer + "/" + escape_pointer_segment(key);
    auto it = b.find(key);
    if (it == b.end()) {
      out.push_back(at);
      continue;
    }
    auto below = json_differences(value, *it, at);
    out.insert(out.end(), below.begin(), below.end());
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) out.push_back(pointer + "/" + escape_pointer_segment(key));
  }
  return out;
}

}  // namespace zf::importer
