// SPDX-License-Identifier: MIT
// print_message: one line, escaped; print_diagnostic: message, source line, caret, notes;
// diagnostic_to_json: the same as data for --format json.
#include "diagnostic_printer.hpp"

#include <string>

#include "terminal_text.hpp"

namespace zf::cli {

void print_message(std::ostream& out, std::string_view line) { out << terminal_text(line) << '\n'; }

void print_coded_line(std::ostream& out, std::string_view line, std::string_view code) {
  print_message(out, std::string(line) + " [" + std::string(code) + "]");
}

void print_diagnostic(std::ostream& out, const Diagnostic& d) {
  // The code ends the line, as clang ends a warning's with its [-Wflag]: what a script matches
  // on and what docs/cli.md's table explains.
  print_message(out, d.code.empty() ? to_string(d) : to_string(d) + " [" + d.code + "]");
  const std::string& line = d.source_line;
  if (!line.empty() && d.where.column != 0) {
    // Tabs are kept, so that the caret lines up under the same column in a terminal.
    out << "  " << terminal_text(line, true) << '\n'
        << "  " << caret_line(line, d.where.column) << '\n';
  }
  for (const auto& note : d.notes) print_message(out, "  " + note);
}

void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) print_diagnostic(out, d);
}

void print_error(std::ostream& out, const Error& error) {
  print_diagnostic(out, to_diagnostic(error));
}

nlohmann::ordered_json diagnostic_to_json(const Diagnostic& d) {
  nlohmann::ordered_json out = {{"code", d.code},
                                {"kind", std::string(kind_name(d.kind))},
                                {"severity", severity_name(d.severity)},
                                {"message", d.message}};
  if (!d.where.file.empty()) out["file"] = d.where.file;
  if (d.where.line != 0) out["line"] = d.where.line;
  if (d.where.column != 0) out["column"] = d.where.column;
  if (!d.json_pointer.empty()) out["pointer"] = d.json_pointer;
  if (!d.reporter.empty()) out["reporter"] = d.reporter;
  if (!d.notes.empty()) out["notes"] = d.notes;
  return out;
}

nlohmann::ordered_json diagnostics_to_json(const std::vector<Diagnostic>& diagnostics) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& d : diagnostics) out.push_back(diagnostic_to_json(d));
  return out;
}

}  // namespace zf::cli
