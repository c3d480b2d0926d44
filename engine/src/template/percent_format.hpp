// SPDX-License-Identifier: MIT
// Python's printf-style `format % args` (the `format` filter, and `str % int` in the odd/even
// tests): conversions s r a d i u o x X e E f F g G c %, flags, widths, precisions and `*`.
#pragma once

#include <string>
#include <string_view>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// `format % tuple(args)`.
std::string percent_format(std::string_view format, const ValueList& args);
/// `format % mapping`: `%(key)s` looks keys up; a plain `%s` formats the mapping itself.
std::string percent_format(std::string_view format, const Value& mapping);

}  // namespace zf::detail
