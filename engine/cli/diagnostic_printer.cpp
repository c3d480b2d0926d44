// SPDX-License-Identifier: MIT
// print_error: message, source line, caret.
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

}  // namespace zf::cli
