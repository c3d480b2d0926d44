// SPDX-License-Identifier: MIT
// `--set KEY=VALUE` parsing and values-file loading.
#include <cstdio>

#include "text_helpers.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf {

nlohmann::ordered_json parse_set(std::string_view assignment) {
  auto eq = assignment.find('=');
  std::string shown = "--set " + std::string(assignment);
  if (eq == std::string_view::npos) {
    throw Error(ErrorKind::Usage, "'" + shown + "': expected KEY=VALUE");
  }
  // A value is written into .json output, which must be UTF-8 (a shell passes bytes as given).
  if (std::size_t bad = detail::invalid_utf8_at(assignment); bad != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(assignment[bad]));
    throw Error(ErrorKind::Usage, "'--set': invalid UTF-8 (byte " + std::string(byte) +
                                      " at offset " + std::to_string(bad) + " of '" +
                                      std::string(assignment.substr(0, bad)) + "...')");
  }
  std::string_view key = assignment.substr(0, eq);
  std::string_view text = assignment.substr(eq + 1);
  if (key.empty()) throw Error(ErrorKind::Usage, "'" + shown + "': the key is empty");

  std::vector<std::string> path;
  std::size_t start = 0;
  while (true) {
    auto dot = key.find('.', start);
    std::string_view segment = key.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (segment.empty()) {
      throw Error(ErrorKind::Usage,
                  "'" + shown + "': empty segment in key '" + std::string(key) + "'");
    }
    path.emplace_back(segment);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }

  // VALUE is JSON when it parses as JSON, else the text itself. Numbers keep their JSON
  // type, as in values files (`5e8` is a float, as Python reads it).
  nlohmann::ordered_json value;
  try {
    value = parse_json_text(text, "--set", JsonNumbers::AsWritten);
  } catch (const Error&) {
    // An integer too large for 64 bits is a number to the user: taking it as a string
    // would change its type silently.
    const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
    if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos) {
      throw Error(ErrorKind::Usage, "'" + shown + "': integer " + std::string(text) +
                                        " is out of range: integers are 64-bit "
                                        "(-9223372036854775808 to 9223372036854775807)");
    }
    value = std::string(text);
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    nlohmann::ordered_json wrapper = nlohmann::ordered_json::object();
    wrapper[*it] = std::move(value);
    value = std::move(wrapper);
  }
  return value;
}

nlohmann::ordered_json load_values_file(const std::filesystem::path& path) {
  std::string text = read_file(path);
  nlohmann::ordered_json json = parse_json_text(text, path.string(), JsonNumbers::AsWritten);
  if (!json.is_object()) {
    throw Error(ErrorKind::Values,
                "a values file must hold a JSON object, got " + std::string(json.type_name()),
                path.string(), "/");
  }
  return json;
}

}  // namespace zf
