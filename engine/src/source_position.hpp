// SPDX-License-Identifier: MIT
// Byte offset → 1-based line and column, and the text of that line, computed only when an
// error needs them (parsers keep offsets).
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace zf::detail {

/// 1-based line and column (in bytes, counting a UTF-8 sequence as one column) of `offset`.
inline std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

/// The line containing `offset`, without its newline.
inline std::string_view line_text(std::string_view text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  std::size_t begin = 0;
  if (offset > 0) {
    auto newline = text.rfind('\n', offset - 1);
    if (newline != std::string_view::npos) begin = newline + 1;
  }
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace zf::detail

#include <string>

#include "zeroforge/error.hpp"

namespace zf::detail {

/// An error of `kind` at byte `offset` of template `name` whose (normalised) text is
/// `source`, with the source line for the caret.
inline Error error_at(ErrorKind kind, std::string message, const std::string& name,
                      std::string_view source, std::size_t offset) {
  auto [line, column] = line_column(source, offset);
  Location where{name, line, column};
  return Error(kind, std::move(message), where)
      .located(where, std::string(line_text(source, offset)));
}

}  // namespace zf::detail
