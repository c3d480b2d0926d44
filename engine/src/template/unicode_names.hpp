// SPDX-License-Identifier: MIT
// Unicode character names for `\N{NAME}` escapes in string literals, as Python 3.11 resolves
// them (Unicode 14.0): names, name aliases, CJK and Hangul names computed from the code point.
#pragma once

#include <optional>
#include <string_view>

namespace zf::detail {

/// The code point named `name`, or nullopt. Matching is case-insensitive except where
/// Python's is not (`CJK UNIFIED IDEOGRAPH-XXXX` and `HANGUL SYLLABLE ...` must be written
/// in upper case). Named sequences are not characters, so they
/// are not found, as in Python's `\N{...}`.
std::optional<char32_t> lookup_character_name(std::string_view name);

}  // namespace zf::detail
