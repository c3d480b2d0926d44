// SPDX-License-Identifier: MIT
// The resolver: the pass after parsing that lays out each scope's variables in slots and
// tells every name reference and assignment where its variable lives (scope.hpp).
#pragma once

#include "template/ast.hpp"

namespace zf::detail {

/// Fills `tree`'s scopes and the `where` of its NameRefs and Targets.
void resolve_scopes(TemplateTree& tree);

}  // namespace zf::detail
