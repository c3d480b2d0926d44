// SPDX-License-Identifier: MIT
// The rules for text a launch hands to other programs: host names (hostfile lines, pdsh's -w
// list), environment variables (.deepspeed_env, the launch scripts) and the values of SLURM's
// `#SBATCH` directives. One copy: companions (generate/) check their `launch` values with it,
// and plugins reach it through zf_host::check_launch_text (plugins/). It is a module of its own,
// below both and needing only the core, so that the plugin host does not read the companion
// writer (engine/src/README.md).
#pragma once

#include <string>
#include <string_view>

namespace zf::launch {

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
