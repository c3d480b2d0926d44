// SPDX-License-Identifier: MIT
// zf::Diagnostic: codes for an Error's kind, severity names, conversion from zf::Error, the
// one-line text.
#include "zeroforge/diagnostic.hpp"

#include <algorithm>
#include <utility>

#include "zeroforge/diagnostic_codes.hpp"

namespace zf {

std::string_view error_code(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::Syntax:
      return codes::template_syntax;
    case ErrorKind::Undefined:
      return codes::template_undefined;
    case ErrorKind::Render:
      return codes::template_render;
    case ErrorKind::Template:
      return codes::template_load;
    case ErrorKind::Json:
      return codes::output_json;
    case ErrorKind::Values:
      return codes::values_invalid;
    case ErrorKind::Io:
      return codes::io_failed;
    case ErrorKind::Plugin:
      return codes::plugin_failed;
    case ErrorKind::Usage:
      return codes::usage_invalid;
  }
  return codes::values_invalid;
}

const char* severity_name(Severity severity) noexcept {
  switch (severity) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "error";
}

std::string_view kind_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::Syntax:
      return "syntax";
    case ErrorKind::Undefined:
      return "undefined";
    case ErrorKind::Render:
      return "render";
    case ErrorKind::Template:
      return "template";
    case ErrorKind::Json:
      return "json";
    case ErrorKind::Values:
      return "values";
    case ErrorKind::Io:
      return "io";
    case ErrorKind::Plugin:
      return "plugin";
    case ErrorKind::Usage:
      return "usage";
  }
  return "values";
}

Diagnostic to_diagnostic(const Error& error, std::string code) {
  Diagnostic d;
  if (const auto* coded = dynamic_cast<const CodedError*>(&error); coded && code.empty())
    code = coded->code();
  d.code = code.empty() ? std::string(error_code(error.kind())) : std::move(code);
  d.severity = Severity::Error;
  d.kind = error.kind();
  d.message = error.message();
  d.where = error.where();
  d.json_pointer = error.json_pointer();
  d.source_line = error.source_line();
  return d;
}

std::string to_string(const Diagnostic& d) {
  // The same shape as Error::what() (error.cpp), so an error reads the same whichever way it
  // reached the user; "zeroforge: " stands in for a missing file, as the CLI always did.
  std::string out;
  if (!d.where.file.empty()) {
    out += d.where.file;
    if (d.where.line != 0) {
      out += ':' + std::to_string(d.where.line);
      if (d.where.column != 0) out += ':' + std::to_string(d.where.column);
    }
    out += ": ";
  } else {
    out += "zeroforge: ";
  }
  if (!d.json_pointer.empty()) out += d.json_pointer + ": ";
  out += severity_name(d.severity);
  if (!d.reporter.empty()) out += " [" + d.reporter + "]";
  out += ": ";
  out += d.message;
  return out;
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) noexcept {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

}  // namespace zf
