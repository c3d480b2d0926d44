// SPDX-License-Identifier: MIT
// The block-style YAML that `accelerate config` writes (PyYAML's safe_dump) and zeroforge's
// accelerate companion writes, read into JSON: nested block mappings, block sequences of
// scalars, plain / single-quoted / double-quoted scalars, `[]` and `{}`, comments. Anything
// else (anchors, tags, multi-line scalars, other flow collections) is an error at its line and
// column rather than a guess.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace zf::validate {

/// Parses `text` (named `file` in errors). Lines end where YAML 1.1 ends them, as PyYAML does
/// (`\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029), and a byte order mark at the start is
/// skipped. Plain scalars resolve as PyYAML's YAML 1.1 resolver does for the forms supported:
/// `~`, `null` and nothing are null; `true`/`false`/`yes`/`no`/`on`/`off` (lower, Capitalised
/// or UPPER) are booleans; decimal integers and decimal fractions are numbers; everything else
/// is a string. What this reader reads, PyYAML reads the same; what PyYAML refuses (a character
/// it does not allow such as a C0 or C1 control, a tab outside quotes and comments) and what
/// lies outside the subset (a duplicate key, an integer with a leading zero — YAML 1.1 octal —,
/// a date, a key YAML reads as a number, boolean or null, nesting deeper than 100 levels)
/// throws zf::Error (Values) at `file:line:column`.
nlohmann::ordered_json parse_yaml_subset(std::string_view text, const std::string& file);

}  // namespace zf::validate
