// SPDX-License-Identifier: MIT
// zf::Error: formatting of the one-line `file:line:col: error: message` form.
#include "zeroforge/error.hpp"

#include <utility>

namespace zf {

Error::Error(ErrorKind kind, std::string message)
    : std::runtime_error(format(message, {}, {})), kind_(kind), message_(std::move(message)) {}

Error::Error(ErrorKind kind, std::string message, Location where)
    : std::runtime_error(format(message, where, {})),
      kind_(kind),
      message_(std::move(message)),
      where_(std::move(where)) {}

Error::Error(ErrorKind kind, std::string message, std::string file, std::string json_pointer)
    : std::runtime_error(format(message, Location{file, 0, 0}, json_pointer)),
      kind_(kind),
      message_(std::move(message)),
      where_{std::move(file), 0, 0},
      json_pointer_(std::move(json_pointer)) {}

Error Error::located(Location where, std::string source_line) const {
  Error copy(kind_, message_, std::move(where));
  copy.source_line_ = std::move(source_line);
  return copy;
}

std::string Error::format(const std::string& message, const Location& where,
                          const std::string& json_pointer) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line != 0) {
      out += ':' + std::to_string(where.line);
      if (where.column != 0) out += ':' + std::to_string(where.column);
    }
    out += ": ";
  }
  if (!json_pointer.empty()) out += json_pointer + ": ";
  out += "error: ";
  out += message;
  return out;
}

}  // namespace zf
