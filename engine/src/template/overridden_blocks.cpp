// SPDX-License-Identifier: MIT
// Template::overridden_blocks: which blocks of the parents never render (overridden without
// super()), and what only they read: values set for them would be silently ignored.
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "template/analyzer.hpp"
#include "template/ast.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

// Deeper chains than this are cut short by rendering's nesting budget long before.
constexpr std::size_t kMaxChain = 256;

struct DeadBlock {
  const detail::BlockStmt* stmt;
  std::string block, parent, overridden_by;
};

}  // namespace

std::vector<OverriddenBlock> Template::overridden_blocks() const {
  // The chain of static parents, this template first.
  std::vector<std::shared_ptr<const Template>> keep;
  std::vector<const Template*> chain{this};
  std::set<std::string> seen{name()};
  for (const Template* at = this; chain.size() < kMaxChain;) {
    const std::optional<std::string> parent = at->static_parent();
    if (!parent || !seen.insert(*parent).second) break;
    std::shared_ptr<const Template> loaded;
    try {
      loaded = environment_.try_load(*parent);
    } catch (const std::exception&) {
      // A parent that does not parse is reported when rendering reaches it.
    }
    if (!loaded) break;
    keep.push_back(loaded);
    chain.push_back(loaded.get());
    at = loaded.get();
  }
  if (chain.size() < 2) return {};

  // A parent's block renders only when every override below it calls super(); the one that
  // does not (nearest first) is the override to name.
  std::vector<DeadBlock> dead;
  std::set<const detail::BlockStmt*> skip;
  for (std::size_t level = 1; level < chain.size(); ++level) {
    for (const auto& [block, stmt] : chain[level]->tree().blocks) {
      for (std::size_t below = level; below-- > 0;) {
        const auto& blocks = chain[below]->tree().blocks;
        auto over = blocks.find(block);
        if (over == blocks.end()) continue;
        if (detail::find_names_read(*over->second, environment_).calls_super) continue;
        dead.push_back({stmt, block, chain[level]->name(), chain[below]->name()});
        skip.insert(stmt);
        break;
      }
    }
  }
  if (dead.empty()) return {};

  // What only one dead block reads: read when it alone renders again, and not otherwise. The
  // whole chain is analysed each time, so names the parent declares (a top-level `set`, an
  // import) stay declared inside its blocks.
  const std::set<std::string> rendered = detail::find_names_read(*tree_, environment_, skip).names;
  std::vector<OverriddenBlock> out;
  for (const DeadBlock& d : dead) {
    std::set<const detail::BlockStmt*> others = skip;
    others.erase(d.stmt);
    OverriddenBlock block{d.block, d.parent, d.overridden_by, {}};
    for (const auto& name : detail::find_names_read(*tree_, environment_, others).names) {
      if (!rendered.count(name)) block.unread.push_back(name);
    }
    if (!block.unread.empty()) out.push_back(std::move(block));
  }
  return out;
}

}  // namespace zf
