// SPDX-License-Identifier: MIT
// Values an overridden block leaves unread: a team copies a block to change one key, and the
// values that block read are silently ignored from then on; this names each one.
#include "generate/block_overrides.hpp"

#include <map>
#include <set>

#include "zeroforge/diagnostic_codes.hpp"

namespace zf::pipeline {

std::vector<Diagnostic> overridden_block_warnings(const Template& tpl,
                                                  const std::vector<ValueSet>& sets) {
  std::vector<Diagnostic> warnings;
  if (sets.empty()) return warnings;  // nothing set: the analysis is not needed
  const std::vector<OverriddenBlock> blocks = tpl.overridden_blocks();
  std::map<std::string, const OverriddenBlock*> unread;
  for (const auto& block : blocks) {
    for (const auto& name : block.unread) unread.emplace(name, &block);  // the nearest parent's
  }
  std::set<std::string> warned;
  for (const auto& set : sets) {
    auto it = unread.find(set.name);
    if (it == unread.end() || !warned.insert(set.name).second) continue;
    const OverriddenBlock& block = *it->second;
    Diagnostic warning;
    warning.code = codes::values_overridden_block;
    warning.severity = Severity::Warning;
    warning.where.file = set.label;
    warning.message = set.name + " is set, but only block '" + block.block + "' of " +
                      block.parent + " reads it, and " + block.overridden_by +
                      " overrides that block without super(): the config ignores it (to "
                      "change one key, set its value rather than override the block; "
                      "docs/values.md)";
    warnings.push_back(std::move(warning));
  }
  return warnings;
}

}  // namespace zf::pipeline
