// SPDX-License-Identifier: MIT
// The notes and warnings generate and report say about a run rather than about an input: a
// diagnostic with a code of its own and no file, which zf::to_string() prints as
// `zeroforge: note: ...`, the line the CLI has always printed.
#pragma once

#include <string>
#include <utility>

#include "zeroforge/diagnostic.hpp"

namespace zf::pipeline {

/// A diagnostic with `code` (docs/cli.md, "Diagnostic codes"), `severity` and `message`, of
/// kind Io (they all concern the output directory or a file beside it), placed nowhere.
inline Diagnostic remark(std::string code, Severity severity, std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = severity;
  d.kind = ErrorKind::Io;
  d.message = std::move(message);
  return d;
}

}  // namespace zf::pipeline
