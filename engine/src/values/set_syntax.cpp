// SPDX-License-Identifier: MIT
// `--set KEY=VALUE` parsing and values-file loading.
#include "text_helpers.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf {

nlohmann::ordered_json parse_set(std::string_view assignment) {
  // Values are JSON, whose strings are UTF-8: a key or text VALUE that is not would be kept,
  // then fail where the values are written out (a plugin's input, `explain`, tojson).
  for (std::size_t i = 0; i < assignment.size();) {
    const std::size_t length = detail::utf8_sequence_length(assignment, i);
    if (length == 0) {
      throw Error(ErrorKind::Usage,
                  "--set: byte " + std::to_string(i + 1) + " of the assignment is not UTF-8 text");
    }
    i += length;
  }
  auto eq = assignment.find('=');
  std::string shown = "--set " + std::string(assignment);
  if (eq == std::string_view::npos) {
    throw Error(ErrorKind::Usage, "'" + shown + "': expected KEY=VALUE");
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

  // VALUE is JSON when it parses as JSON (with the same number rules as values files, so
  // `5e8` is an integer), else the text itself.
  nlohmann::ordered_json value;
  try {
    value = parse_json_text(text, "--set");
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
  nlohmann::ordered_json json = parse_json_text(text, path.string());
  if (!json.is_object()) {
    throw Error(ErrorKind::Values,
                "a values file must hold a JSON object, got " + std::string(json.type_name()),
                path.string(), "/");
  }
  return json;
}

}  // namespace zf
