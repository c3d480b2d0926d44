// SPDX-License-Identifier: MIT
// The rules for text a launch hands to other programs: host names (hostfile lines, pdsh's -w
// list), environment variables (.deepspeed_env, the launch scripts) and the values of SLURM's
// `#SBATCH` directives. One copy: companions (generate/) check their `launch` values with it,
// and plugins reach it through zf_host::check_launch_text (plugins/). It is a module of its own,
// below both and needing only the core, so that the plugin host does not read the companion
// writer (engine/src/README.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zf::launch {

/// The longest string a launch may hand to a program: Linux's execve refuses any argument or
/// environment entry (`NAME=value`) over MAX_ARG_STRLEN, 32 pages or 131072 bytes with its
/// NUL, with E2BIG ("Argument list too long").
inline constexpr std::size_t kMaxArgumentBytes = 131071;

/// The most a launch's own words may take of ARG_MAX, counted as execve counts it (exec_cost):
/// 1 MiB, half of the 2 MiB that Linux allows by default (a quarter of the 8 MiB stack limit),
/// so that the launcher's own words and the environment the job inherits keep the other half.
inline constexpr std::size_t kMaxLaunchBytes = std::size_t{1} << 20;

/// What one string of `bytes` costs of ARG_MAX: its bytes, its NUL and its pointer in argv or
/// envp.
inline constexpr std::size_t exec_cost(std::size_t bytes) { return bytes + 1 + sizeof(char*); }

/// What a piece of launch text is (zf_host::check_launch_text's ZF_LAUNCH_* kinds).
enum class LaunchText {
  HostName,       ///< a host of `launch.hosts`: a hostfile line and pdsh's `-w` list hold it
  VariableName,   ///< a name of `launch.environment`
  VariableValue,  ///< a value of `launch.environment`, as `.deepspeed_env` carries it
  SlurmName,      ///< a SLURM partition, account, qos, reservation or job name (`#SBATCH`)
  SlurmTime,      ///< a SLURM time limit (`--time`): minutes, [days-]hours:minutes:seconds, ...
  SlurmWord,      ///< another `#SBATCH` value (constraint, output path): one word on its line
};

/// "" when `text` is acceptable as `kind`, else a one-line message that shows the text (as a
/// JSON string, or a plain name a shell or bash reserves) and says the rule:
///
///     launch_text_problem(LaunchText::HostName, "gpu 1")
///     // "\"gpu 1\" is not a host name (letters, digits, '.', '-' and '_', as a hostfile
///     //  line and pdsh take it)"
std::string launch_text_problem(LaunchText kind, std::string_view text);

}  // namespace zf::launch
