// SPDX-License-Identifier: MIT
// Printing what the CLI has to say: the one place messages reach a terminal, and the one
// encoder of diagnostics as JSON. Errors print the way compilers print them (the one-line
// message, then the source line and a caret), and every line shows the input's bytes escaped
// (terminal_text.hpp), so a file name, a value or a GPU name can neither act on the terminal
// nor break a line.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"

namespace zf::cli {

/// Prints one message line to `out` (stderr; stdout for what a command reports, such as
/// `zeroforge: wrote ...`): `line` as terminal_text shows it, then a newline. The CLI prints
/// every message through here, print_diagnostic or print_error; data (a rendered config,
/// JSON, a report, help text) is written as it is.
void print_message(std::ostream& out, std::string_view line);

/// Prints a diagnostic line the CLI composes itself (a usage error, the line after the problems
/// that stopped a command) as print_diagnostic prints one: `line`, then ` [code]`.
void print_coded_line(std::ostream& out, std::string_view line, std::string_view code);

/// Prints `diagnostic` to `out`: its one line (zf::to_string), the source line and a caret
/// under the column when it points into a template, then each note indented by two spaces.
void print_diagnostic(std::ostream& out, const Diagnostic& diagnostic);

/// Prints each of `diagnostics` in order (print_diagnostic).
void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diagnostics);

/// Prints `error` as print_diagnostic prints to_diagnostic(error).
void print_error(std::ostream& out, const Error& error);

/// A diagnostic as `--format json` writes it: `{"code", "kind", "severity", "message",
/// "file", "line", "column", "pointer", "reporter", "notes"}` (location fields only when set).
nlohmann::ordered_json diagnostic_to_json(const Diagnostic& diagnostic);

/// Each of `diagnostics`, as diagnostic_to_json writes it, in an array.
nlohmann::ordered_json diagnostics_to_json(const std::vector<Diagnostic>& diagnostics);

}  // namespace zf::cli
