// SPDX-License-Identifier: MIT
// What the renderer may know about built-in filters to evaluate them in place.
#pragma once

#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// True when `spec` is the built-in `default`/`d` filter (not a plugin's filter of that
/// name), whose result is always its subject or its first argument: the renderer then
/// returns either without copying it.
bool is_builtin_default(const FunctionSpec& spec);

/// True when `spec` is the built-in `tojson` filter.
bool is_builtin_tojson(const FunctionSpec& spec);

/// Appends what `value | tojson` (no indent) prints: the renderer's path for
/// `{{ x | tojson }}`, without making the text a value first.
void append_tojson(std::string& out, const Value& value);

}  // namespace zf::detail
