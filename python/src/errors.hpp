// SPDX-License-Identifier: MIT
// zf::Error as Python exceptions: the classes of zeroforge/_errors.py, each raised with what
// the CLI prints for it (str(e)) and its location as attributes.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"

namespace zf::python {

/// Registers the translator: a zf::Error leaving a binding raises zeroforge.ValuesError,
/// TemplateError, UsageError, FileError or PluginError (all zeroforge.Error). Other C++
/// exceptions keep pybind11's translation (MemoryError, RuntimeError, ...), never a crash.
void register_errors(pybind11::module_& module);

/// Raises the Python exception for `error` with `text` as its str() (what the CLI prints) and
/// `extra` keyword attributes (e.g. `variant`; `code`, else the error's diagnostic code): sets the
/// Python error and throws pybind11::error_already_set, which pybind11 passes on to the caller.
/// `class_name` replaces the class error_class_name gives (`RefusedError` for a config that was
/// refused); without it, a file that is not JSON (code `json.syntax`) is a `ValuesError`.
[[noreturn]] void raise_error(const Error& error, const std::string& text,
                              pybind11::dict extra = {}, const char* class_name = nullptr);

/// Raises the Python exception for `diagnostic` (its kind's class, or `class_name`), with
/// `text` as its str() and its code, message and location as attributes: how a problem the
/// library returned as data (render's, generate's) is raised.
[[noreturn]] void raise_diagnostic(const Diagnostic& diagnostic, const std::string& text,
                                   pybind11::dict extra = {}, const char* class_name = nullptr);

/// The name of the Python class for `kind` ("TemplateError", ...).
const char* error_class_name(ErrorKind kind) noexcept;

/// What the CLI prints for `error` on stderr, without the final newline: its one line
/// (`zeroforge: error: ...` when it has no location), then the source line and a caret.
std::string cli_text(const Error& error);

/// What the CLI prints for `diagnostics` (print_diagnostic), one after the other, without the
/// final newline.
std::string printed(const std::vector<Diagnostic>& diagnostics);

/// `diagnostic` as the keyword arguments of zeroforge.Diagnostic (zeroforge/_results.py):
/// code, severity, kind, message, location, reporter, notes and `text`, the CLI's lines.
pybind11::dict diagnostic_dict(const Diagnostic& diagnostic);

/// Each of `diagnostics` as diagnostic_dict gives it.
pybind11::list diagnostic_list(const std::vector<Diagnostic>& diagnostics);

}  // namespace zf::python
