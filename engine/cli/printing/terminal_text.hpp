// SPDX-License-Identifier: MIT
// How text from the input is shown on a terminal: what is not printable UTF-8 is written as
// clang writes it (`<FF>` for a stray byte, `<U+001B>` for a control character), so a file
// name, a value or a GPU name can neither act on the terminal nor break a message's line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zf::cli {

/// `text` with every byte that is not part of valid UTF-8 shown as `<FF>`, and every control
/// character (C0, newline and tab included, DEL, C1), line or paragraph separator (U+2028,
/// U+2029) and bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069)
/// shown as `<U+001B>`; anything else as it is. With `keep_tabs`, a tab stays a tab (a
/// source line under which a caret must line up).
///
///     terminal_text("a\x1b[31m\xff\n")  // "a<U+001B>[31m<FF><U+000A>"
std::string terminal_text(std::string_view text, bool keep_tabs = false);

/// The line that puts a caret under 1-based `column` of `line` (columns count UTF-8
/// sequences, as zf::Error's do) as terminal_text(line, true) shows it: a space for each
/// column shown before it (a tab under a tab), then `^`.
std::string caret_line(std::string_view line, std::size_t column);

}  // namespace zf::cli
