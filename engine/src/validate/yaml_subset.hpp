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

/// Parses `text` (named `file` in errors). Plain scalars resolve as PyYAML's YAML 1.1 resolver
/// does for the forms supported: `~`, `null` and nothing are null; `true`/`false`/`yes`/`no`/
/// `on`/`off` (lower, Capitalised or UPPER) are booleans; decimal integers and decimal
/// fractions are numbers; everything else is a string. A duplicate key, a tab in the
/// indentation, an integer with a leading zero (YAML 1.1 octal) or a form outside the subset
/// throws zf::Error (Values) at `file:line:column`.
nlohmann::ordered_json parse_yaml_subset(std::string_view text, const std::string& file);

}  // namespace zf::validate
