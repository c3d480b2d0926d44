// SPDX-License-Identifier: MIT
// zf::Error: the one exception type of the engine. It carries what went wrong and where
// (a template location or a JSON pointer into a values/family file) in the CLI's format.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace zf {

/// What kind of failure an Error reports; the CLI maps every kind to exit code 2.
enum class ErrorKind {
  Syntax,     ///< a template that does not parse (unclosed tag, bad expression, ...)
  Undefined,  ///< a template used a name or key the values do not define
  Render,     ///< a runtime failure while rendering (type error, division by zero, ...)
  Template,   ///< a template that cannot be found or loaded (missing, path escape, cycle)
  Json,       ///< rendered output of a .json template that is not valid JSON
  Values,     ///< malformed or invalid values, --set, family or tier input
  Io,         ///< a file that cannot be read or written
  Plugin,     ///< a plugin that cannot be loaded or whose hook failed
  Usage,      ///< a command line that does not make sense
};

/// A position in a named source. `line` and `column` are 1-based; 0 means unknown.
struct Location {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;
};

/// The engine's exception. `what()` is one line in the CLI format, e.g.
/// `templates/x.json.j2:12:7: error: undefined variable 'stage'` or
/// `presets/families/a.json: /axes/stage/2: error: expected an integer 0-3`.
class Error : public std::runtime_error {
 public:
  /// An error with no location yet; the renderer or loader attaches one with `locate`.
  Error(ErrorKind kind, std::string message);
  /// An error at a template or file location.
  Error(ErrorKind kind, std::string message, Location where);
  /// An error at a JSON pointer (`/axes/stage/2`) inside `file`.
  Error(ErrorKind kind, std::string message, std::string file, std::string json_pointer);

  ErrorKind kind() const noexcept { return kind_; }
  const Location& where() const noexcept { return where_; }
  const std::string& json_pointer() const noexcept { return json_pointer_; }
  /// The message alone, without location or the `error:` prefix.
  const std::string& message() const noexcept { return message_; }
  /// The offending source line (without newline) when the error points into a template;
  /// the CLI prints it under the message with a caret at `where().column`.
  const std::string& source_line() const noexcept { return source_line_; }

  /// True once a file position or pointer has been attached.
  bool has_location() const noexcept { return !where_.file.empty(); }
  /// Returns a copy of this error placed at `where`, keeping kind and message.
  Error located(Location where, std::string source_line) const;

 private:
  static std::string format(const std::string& message, const Location& where,
                            const std::string& json_pointer);

  ErrorKind kind_;
  std::string message_;
  Location where_;
  std::string json_pointer_;
  std::string source_line_;
};

}  // namespace zf
