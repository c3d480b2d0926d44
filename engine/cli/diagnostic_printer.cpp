// SPDX-License-Identifier: MIT
// print_message: one line, escaped; print_error: message, source line, caret;
// print_variant_problem: the same for a family's values problem.
#include "diagnostic_printer.hpp"

#include <string>

#include "terminal_text.hpp"

namespace zf::cli {

void print_message(std::ostream& out, std::string_view line) { out << terminal_text(line) << '\n'; }

void print_error(std::ostream& out, const Error& error) {
  print_message(out, error.has_location() ? std::string(error.what())
                                          : "zeroforge: " + std::string(error.what()));
  const std::string& line = error.source_line();
  if (line.empty() || error.where().column == 0) return;
  // Tabs are kept, so that the caret lines up under the same column in a terminal.
  out << "  " << terminal_text(line, true) << '\n'
      << "  " << caret_line(line, error.where().column) << '\n';
}

void print_variant_problem(std::ostream& out, const VariantProblem& problem) {
  const Error& e = problem.error;
  if (e.where().line != 0) {
    print_error(out, e);
    return;
  }
  std::string where = "variant '" + problem.variant + "'";
  if (problem.others > 0) where += " (and " + std::to_string(problem.others) + " more)";
  print_error(out, Error(e.kind(), where + ": " + e.message(),
                         e.has_location() ? e.where().file : "", e.json_pointer()));
}

}  // namespace zf::cli
