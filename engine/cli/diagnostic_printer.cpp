// SPDX-License-Identifier: MIT
// print_error: message, source line, caret; print_variant_problem: the same for a family's
// values problem.
#include "diagnostic_printer.hpp"

namespace zf::cli {

void print_error(std::ostream& out, const Error& error) {
  if (error.has_location()) {
    out << error.what() << '\n';
  } else {
    out << "zeroforge: " << error.what() << '\n';
  }
  const std::string& line = error.source_line();
  if (line.empty() || error.where().column == 0) return;
  out << "  " << line << '\n' << "  ";
  // Keep tabs so the caret lines up under the same column in a terminal.
  std::size_t column = 1;
  for (std::size_t i = 0; i < line.size() && column < error.where().column; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    out << (c == '\t' ? '\t' : ' ');
    ++column;
  }
  out << "^\n";
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
