// SPDX-License-Identifier: MIT
// The exception translator (errors.hpp).
#include "errors.hpp"

#include <sstream>

#include "diagnostic_printer.hpp"
#include "json_convert.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"

namespace zf::python {
namespace py = pybind11;

const char* error_class_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::Syntax:
    case ErrorKind::Undefined:
    case ErrorKind::Render:
    case ErrorKind::Template:
    case ErrorKind::Json:
      return "TemplateError";
    case ErrorKind::Values:
      return "ValuesError";
    case ErrorKind::Io:
      return "FileError";
    case ErrorKind::Plugin:
      return "PluginError";
    case ErrorKind::Usage:
      break;
  }
  return "UsageError";
}

std::string cli_text(const Error& error) {
  std::ostringstream out;
  cli::print_error(out, error);
  std::string text = out.str();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

void raise_error(const Error& error, const std::string& shown, py::dict extra,
                 const char* class_name) {
  // The classes live in Python (docstrings, attributes); looked up on each error, which is
  // rare, so no Python object outlives the interpreter in a static.
  py::object errors = py::module_::import("zeroforge._errors");
  py::dict kwargs = std::move(extra);
  // A file zeroforge reads that is not JSON (a values, family, tier or options file) is bad
  // input, a ValuesError; the kind `json` otherwise means a template's output.
  const std::string code = kwargs.contains("code") ? py::str(kwargs["code"]).cast<std::string>()
                                                   : to_diagnostic(error).code;
  if (!class_name && code == codes::json_syntax) class_name = "ValuesError";
  py::object cls = errors.attr(class_name ? class_name : error_class_name(error.kind()));
  auto optional = [](const std::string& value) {
    return value.empty() ? py::object(py::none()) : py::object(text(value));
  };
  kwargs["code"] = text(code);
  kwargs["kind"] = text(kind_name(error.kind()));
  kwargs["message"] = text(error.message());
  const Location& where = error.where();
  kwargs["file"] = optional(where.file);
  kwargs["line"] = where.line == 0 ? py::object(py::none()) : py::int_(where.line);
  kwargs["column"] = where.column == 0 ? py::object(py::none()) : py::int_(where.column);
  kwargs["pointer"] = optional(error.json_pointer());
  kwargs["source_line"] = optional(error.source_line());
  py::object instance = cls(text(shown), **kwargs);
  PyErr_SetObject(cls.ptr(), instance.ptr());
  throw py::error_already_set();
}

void raise_diagnostic(const Diagnostic& d, const std::string& shown, py::dict extra,
                      const char* class_name) {
  extra["code"] = text(d.code);
  Error error = !d.json_pointer.empty() ? Error(d.kind, d.message, d.where.file, d.json_pointer)
                : !d.source_line.empty()
                    ? Error(d.kind, d.message, d.where).located(d.where, d.source_line)
                    : Error(d.kind, d.message, d.where);
  raise_error(error, shown, std::move(extra), class_name);
}

void register_errors(py::module_& module) {
  (void)module;
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& error) {
      try {
        raise_error(error, cli_text(error));
      } catch (py::error_already_set& raised) {
        // The exception raise_error made (or, should zeroforge._errors be missing, why not).
        raised.restore();
      }
    }
  });
}

// What the CLI prints for `diagnostics`, one after the other, without the final newline.
std::string printed(const std::vector<Diagnostic>& diagnostics) {
  std::ostringstream out;
  for (const auto& diagnostic : diagnostics) cli::print_diagnostic(out, diagnostic);
  std::string text = out.str();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

py::dict diagnostic_dict(const Diagnostic& d) {
  py::dict out;
  out["code"] = text(d.code);
  out["severity"] = severity_name(d.severity);
  out["kind"] = text(std::string(kind_name(d.kind)));
  out["message"] = text(d.message);
  out["file"] = text(d.where.file);
  out["line"] = d.where.line == 0 ? py::object(py::none()) : py::int_(d.where.line);
  out["column"] = d.where.column == 0 ? py::object(py::none()) : py::int_(d.where.column);
  out["pointer"] = text(d.json_pointer);
  out["source_line"] = text(d.source_line);
  out["reporter"] = text(d.reporter);
  py::list notes;
  for (const auto& note : d.notes) notes.append(text(note));
  out["notes"] = notes;
  out["text"] = text(printed({d}));
  return out;
}

py::list diagnostic_list(const std::vector<Diagnostic>& diagnostics) {
  py::list out;
  for (const auto& d : diagnostics) out.append(diagnostic_dict(d));
  return out;
}

}  // namespace zf::python
