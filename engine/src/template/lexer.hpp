// SPDX-License-Identifier: MIT
// The lexer: template source → tokens, applying Jinja2's whitespace control (`-`, `+`,
// trim_blocks, lstrip_blocks), comments and raw blocks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "template/token.hpp"

namespace zf::detail {

struct LexerOptions {
  bool trim_blocks = false;
  bool lstrip_blocks = false;
};

/// Normalises newlines (`\r\n`, `\r` → `\n`) and drops one trailing newline, as Jinja2 does
/// with its default `keep_trailing_newline=False`.
std::string normalize_source(std::string_view source);

/// Tokenises normalised `source`; token texts point into it. Throws zf::Error (Syntax)
/// located at the problem (unclosed tag, comment or string, unexpected character).
std::vector<Token> tokenize(std::string_view source, const std::string& name,
                            const LexerOptions& options);

}  // namespace zf::detail
