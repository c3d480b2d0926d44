// SPDX-License-Identifier: MIT
// What the renderer may know about built-in filters to evaluate them in place.
#pragma once

#include "zeroforge/environment.hpp"

namespace zf::detail {

/// True when `spec` is the built-in `default`/`d` filter (not a plugin's filter of that
/// name), whose result is always its subject or its first argument: the renderer then
/// returns either without copying it.
bool is_builtin_default(const FunctionSpec& spec);

}  // namespace zf::detail
