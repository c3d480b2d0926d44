// SPDX-License-Identifier: MIT
// Printing what the CLI has to say: the one place messages reach a terminal. Errors print the
// way compilers print them (the one-line message, then the source line and a caret), and every
// line shows the input's bytes escaped (terminal_text.hpp), so a file name, a value or a GPU
// name can neither act on the terminal nor break a line.
#pragma once

#include <ostream>
#include <string_view>

#include "zeroforge/error.hpp"
#include "zeroforge/generate.hpp"

namespace zf::cli {

/// Prints one message line to `out` (stderr; stdout for what a command reports, such as
/// `zeroforge: wrote ...`): `line` as terminal_text shows it, then a newline. The CLI prints
/// every message through here or print_error; data (a rendered config, JSON, a report, help
/// text) is written as it is.
void print_message(std::ostream& out, std::string_view line);

/// Prints `error` to `out`: `what()` when it has a location (else `zeroforge: error: ...`),
/// then the source line and a caret under the column when the error carries one.
void print_error(std::ostream& out, const Error& error);

/// Prints a family's values problem (generate, report) where its value was written; one
/// without a line of its own is prefixed with the variant(s) it was found in.
void print_variant_problem(std::ostream& out, const VariantProblem& problem);

}  // namespace zf::cli
