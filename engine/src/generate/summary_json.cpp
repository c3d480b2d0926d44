// SPDX-License-Identifier: MIT
// generate_summary_json: a generate's result as the JSON summary pipelines read (the CLI's
// `--format json`, the Python module's GenerateResult).
#include <string>

#include "zeroforge/generate.hpp"

namespace zf {
namespace {
using Json = nlohmann::ordered_json;

Json finding_json(const Finding& finding) {
  return {{"file", finding.file},
          {"pointer", finding.pointer},
          {"severity", severity_name(finding.severity)},
          {"rule", finding.rule},
          {"message", finding.message}};
}

Json error_json(const Error& error) {
  Json out = {{"message", error.message()}};
  if (error.has_location()) {
    out["file"] = error.where().file;
    if (error.where().line != 0) {
      out["line"] = error.where().line;
      out["column"] = error.where().column;
    }
  }
  if (!error.json_pointer().empty()) out["pointer"] = error.json_pointer();
  return out;
}

}  // namespace

Json generate_summary_json(const GenerateRequest& request, const GenerateResult& result) {
  Json out = {{"family", result.family_name},         {"output_dir", request.output_dir.string()},
              {"manifest", result.manifest.string()}, {"check", request.check},
              {"exit_code", result.exit_code},        {"configs", result.configs},
              {"companions", result.companions}};
  auto list = [&](FileChange change) {
    Json paths = Json::array();
    for (const auto& file : result.files)
      if (file.change == change) paths.push_back(file.path);
    return paths;
  };
  if (request.check) {
    for (FileChange change : {FileChange::Missing, FileChange::Changed, FileChange::Extra})
      out[std::string(to_string(change))] = list(change);
  } else {
    for (FileChange change : {FileChange::Written, FileChange::Unchanged, FileChange::Removed})
      out[std::string(to_string(change))] = list(change);
  }
  Json findings = Json::array();
  for (const auto& finding : result.findings) findings.push_back(finding_json(finding));
  out["findings"] = std::move(findings);
  Json refusals = Json::array();
  for (const auto& refusal : result.refusals) {
    refusals.push_back({{"plugin", refusal.plugin},
                        {"pointer", refusal.pointer},
                        {"message", refusal.message},
                        {"file", refusal.file},
                        {"file_pointer", refusal.file_pointer}});
  }
  out["refusals"] = std::move(refusals);
  Json errors = Json::array();
  for (const auto& problem : result.problems) {
    Json error = error_json(problem.error);
    error["variant"] = problem.variant;
    error["other_variants"] = problem.others;
    errors.push_back(std::move(error));
  }
  if (result.failure) {
    Json error = error_json(result.failure->error);
    error["variant"] = result.failure->variant;
    errors.push_back(std::move(error));
  }
  out["errors"] = std::move(errors);
  return out;
}

}  // namespace zf
