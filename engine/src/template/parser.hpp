// SPDX-License-Identifier: MIT
// The parser: tokens → TemplateTree by recursive descent, one function per grammar rule and
// precedence level (Jinja2's ladder). Unknown filters and tests fail here, not at render.
#pragma once

#include <memory>
#include <string>

#include "template/ast.hpp"
#include "template/lexer.hpp"
#include "zeroforge/environment.hpp"

namespace zf::detail {

/// Parses `source` (raw text; it is normalised here) into a tree. `name` is the template name
/// on the search path, `origin` the file shown in errors. Throws zf::Error (Syntax) with the
/// location of the first problem, including nesting deeper than `max_nesting` levels.
std::shared_ptr<const TemplateTree> parse_template(std::string name, std::string origin,
                                                   std::string_view source,
                                                   const LexerOptions& options,
                                                   const FunctionRegistry& functions,
                                                   int max_nesting);

}  // namespace zf::detail
