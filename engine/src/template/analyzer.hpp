// SPDX-License-Identifier: MIT
// Static analysis of a template: the top-level names it reads without defining, followed
// through includes, imports and parents whose names are string literals.
#pragma once

#include <set>
#include <string>

#include "template/ast.hpp"
#include "zeroforge/environment.hpp"

namespace zf::detail {

/// Names the template needs from its values (Jinja2's `meta.find_undeclared_variables`,
/// extended across static includes/extends/imports). Names that the template guards
/// anywhere with `is defined`, `is undefined` or the `default` filter are left out: the
/// template copes without them.
std::set<std::string> find_required_names(const TemplateTree& tree, const Environment& environment);

/// What a template (or one block of it) reads from its values.
struct NamesRead {
  /// Every top-level name read without being defined, guarded ones included.
  std::set<std::string> names;
  /// Whether it calls `super()` (for a block: whether its parent's block still renders).
  bool calls_super = false;
};

/// The names `tree` reads, following static includes, imports and parents, but not into the
/// bodies of the `skip` blocks (blocks a more derived template overrides: they never render).
NamesRead find_names_read(const TemplateTree& tree, const Environment& environment,
                          const std::set<const BlockStmt*>& skip = {});
/// The names one block's body reads, as if it were rendered on its own.
NamesRead find_names_read(const BlockStmt& block, const Environment& environment);

}  // namespace zf::detail
