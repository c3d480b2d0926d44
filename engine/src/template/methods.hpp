// SPDX-License-Identifier: MIT
// Python methods templates may call on values: dict.items/keys/values/get, a few str and
// list methods (`name.upper()`, `path.startswith('/')`).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// True when `object.name` names a method (Jinja2 looks methods up before dict keys).
/// True when some type has a method called `name` (the parser marks attributes that can
/// only be keys, so the renderer skips the method check for them).
bool is_method_name(std::string_view name);
bool has_method(const Value& object, std::string_view name);

/// A method bound to its object, the value of `object.name` before it is called.
Value bind_method(const Value& object, std::string name);

/// Calls method `name` of `self` (has_method(self, name) is true) with Python's semantics.
Value call_method(const Value& self, const std::string& name, const std::vector<Value>& args,
                  const std::vector<std::pair<std::string, Value>>& kwargs);

/// If `callee` is a bound method, calls it and returns true.
bool call_bound_method(const Value& callee, const std::vector<Value>& args,
                       const std::vector<std::pair<std::string, Value>>& kwargs, Value& result);

}  // namespace zf::detail
