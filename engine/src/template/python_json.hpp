// SPDX-License-Identifier: MIT
// Python's `json.dumps(value, sort_keys=True, indent=...)` for the `tojson` filter: Python's
// separators, float reprs (NaN, Infinity) and `ensure_ascii` escapes, plus the escapes of
// Jinja2's htmlsafe_json_dumps (`<`, `>`, `&` and `'` as `\u003c`, `\u003e`, `\u0026`, `\u0027`).
#pragma once

#include <optional>
#include <string>

#include "zeroforge/value.hpp"

namespace zf::detail {

/// Appends `value` serialized like Jinja2's `htmlsafe_json_dumps(value, sort_keys=True,
/// indent=indent)`, i.e. `json.dumps` with the four htmlsafe escapes. Without
/// an indent items are separated by `, ` and keys by `: `; with one, each item is on its own
/// line prefixed by `indent` repeated per level and items are separated by `,`.
void append_python_json(std::string& out, const Value& value,
                        const std::optional<std::string>& indent);

}  // namespace zf::detail
