// SPDX-License-Identifier: MIT
// The JSON reader's limits (json_reader.cpp), for code that writes JSON for zeroforge to read
// back (import's families) and must stay within them. The size limit is max_input_bytes()
// (zeroforge/output.hpp), which ZEROFORGE_MAX_INPUT_MIB sets.
#pragma once

namespace zf::detail {

/// How deep parse_json_text lets JSON nest: the top-level value is at depth 0, a member or
/// item of a value at depth d is at d + 1, and a value deeper than this is an error ("JSON
/// nested too deeply").
inline constexpr int kMaxJsonDepth = 512;

}  // namespace zf::detail
