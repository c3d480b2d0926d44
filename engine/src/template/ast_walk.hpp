// SPDX-License-Identifier: MIT
// The expressions directly inside an expression node, for the passes that walk the tree (the
// resolver, the analyzer). A node's operands are owned through ExprPtr, so `each` receives
// `Expr&` even from a const node: a pass that rewrites expressions and one that only reads
// them share these.
#pragma once

#include <initializer_list>

#include "template/ast.hpp"

namespace zf::detail {

/// Calls `each(child)` for every expression directly inside `node`.
template <typename Each>
void for_each_operand(const Literal&, Each&&) {}
template <typename Each>
void for_each_operand(const NameRef&, Each&&) {}
template <typename Each>
void for_each_operand(const GetAttr& node, Each&& each) {
  each(*node.object);
}
template <typename Each>
void for_each_operand(const GetItem& node, Each&& each) {
  each(*node.object);
  each(*node.key);
}
template <typename Each>
void for_each_operand(const SliceExpr& node, Each&& each) {
  each(*node.object);
  for (const ExprPtr* bound : {&node.start, &node.stop, &node.step}) {
    if (*bound) each(**bound);
  }
}
template <typename Each>
void for_each_operand(const Unary& node, Each&& each) {
  each(*node.operand);
}
template <typename Each>
void for_each_operand(const Binary& node, Each&& each) {
  each(*node.left);
  each(*node.right);
}
template <typename Each>
void for_each_operand(const Compare& node, Each&& each) {
  each(*node.first);
  for (const auto& [op, operand] : node.rest) each(*operand);
}
template <typename Each>
void for_each_operand(const Conditional& node, Each&& each) {
  each(*node.test);
  each(*node.then);
  if (node.otherwise) each(*node.otherwise);
}
template <typename Each>
void for_each_operand(const ListExpr& node, Each&& each) {
  for (const auto& item : node.items) each(*item);
}
template <typename Each>
void for_each_operand(const DictExpr& node, Each&& each) {
  for (const auto& [key, value] : node.items) {
    each(*key);
    each(*value);
  }
}
/// Calls `each(arg)` for every positional and keyword argument.
template <typename Each>
void for_each_argument(const CallArguments& args, Each&& each) {
  for (const auto& arg : args.positional) each(*arg);
  for (const auto& [name, arg] : args.keyword) each(*arg);
}
template <typename Each>
void for_each_operand(const Call& node, Each&& each) {
  each(*node.callee);
  for_each_argument(node.args, each);
}
template <typename Each>
void for_each_operand(const FilterExpr& node, Each&& each) {
  each(*node.subject);
  for_each_argument(node.args, each);
}
template <typename Each>
void for_each_operand(const TestExpr& node, Each&& each) {
  each(*node.subject);
  for_each_argument(node.args, each);
}

}  // namespace zf::detail
