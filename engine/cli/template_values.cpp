// SPDX-License-Identifier: MIT
// Template defaults and the values contract for single-template commands.
#include "template_values.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "diagnostic_printer.hpp"
#include "generate/block_overrides.hpp"

namespace zf::cli {

void check_template_argument(const Environment& environment, const std::string& template_name) {
  if (!template_name.empty() && template_name.front() == '/') {
    std::filesystem::path path(template_name);
    throw Error(ErrorKind::Usage, "TEMPLATE '" + template_name +
                                      "' is a path; TEMPLATE is a name on the template search "
                                      "path (for this file: --template-dir " +
                                      path.parent_path().string() + " " + path.filename().string() +
                                      ")");
  }
  environment.resolve(template_name);  // refuses names that climb out with '..'
}

void apply_template_defaults(const TemplateDefaults& defaults, LayeredValues& values) {
  for (const auto& layer : defaults.layers) values.apply(layer.source, layer.values);
}

bool is_plugin_fact(std::string_view name) {
  // The tail of the contract's known names (engine/src/family/contract.cpp, kKnownNames).
  for (std::string_view fact : {"gpu_memory_gib", "cpu_memory_gib", "gpu_memory_margin", "gpu",
                                "tier", "model", "auto_fit"}) {
    if (name == fact) return true;
  }
  return false;
}

void warn_unread_values(const Template& tpl, const LayeredValues& values) {
  const std::vector<std::string> read = tpl.undeclared_variables();
  std::vector<std::string> warned;
  for (const auto& [pointer, source] : values.leaves()) {
    if (source.kind != LayerKind::Set && source.kind != LayerKind::ValuesFile) continue;
    const std::string top = pointer.substr(1, pointer.find('/', 1) - 1);
    if (is_plugin_fact(top) || std::find(read.begin(), read.end(), top) != read.end()) continue;
    if (std::find(warned.begin(), warned.end(), top) != warned.end()) continue;
    warned.push_back(top);
    print_message(std::cerr, source.label + ": warning: " + top + " is set but " + tpl.name() +
                                 " never reads it (a typo? `zeroforge explain " + tpl.name() +
                                 "` lists what it reads)");
  }
}

void warn_overridden_block_values(const Template& tpl, const LayeredValues& values) {
  std::vector<pipeline::ValueSet> sets;
  for (const auto& [pointer, source] : values.leaves()) {
    if (source.kind != LayerKind::Set && source.kind != LayerKind::ValuesFile &&
        source.kind != LayerKind::Tier)
      continue;
    sets.push_back({pointer.substr(1, pointer.find('/', 1) - 1), source.label});
  }
  for (const auto& line : pipeline::overridden_block_warnings(tpl, sets))
    print_message(std::cerr, line);
}

void throw_problems(const std::vector<Error>& problems) {
  if (problems.empty()) return;
  for (std::size_t i = 0; i + 1 < problems.size(); ++i) print_error(std::cerr, problems[i]);
  throw problems.back();
}

std::vector<Error> template_value_problems(const TemplateDefaults& defaults,
                                           const LayeredValues& values, DeepSpeedFacts* facts) {
  // The layers were applied by label only: each label (a file, `--set k=v`) is the site.
  std::vector<Error> problems;
  auto place = [&](const Error& problem) {
    const LayerSource* source = values.origin(problem.json_pointer());
    problems.emplace_back(ErrorKind::Values, problem.message(), source ? source->label : "",
                          problem.json_pointer());
  };
  for (const auto& problem : check_pinned_values(defaults.pins, values.merged())) place(problem);
  if (defaults.contract == "deepspeed") {
    ContractCheck check = check_deepspeed_values(values.merged());
    for (const auto& problem : check.problems) place(problem);
    if (facts) *facts = check.facts;
  }
  return problems;
}

void check_template_values(const TemplateDefaults& defaults, const LayeredValues& values) {
  throw_problems(template_value_problems(defaults, values));
}

}  // namespace zf::cli
