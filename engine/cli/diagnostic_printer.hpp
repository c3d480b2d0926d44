// SPDX-License-Identifier: MIT
// Printing errors the way compilers do: the one-line message, then the source line and a caret.
#pragma once

#include <ostream>

#include "zeroforge/error.hpp"
#include "zeroforge/generate.hpp"

namespace zf::cli {

/// Prints `error` to `out`: `what()` when it has a location (else `zeroforge: error: ...`),
/// then the source line and a caret under the column when the error carries one.
void print_error(std::ostream& out, const Error& error);

/// Prints a family's values problem (generate, report) where its value was written; one
/// without a line of its own is prefixed with the variant(s) it was found in.
void print_variant_problem(std::ostream& out, const VariantProblem& problem);

}  // namespace zf::cli
