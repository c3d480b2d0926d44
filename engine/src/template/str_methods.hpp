// SPDX-License-Identifier: MIT
// The str methods of str_methods.cpp, which methods.cpp dispatches to.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// True when `name` is one of the str methods str_methods.cpp implements.
bool is_str_method(std::string_view name);

/// Calls str method `m` (is_str_method(m)) on `s` with Python's semantics and error messages.
/// `escape_fields`: `format` escapes each formatted field (Markup.format).
Value call_str_method(const std::string& s, const std::string& m, const std::vector<Value>& args,
                      const std::vector<std::pair<std::string, Value>>& kwargs,
                      bool escape_fields = false);

}  // namespace zf::detail
