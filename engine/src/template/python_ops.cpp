// SPDX-License-Identifier: MIT
// Python operations on zf::Value shared by the builtin filters, tests and globals.
#include "template/python_ops.hpp"

#include <cmath>
#include <utility>

#include "template/python_text.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {

void fail(std::string message) { throw Error(ErrorKind::Render, std::move(message)); }

std::int64_t to_index(const Value& value) {
  value.require_defined();
  if (value.is_int() || value.is_bool()) return value.as_int();
  fail(std::string("'") + value.type_name() + "' object cannot be interpreted as an integer");
}

const ValueList& iterate(const Value& value, ValueList& storage) {
  value.require_defined();
  if (value.is_list()) return value.as_list();
  storage.clear();
  if (value.is_string()) {
    for (auto cp : split_code_points(value.as_string())) storage.emplace_back(cp);
  } else if (value.is_dict()) {
    storage.reserve(value.as_dict().size());
    for (const auto& entry : value.as_dict()) storage.emplace_back(entry.first);
  } else {
    fail(std::string("'") + value.type_name() + "' object is not iterable");
  }
  return storage;
}

std::size_t python_len(const Value& value) {
  value.require_defined();
  if (value.is_string()) return code_point_count(value.as_string());
  if (value.is_list()) return value.as_list().size();
  if (value.is_dict()) return value.as_dict().size();
  fail(std::string("object of type '") + value.type_name() + "' has no len()");
}

int compare(const Value& a, const Value& b, std::string_view op) {
  try {
    return Value::compare(a, b);
  } catch (const Error& e) {
    // Value::compare names `<`; Python names the operator that was actually applied.
    static constexpr std::string_view kLess = "'<' not supported";
    if (e.kind() != ErrorKind::Render || op == "<" || e.message().rfind(kLess, 0) != 0) throw;
    fail("'" + std::string(op) + "'" + e.message().substr(3));
  }
}

int compare_keys(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (!(a[i] == b[i])) return compare(a[i], b[i], "<");
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

std::string object_type_repr(const Value& value) {
  if (value.is_none()) return "'None'";
  // Jinja2 names a type outside builtins by its module: MarkupSafe's Markup.
  if (value.is_markup()) return "'markupsafe.Markup object'";
  return std::string("'") + value.type_name() + " object'";
}

Value get_item(const Value& obj, const Value& key) {
  obj.require_defined();
  if (obj.is_dict() && key.is_string()) {
    if (const Value* found = obj.as_dict().find(key.as_string())) return *found;
  } else if ((obj.is_list() || obj.is_string()) && (key.is_int() || key.is_bool())) {
    std::int64_t index = key.as_int();
    if (obj.is_list()) {
      const auto& list = obj.as_list();
      auto size = static_cast<std::int64_t>(list.size());
      if (index < 0) index += size;
      if (index >= 0 && index < size) return list[static_cast<std::size_t>(index)];
    } else {
      auto points = split_code_points(obj.as_string());
      auto size = static_cast<std::int64_t>(points.size());
      if (index < 0) index += size;
      if (index >= 0 && index < size) {
        // Markup's __getitem__ keeps the mark: `Markup('<b>')[0]` is Markup.
        Value item(points[static_cast<std::size_t>(index)]);
        return obj.is_markup() ? Value::markup(item.as_string()) : item;
      }
    }
  }
  if (key.is_string()) {
    if (const Value* field = obj.field(key.as_string())) return *field;
  }
  return Value::undefined(object_type_repr(obj) + " has no attribute " + key.repr());
}

std::vector<Value> attribute_parts(const Value& attribute) {
  std::vector<Value> parts;
  if (attribute.is_none()) return parts;
  if (!attribute.is_string()) {
    parts.push_back(attribute);
    return parts;
  }
  const std::string& text = attribute.as_string();
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    std::string part = text.substr(start, dot == std::string::npos ? dot : dot - start);
    std::int64_t index;
    bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    if (digits && parse_python_int(part, 10, index) == ParseStatus::Ok) {
      parts.emplace_back(index);
    } else {
      parts.emplace_back(std::move(part));
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

Value lookup_path(Value item, const std::vector<Value>& parts, const Value& default_value) {
  for (const auto& part : parts) {
    item = get_item(item, part);
    if (item.is_undefined() && !default_value.is_none()) item = default_value;
  }
  return item;
}

Value add(const Value& a, const Value& b) {
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return Value(a.as_double() + b.as_double());
    std::int64_t sum;
    if (__builtin_add_overflow(a.as_int(), b.as_int(), &sum)) {
      fail("integer overflow: " + a.str() + " + " + b.str() + " does not fit in 64 bits");
    }
    return Value(sum);
  }
  if (a.is_list() && b.is_list()) {
    ValueList out = a.as_list();
    out.insert(out.end(), b.as_list().begin(), b.as_list().end());
    return Value(std::move(out));
  }
  if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
  if (a.is_list() || a.is_string()) {
    const char* self = a.is_list() ? "list" : "str";
    fail(std::string("can only concatenate ") + self + " (not \"" + b.type_name() + "\") to " +
         self);
  }
  fail(std::string("unsupported operand type(s) for +: '") + a.type_name() + "' and '" +
       b.type_name() + "'");
}

std::int64_t truncate_to_int(double value) {
  if (std::isnan(value)) fail("cannot convert float NaN to integer");
  if (std::isinf(value)) fail("cannot convert float infinity to integer");
  double whole = std::trunc(value);
  // 2^63 is exact as a double; every double below it in magnitude fits after truncation.
  if (whole < -9223372036854775808.0 || whole >= 9223372036854775808.0) {
    fail("integer overflow: " + Value(whole).str() + " does not fit in 64 bits");
  }
  return static_cast<std::int64_t>(whole);
}

}  // namespace zf::detail
