// SPDX-License-Identifier: MIT
// JSON comparison for import (see json_compare.hpp).
#include "import/json_compare.hpp"

#include "json_members.hpp"
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
    // Side by side while the keys come in the same order (the usual case), then by an index
    // of b's keys: ordered_json's find is linear, so a find per key was quadratic.
    auto ia = a.begin(), ib = b.begin();
    for (; ia != a.end() && ia.key() == ib.key(); ++ia, ++ib) {
      if (!same_json(ia.value(), ib.value())) return false;
    }
    if (ia == a.end()) return true;
    const detail::MemberIndex index(b, a.size());
    for (; ia != a.end(); ++ia) {
      const Json* other = index.find(ia.key());
      if (other == nullptr || !same_json(ia.value(), *other)) return false;
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

namespace {

void differences(const Json& a, const Json& b, std::string& pointer,
                 std::vector<std::string>& out) {
  if (!a.is_object() || !b.is_object()) {
    if (!same_json(a, b)) out.push_back(pointer);
    return;
  }
  const std::size_t length = pointer.size();
  const detail::MemberIndex in_b(b, a.size()), in_a(a, b.size());
  for (const auto& [key, value] : a.items()) {
    pointer += "/" + escape_pointer_segment(key);
    if (const Json* other = in_b.find(key)) {
      differences(value, *other, pointer, out);
    } else {
      out.push_back(pointer);
    }
    pointer.resize(length);
  }
  for (const auto& [key, value] : b.items()) {
    if (in_a.find(key) == nullptr) out.push_back(pointer + "/" + escape_pointer_segment(key));
  }
}

}  // namespace

std::vector<std::string> json_differences(const Json& a, const Json& b,
                                          const std::string& pointer) {
  std::vector<std::string> out;
  std::string at = pointer;
  differences(a, b, at, out);
  return out;
}

}  // namespace zf::importer
