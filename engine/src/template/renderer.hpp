// SPDX-License-Identifier: MIT
// The renderer: walks a TemplateTree over a context, with Jinja2's scoping, inheritance,
// includes, imports and macros, and StrictUndefined semantics.
#pragma once

#include <string>
#include <vector>

#include "template/ast.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// Where a stretch of output came from: output bytes from `output_offset` on were written by
/// the node at `source_offset` of `tree` (used to map JSON errors back to the template).
struct OutputMark {
  std::size_t output_offset;
  const TemplateTree* tree;
  std::size_t source_offset;
};

/// Renders `tree` with `context` (a dict, or undefined for none) over `globals` (a dict, or
/// nullptr: names `context` lacks are looked up there), appending to `out`. When `marks` is
/// given, records an OutputMark for every piece of output. Throws zf::Error located at the
/// failing node.
void render_tree(const Environment& environment, const TemplateTree& tree, const Value& context,
                 const Value* globals, std::string& out, std::vector<OutputMark>* marks);

}  // namespace zf::detail
