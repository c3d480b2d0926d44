// SPDX-License-Identifier: MIT
// The one check of a path read from a file before it reaches the system, header only, shared by
// the host (family files, plugin options) and plugins (zf::sdk::Context::read_file).
//
//     if (std::string why = zf::sdk::path_text_problem(path); !why.empty()) throw Error(why);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zf::sdk {

/// Why `path` cannot be handed to the system, or "" when it can. JSON may hold a NUL in a string
/// (`"medium.json\u0000x"`), but a path reaches the system as a C string, which ends at the
/// first NUL: the file opened would be another one than the text says (`medium.json`), so such
/// a path is refused rather than cut short. The message shows the path as a JSON string.
inline std::string path_text_problem(std::string_view path) {
  const std::size_t nul = path.find('\0');
  if (nul == std::string_view::npos) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  auto quoted = [](std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
      const auto byte = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (byte < 0x20 || byte == 0x7f) {
        out += "\\u00";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
      } else {
        out += c;
      }
    }
    return out + "\"";
  };
  return "path " + quoted(path) + " contains a NUL byte (U+0000) at byte " + std::to_string(nul) +
         ", where the system would end it (it would read " + quoted(path.substr(0, nul)) + ")";
}

}  // namespace zf::sdk
