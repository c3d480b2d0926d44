// SPDX-License-Identifier: MIT
// launch_text_problem: host names and environment variables as DeepSpeed 0.19.6's launcher
// (deepspeed/launcher/runner.py, multinode_runner.py), pdsh, YAML 1.1 and bash take them, and
// `#SBATCH` values as SLURM 22.05's sbatch reads them (src/sbatch/opt.c, src/common/parse_time.c).
#include "launch_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "text_helpers.hpp"

namespace zf::launch {
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
  if (!value.empty() && (value.front() == ' ' || value.back() == ' ')) return false;
  return value.find_first_of("\"$`\\") == std::string_view::npos;
}

// Variables the launch scripts (bash) cannot export as written. Read-only in bash 5 (`readonly
// -p` in a new shell; variables.c): exporting one stops the script at its first line under
// `set -e`.
constexpr std::array<std::string_view, 6> kBashReadOnly = {"BASHOPTS", "BASH_VERSINFO", "EUID",
                                                           "PPID",     "SHELLOPTS",     "UID"};
// Computed by bash on each use (its dynamic and integer variables): an exported value is not
// what reaches the processes, or (OPTIND, RANDOM, ... under `set -u`) a word that is not a
// number stops the script.
constexpr std::array<std::string_view, 20> kBashComputed = {
    "BASHPID",      "BASH_ALIASES", "BASH_ARGC",   "BASH_ARGV", "BASH_CMDS",
    "BASH_COMMAND", "BASH_LINENO",  "BASH_SOURCE", "DIRSTACK",  "EPOCHREALTIME",
    "EPOCHSECONDS", "FUNCNAME",     "GROUPS",      "HISTCMD",   "LINENO",
    "OPTIND",       "RANDOM",       "SECONDS",     "SRANDOM",   "_"};
// The shipped launch scripts' own variables (companions/partials/script_head.sh.j2 and the
// scripts): set from the environment, they would move the config (`here`) or change the launch.
constexpr std::array<std::string_view, 5> kScriptVariables = {"here", "cmd", "master_addr",
                                                              "rdzv_id", "ZEROFORGE_DRY_RUN"};

// A SLURM name (partition, account, qos, reservation, job name): what every site's names are
// made of, and a word sbatch reads whole on an `#SBATCH` line.
bool is_slurm_name(std::string_view name) {
  if (name.empty() || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

// sbatch reads an `#SBATCH` line as words, splitting at white space, taking quotes as quotes and
// ending it at '#': one word with none of those is read as written.
bool is_slurm_word(std::string_view word) {
  if (word.empty()) return false;
  return std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '#' && c != '\\';
  });
}

// A time limit as SLURM's time_str2mins takes it: "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds", or
// INFINITE / UNLIMITED (no limit). Each field is digits.
bool is_slurm_time(std::string_view text) {
  std::string upper;
  for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "INFINITE" || upper == "UNLIMITED") return true;
  auto digits = [](std::string_view field) {
    return !field.empty() && field.size() <= 9 &&
           std::all_of(field.begin(), field.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  auto fields = [&](std::string_view part, std::size_t most) {
    std::size_t count = 0;
    for (std::size_t start = 0;; ++count) {
      std::size_t colon = part.find(':', start);
      if (!digits(part.substr(start, colon - start))) return std::size_t{0};
      if (colon == std::string_view::npos) return count + 1 <= most ? count + 1 : 0;
      start = colon + 1;
    }
  };
  if (std::size_t dash = text.find('-'); dash != std::string_view::npos) {
    return digits(text.substr(0, dash)) && fields(text.substr(dash + 1), 3) != 0;
  }
  return fields(text, 3) != 0;
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
      if (!is_variable_name(text)) {
        return quoted(text) +
               " is not an environment variable name (letters, digits and '_', not starting "
               "with a digit)";
      }
      if (detail::is_listed(kBashReadOnly, text)) {
        return std::string(text) +
               " is read-only in bash, so the launch scripts would stop at its export before "
               "launching anything; leave it out";
      }
      if (detail::is_listed(kBashComputed, text)) {
        return std::string(text) +
               " is a variable bash computes itself, so the launch scripts cannot pass a value "
               "of it on; leave it out";
      }
      if (detail::is_listed(kScriptVariables, text)) {
        return std::string(text) +
               " is a variable of the launch scripts themselves (here, cmd, master_addr, "
               "rdzv_id, ZEROFORGE_DRY_RUN): set from the environment it would change the "
               "launch; choose another name";
      }
      return "";
    case LaunchText::VariableValue:
      if (std::optional<detail::LineControl> control = detail::find_line_control(text)) {
        return detail::quoted_for_message(text) + " holds a control character or line break (" +
               detail::code_point_name(control->code_point) +
               "); each variable is written on one line (the scripts' export, the environment "
               "file DeepSpeed's launcher reads line by line)";
      }
      if (is_exportable_value(text)) return "";
      return quoted(text) +
             ": DeepSpeed's launcher strips the value and hands it to the other nodes' shell in "
             "double quotes, so it cannot hold '\"', '$', '`' or '\\', nor begin or end with a "
             "space";
    case LaunchText::SlurmName:
      if (is_slurm_name(text)) return "";
      return quoted(text) +
             " is not a SLURM name (letters, digits, '_', '-' and '.', not starting with '-')";
    case LaunchText::SlurmTime:
      if (is_slurm_time(text)) return "";
      return quoted(text) +
             " is not a time limit SLURM reads (minutes, minutes:seconds, hours:minutes:seconds, "
             "days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED)";
    case LaunchText::SlurmWord:
      if (is_slurm_word(text)) return "";
      return quoted(text) +
             " cannot be written as one #SBATCH value (sbatch splits the line at white space and "
             "reads quotes, '\\' and '#' itself): printable ASCII without them";
  }
  return "unknown kind of launch text";
}

}  // namespace zf::launch
