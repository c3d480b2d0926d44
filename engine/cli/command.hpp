// SPDX-License-Identifier: MIT
// The shape every CLI command has, the exit codes, and the helpers commands share.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroforge/diagnostic.hpp"

namespace zf::cli {

/// Exit codes (docs/cli.md): 0 success, 1 findings, 2 errors (bad input, usage).
enum ExitCode : int { kSuccess = 0, kFindings = 1, kError = 2 };

/// The exit code of a library outcome: Done 0; Refused (a plugin or the validator) and Stale
/// (`--check` found drift) 1; Failed (bad input) 2.
constexpr int exit_code_of(Outcome outcome) noexcept {
  return outcome == Outcome::Done ? kSuccess : outcome == Outcome::Failed ? kError : kFindings;
}

/// One subcommand: `zeroforge NAME ARGS...`. `run` gets the arguments after NAME, returns
/// an exit code and may throw zf::Error (printed by main, exit 2).
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

/// Every command, in the order `--help` lists them.
const std::vector<Command>& commands();

/// `zeroforge ARGS...` (the arguments after the program name): runs the command, prints what
/// it has to say and every failure, and returns the exit code (0, 1 or 2). Never exits, so a
/// test or fuzz target can call it in process; a failure to write stdout is exit 2.
int run_main(const std::vector<std::string>& args);

/// Called by a command once it has read `--format json`: from then on, an error that stops it
/// (a zf::Error, exit 2) is written on stdout too, as `{"exit_code": 2, KEY: [DIAGNOSTIC]}` with
/// the diagnostic as --format json writes one (code, kind, location). KEY is the name the
/// command's own JSON gives its problems (`errors`; explain's `diagnostics`), so a pipeline
/// that reads stdout learns what stopped the run. stderr still has the text.
void report_errors_as_json(const char* key = "errors");

/// Directories zeroforge ships next to its executable (build tree and install tree alike):
/// `<exe>/../share/zeroforge/templates`, `.../presets`, `<exe>/../lib/zeroforge/plugins`.
std::filesystem::path data_dir();
/// `n` and `word`, with an `s` unless `n` is 1: "1 config", "3 errors" (the summaries of
/// import, migrate and validate; defined once, since with ZEROFORGE_UNITY they may share a unit).
inline std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::filesystem::path builtin_templates_dir();
std::filesystem::path builtin_presets_dir();
std::filesystem::path builtin_plugins_dir();

}  // namespace zf::cli
