// SPDX-License-Identifier: MIT
// Which of the special names `caller`, `kwargs` and `varargs` a macro's body reads, the way
// Jinja2's compiler decides which implicit parameters a macro takes.
#pragma once

#include "template/ast.hpp"

namespace zf::detail {

/// Sets `node`'s accesses_caller, catch_kwargs, catch_varargs and explicit_caller from its
/// parameters and body. As in Jinja2 (UndeclaredNameVisitor), the body is searched in order,
/// nested macros and call blocks included and blocks left out: a name counts when it is read
/// before anything there assigns or declares it. Returns false when the body reads `caller`
/// while a parameter without a default is called `caller` (Jinja2 refuses that macro).
bool find_macro_specials(MacroStmt& node);

}  // namespace zf::detail
