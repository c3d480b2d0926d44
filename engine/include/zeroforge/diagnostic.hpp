// SPDX-License-Identifier: MIT
// zf::Diagnostic: how the library hands a problem, warning or note about its input back to a
// caller (the CLI, the Python module, a build tool) instead of printing it. Every diagnostic
// has a stable code, documented with an example and its fix in docs/cli.md ("Diagnostic codes").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/error.hpp"

namespace zf {

/// How serious a diagnostic (or a validator finding) is. For findings it follows DeepSpeed:
/// `Error` = DeepSpeed (or the HF Trainer) rejects the config or crashes on it; `Warning` =
/// accepted but silently has no effect or a different one; `Note` = fine, with a remark.
enum class Severity { Note, Warning, Error };

/// "note", "warning" or "error".
const char* severity_name(Severity severity) noexcept;

/// One thing the library has to say about its input. Codes are `AREA.NAME` in lower case
/// (`values.contract`, `plugin.refused`, `template.undefined`); a code, once published, keeps
/// its meaning, so scripts may match on it (`--format json` carries it). The text a user
/// reads is to_string(): the one-line form zf::Error::what() has, plus `notes` below it.
///
///     zf::Diagnostic d = zf::to_diagnostic(error);   // from a caught zf::Error
///     if (d.code == "values.contract") ...           // a value the DeepSpeed contract refuses
struct Diagnostic {
  /// Stable, documented id: see the table in docs/cli.md.
  std::string code;
  Severity severity = Severity::Error;
  /// The kind of failure (an Error's kind; for a warning, the area it concerns).
  ErrorKind kind = ErrorKind::Values;
  /// The message alone, without location or severity: `stage must be 0-3, got 5`.
  std::string message;
  /// Where: a file (or a layer's label such as `--set stage=5`), with line and column when
  /// known (templates, JSON files); empty `file` when nowhere in particular.
  Location where;
  /// A JSON pointer into `where.file` (`/values/stage`), or "".
  std::string json_pointer;
  /// For a location in a template: the offending source line, for a caret under the column.
  std::string source_line;
  /// Who reported it besides zeroforge itself, shown in brackets after the severity
  /// (`error [memory]: ...`): a plugin's name; "" for the engine.
  std::string reporter;
  /// Further lines that belong to the message (e.g. the choices when one is missing).
  std::vector<std::string> notes;
};

/// The code of a zf::Error of `kind` that no step gave a more specific one:
/// `template.syntax`, `template.undefined`, `template.render`, `template.load`,
/// `output.json`, `values.invalid`, `io.failed`, `plugin.failed`, `usage.invalid`.
std::string_view error_code(ErrorKind kind) noexcept;

/// "syntax", "undefined", "render", "template", "json", "values", "io", "plugin", "usage":
/// the kind as `--format json` writes it.
std::string_view kind_name(ErrorKind kind) noexcept;

/// A zf::Error that knows its diagnostic code: what a step throws when the problem that stops
/// it has a code of its own (`tier.unknown-key`, `tier.not-found`). Catch it as zf::Error;
/// to_diagnostic keeps the code.
///
///     throw zf::CodedError(zf::Error(zf::ErrorKind::Values, "tier 'x' not found", file,
///                                    "/tiers/0"),
///                          "tier.not-found");
class CodedError : public Error {
 public:
  CodedError(const Error& error, std::string code) : Error(error), code_(std::move(code)) {}
  /// The stable code (docs/cli.md, "Diagnostic codes").
  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

/// `error` as a diagnostic (severity Error), with `code`, else a CodedError's own code, else
/// error_code(error.kind()).
Diagnostic to_diagnostic(const Error& error, std::string code = {});

/// The one-line text, as zf::Error::what() formats a location:
/// `file:line:col: error: msg`, `file: /pointer: warning: msg`, `file: error [memory]: msg`;
/// without a file, `zeroforge: error: msg`. Notes are not included.
std::string to_string(const Diagnostic& diagnostic);

/// True when any of `diagnostics` is an error.
bool has_errors(const std::vector<Diagnostic>& diagnostics) noexcept;

/// How a step, a render or a generate ended. A caller maps it to its own convention (the
/// CLI: Done 0, Refused and Stale 1, Failed 2).
enum class Outcome {
  Done,     ///< made; diagnostics hold warnings at most
  Refused,  ///< well-formed, but a plugin's values hook or the validator refused it
  Failed,   ///< bad input: values, a tier, a template, a file
  Stale,    ///< generate's check: the output directory differs from what would be written
};

/// Receives diagnostics as they happen (e.g. a plugin's logged warning, which may come just
/// before an exception ends the step that was running).
using DiagnosticSink = std::function<void(const Diagnostic&)>;

}  // namespace zf
