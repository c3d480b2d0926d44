// SPDX-License-Identifier: MIT
// launch_text_problem: host names and environment variables as DeepSpeed 0.19.6's launcher
// (deepspeed/launcher/runner.py, multinode_runner.py), pdsh and the shell take them.
#include "launch_text.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace zf::pipeline {
namespace {

// The text as a JSON string: a control character or stray byte shows instead of acting.
std::string quoted(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool is_host_name(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == '_';
  });
}

bool is_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// DeepSpeed's launcher reads `.deepspeed_env` as NAME=VALUE lines, strips each value and, when
// it holds anything outside [\w@%+=:,./-], wraps it in double quotes for the other nodes'
// shell without escaping (multinode_runner.py add_export): these characters would break it.
bool is_exportable_value(std::string_view value) {
  if (!value.empty() && (std::isspace(static_cast<unsigned char>(value.front())) ||
                         std::isspace(static_cast<unsigned char>(value.back()))))
    return false;
  return value.find_first_of("\n\r\"$`\\") == std::string_view::npos;
}

}  // namespace

std::string launch_text_problem(LaunchText kind, std::string_view text) {
  switch (kind) {
    case LaunchText::HostName:
      if (is_host_name(text)) return "";
      return quoted(text) +
             " is not a host name (letters, digits, '.', '-' and '_', as a hostfile line and "
             "pdsh take it)";
    case LaunchText::VariableName:
      if (is_variable_name(text)) return "";
      return "'" + std::string(text) +
             "' is not an environment variable name (letters, digits and '_', not starting "
             "with a digit)";
    case LaunchText::VariableValue:
      if (is_exportable_value(text)) return "";
      return quoted(text) +
             ": DeepSpeed's launcher strips the value and hands it to the other nodes' shell in "
             "double quotes, so it cannot hold a newline, '\"', '$', '`' or '\\', nor begin or "
             "end with a space";
  }
  return "unknown kind of launch text";
}

}  // namespace zf::pipeline
