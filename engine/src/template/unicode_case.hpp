// SPDX-License-Identifier: MIT
// Full Unicode case mapping and the case properties, as Python's str methods apply them
// (Unicode 14.0, the version of Python 3.11): one-to-many mappings included (`ß` -> `SS`,
// `ﬁ` -> `FI`), from the generated table generated/unicode_case.inc.
#pragma once

#include <string>

namespace zf::detail {

/// The case properties Python's str methods test.
bool is_lowercase(char32_t c);       // Lowercase: what str.islower() looks for
bool is_uppercase(char32_t c);       // Uppercase: what str.isupper() looks for
bool is_titlecase(char32_t c);       // general category Lt
bool is_cased(char32_t c);           // Cased: any of the three above
bool is_case_ignorable(char32_t c);  // Case_Ignorable: skipped by the final-sigma rule

/// Appends the full lower, upper, title case or case folding of one code point.
void append_lower(std::string& out, char32_t c);
void append_upper(std::string& out, char32_t c);
void append_title(std::string& out, char32_t c);
void append_fold(std::string& out, char32_t c);

}  // namespace zf::detail
