// SPDX-License-Identifier: MIT
// What the renderer may know about built-in filters to evaluate them in place.
#pragma once

#include <optional>
#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Register the filters of filters_html.cpp (escape/e, forceescape, safe, striptags,
/// urlencode, urlize, xmlattr) and filters_text.cpp (wordwrap, pprint, groupby, random).
void register_html_filters(FunctionRegistry& registry);
void register_text_filters(FunctionRegistry& registry);

/// True when `spec` is the built-in `default`/`d` filter (not a plugin's filter of that
/// name), whose result is always its subject or its first argument: the renderer then
/// returns either without copying it.
bool is_builtin_default(const FunctionSpec& spec);

/// True when `spec` is the built-in `tojson` filter.
bool is_builtin_tojson(const FunctionSpec& spec);

/// Appends what `value | tojson` prints (`indent`: the prefix per level, as
/// append_python_json takes it): the filter's body, and the renderer's path for
/// `{{ x | tojson }}` that makes no text value first.
void append_tojson(std::string& out, const Value& value,
                   const std::optional<std::string>& indent = std::nullopt);

}  // namespace zf::detail
