// SPDX-License-Identifier: MIT
// diagnostic_lines: a failed generate's reasons as text, so that a program using the library
// prints them with one loop over GenerateResult::messages (docs/pipelines.md).
#include <string>
#include <vector>

#include "zeroforge/generate.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

// An error as the CLI's first line of it: located, or prefixed with `zeroforge: `.
std::string error_line(const Error& error) {
  return error.has_location() ? std::string(error.what())
                              : "zeroforge: " + std::string(error.what());
}

}  // namespace

std::vector<std::string> diagnostic_lines(const GenerateResult& result) {
  std::vector<std::string> lines;
  if (result.outcome == Outcome::Done) return lines;
  if (result.failure) {
    lines.push_back(error_line(result.failure->error));
    lines.push_back("zeroforge: note: while " + result.failure->doing + " variant '" +
                    result.failure->variant + "' of " + result.family_file +
                    "; nothing was written");
    return lines;
  }
  for (const auto& refusal : result.refusals) {
    lines.push_back(result.family_file + ": error [" + refusal.plugin + "]: " + refusal.message);
  }
  if (!result.problems.empty()) {
    for (const auto& problem : result.problems) {
      const Error& e = problem.error;
      if (e.where().line != 0) {
        lines.push_back(error_line(e));
        continue;
      }
      // A value's problem is the same in every variant that has it: say which, and how many.
      std::string where = "variant '" + problem.variant + "'";
      if (problem.others > 0) where += " (and " + std::to_string(problem.others) + " more)";
      lines.push_back(error_line(Error(e.kind(), where + ": " + e.message(),
                                       e.has_location() ? e.where().file : "", e.json_pointer())));
    }
    lines.push_back("zeroforge: error: family '" + result.family_name +
                    "' not generated; nothing was written");
    return lines;
  }
  if (!result.refusals.empty()) {
    lines.push_back("zeroforge: error: family '" + result.family_name +
                    "' not generated: " + std::to_string(result.refusals.size()) +
                    " config(s) cannot be made as asked; nothing was written");
    return lines;
  }
  if (has_errors(result.findings)) {
    for (const auto& finding : result.findings) lines.push_back(format_finding(finding));
    lines.push_back(
        "zeroforge: error: the validator found errors in generated configs; nothing was written");
  }
  return lines;
}

}  // namespace zf
