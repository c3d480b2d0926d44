// SPDX-License-Identifier: MIT
// Python's operator semantics on zf::Value: arithmetic with int/float rules and overflow
// checks, `~`, comparisons and `in`.
#pragma once

#include "template/ast.hpp"
#include "zeroforge/value.hpp"

namespace zf::detail {

/// `left op right` for the arithmetic and concatenation operators (not `and`/`or`, which
/// short-circuit in the renderer). Throws zf::Error (Render) with Python's TypeError text.
Value apply_binary(BinaryOp op, const Value& left, const Value& right);
/// `-x`, `+x`, `not x`.
Value apply_unary(UnaryOp op, const Value& operand);
/// One comparison of a (possibly chained) comparison.
bool apply_compare(CompareOp op, const Value& left, const Value& right);
/// Python's `item in container` for strings, lists and dicts (keys).
bool contains(const Value& container, const Value& item);

}  // namespace zf::detail
