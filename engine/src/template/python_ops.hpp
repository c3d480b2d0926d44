// SPDX-License-Identifier: MIT
// Python operations on zf::Value shared by the builtin filters, tests and globals: iteration,
// ordering with Python's error messages, Jinja2's item lookup, `+`, and integer conversion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// Throws a Render error; the renderer adds the location.
[[noreturn]] void fail(std::string message);

/// `operator.index(v)`: an int or bool; otherwise "'float' object cannot be interpreted as an
/// integer".
std::int64_t to_index(const Value& value);

/// `list(v)`: a list itself, a string's code points, a dict's keys. Returns `as_list()` for
/// lists (no copy) and fills `storage` otherwise. Throws "'int' object is not iterable".
const ValueList& iterate(const Value& value, ValueList& storage);

/// `len(v)` for strings (code points), lists and dicts; throws "object of type 'int' has no
/// len()" for others.
std::size_t python_len(const Value& value);

/// Python ordering, as Value::compare, with the operator (`<`, `>`, `<=`, `>=`) named in the
/// "not supported between instances" error.
int compare(const Value& a, const Value& b, std::string_view op);
/// Compares two sort keys the way Python compares lists: the first unequal pair decides, so
/// equal values of incomparable types (two dicts, two None) do not throw.
int compare_keys(const std::vector<Value>& a, const std::vector<Value>& b);

/// "'dict object'" or "'None'": how Jinja2 names a value's type in undefined-attribute errors.
std::string object_type_repr(const Value& value);

/// Jinja2's `environment.getitem(obj, key)`: a dict key, a list or string index (negative
/// counts from the end), or an undefined value ("'dict object' has no attribute 'x'").
/// Throws the undefined error when `obj` itself is undefined.
Value get_item(const Value& obj, const Value& key);

/// Splits an `attribute` argument (`"address.city"`, `"items.0"`) into lookup keys, digit
/// parts becoming integers; none gives no keys; an int is one key.
std::vector<Value> attribute_parts(const Value& attribute);
/// Follows `parts` from `item`. When `default_value` is not none it replaces a missing value at
/// any step (Jinja2's `map(attribute=..., default=...)`).
Value lookup_path(Value item, const std::vector<Value>& parts, const Value& default_value);

/// Python's `a + b` for numbers (int overflow throws), lists and strings.
Value add(const Value& a, const Value& b);

/// `int(x)` for a finite double: truncates; throws when the result does not fit in 64 bits.
std::int64_t truncate_to_int(double value);

}  // namespace zf::detail
