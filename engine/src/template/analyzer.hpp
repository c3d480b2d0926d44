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

}  // namespace zf::detail
