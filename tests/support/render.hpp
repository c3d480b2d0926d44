// SPDX-License-Identifier: MIT
// Test helpers: render a template given as text, or capture the error it raises.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf::test {

/// Renders `source` (named `name`) over `values` in a fresh Environment with `options`.
inline std::string render(const std::string& source,
                          const nlohmann::ordered_json& values = nlohmann::ordered_json::object(),
                          EnvironmentOptions options = {}, const std::string& name = "t.j2") {
  Environment env(std::move(options));
  return env.from_string(source, name)->render(Value::from_json(values));
}

/// The `what()` of the zf::Error that parsing or rendering `source` raises, or "" if none.
inline std::string render_error(
    const std::string& source,
    const nlohmann::ordered_json& values = nlohmann::ordered_json::object(),
    EnvironmentOptions options = {}) {
  try {
    render(source, values, std::move(options));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace zf::test
