// SPDX-License-Identifier: MIT
// failure_diagnostics: a failed generate's reasons as diagnostics, the one list the CLI, the
// Python module and GenerateResult::messages show (docs/pipelines.md).
#include <string>
#include <vector>

#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

// The closing line after values problems, refusals or validator errors.
Diagnostic not_generated(std::string message) {
  Diagnostic d;
  d.code = codes::generate_not_generated;
  d.kind = ErrorKind::Values;
  d.message = std::move(message);
  return d;
}

// A values problem as shown: the same in every variant that has it, so one without a line of
// its own says which variant, and how many more.
Diagnostic shown(const VariantProblem& problem) {
  Diagnostic d = problem.diagnostic;
  if (d.where.line != 0) return d;
  std::string where = "variant '" + problem.variant + "'";
  if (problem.others > 0) where += " (and " + std::to_string(problem.others) + " more)";
  d.message = where + ": " + d.message;
  return d;
}

// A validator finding, in format_finding's shape: `FILE: /pointer: error [rule-id]: message`.
Diagnostic finding_diagnostic(const Finding& finding) {
  Diagnostic d;
  d.code = codes::validate_finding;
  d.severity = finding.severity;
  d.kind = ErrorKind::Values;
  d.message = finding.message;
  d.where.file = finding.file;
  d.json_pointer = finding.pointer.empty() ? "/" : finding.pointer;
  d.reporter = finding.rule;
  return d;
}

}  // namespace

std::vector<Diagnostic> failure_diagnostics(const GenerateResult& result) {
  std::vector<Diagnostic> out;
  if (result.outcome == Outcome::Done) return out;
  if (result.failure) {
    out.push_back(result.failure->diagnostic);
    Diagnostic note;
    note.code = codes::generate_variant;
    note.severity = Severity::Note;
    note.kind = result.failure->diagnostic.kind;
    note.message = "while " + result.failure->doing + " variant '" + result.failure->variant +
                   "' of " + result.family_file + "; nothing was written";
    out.push_back(std::move(note));
    return out;
  }
  // Problems, then refusals, as every entry point lists them (the problems decide: exit 2).
  for (const auto& problem : result.problems) out.push_back(shown(problem));
  for (const auto& refusal : result.refusals)
    out.push_back(to_diagnostic(refusal, result.family_file));
  if (!result.problems.empty()) {
    out.push_back(
        not_generated("family '" + result.family_name + "' not generated; nothing was written"));
    return out;
  }
  if (!result.refusals.empty()) {
    out.push_back(not_generated("family '" + result.family_name +
                                "' not generated: " + std::to_string(result.refusals.size()) +
                                " config(s) cannot be made as asked; nothing was written"));
    return out;
  }
  if (has_errors(result.findings)) {
    for (const auto& finding : result.findings) out.push_back(finding_diagnostic(finding));
    out.push_back(
        not_generated("the validator found errors in generated configs; nothing was written"));
  }
  return out;
}

std::vector<std::string> diagnostic_lines(const GenerateResult& result) {
  std::vector<std::string> lines;
  for (const auto& d : failure_diagnostics(result)) lines.push_back(to_string(d));
  return lines;
}

}  // namespace zf
