// SPDX-License-Identifier: MIT
// The expressions directly inside an expression node, for the passes that walk the tree (the
// resolver, the analyzer, the parser's height count, Expr's destructor). A node's operands are
// owned through ExprPtr, so `each` receives `Expr&` even from a const node: a pass that
// rewrites expressions and one that only reads them share these.
#pragma once

#include <initializer_list>
#include <type_traits>

#include "template/ast.hpp"

namespace zf::detail {

/// Calls `each(slot)` for every ExprPtr directly inside `node`, null ones included (an
/// optional part, or the object of a Chain's link); `Node` may be const. The one list of a
/// node kind's operands: every other walk is built on it.
template <typename Node, typename Each>
void for_each_slot(Node& node, Each&& each) {
  using Plain = std::remove_const_t<Node>;
  auto arguments = [&](auto& args) {
    for (auto& arg : args.positional) each(arg);
    for (auto& keyword : args.keyword) each(keyword.second);
    if (args.star) each(args.star);
    if (args.star_star) each(args.star_star);
  };
  if constexpr (std::is_same_v<Plain, Literal> || std::is_same_v<Plain, NameRef>) {
    (void)arguments;
  } else if constexpr (std::is_same_v<Plain, GetAttr>) {
    each(node.object);
  } else if constexpr (std::is_same_v<Plain, GetItem>) {
    each(node.object);
    each(node.key);
  } else if constexpr (std::is_same_v<Plain, SliceExpr>) {
    each(node.object);
    each(node.start);
    each(node.stop);
    each(node.step);
  } else if constexpr (std::is_same_v<Plain, Unary>) {
    each(node.operand);
  } else if constexpr (std::is_same_v<Plain, Binary>) {
    each(node.first);
    for (auto& operand : node.rest) each(operand.operand);
  } else if constexpr (std::is_same_v<Plain, Compare>) {
    each(node.first);
    for (auto& link : node.rest) each(link.second);
  } else if constexpr (std::is_same_v<Plain, Conditional>) {
    each(node.test);
    each(node.then);
    each(node.otherwise);
  } else if constexpr (std::is_same_v<Plain, ListExpr>) {
    for (auto& item : node.items) each(item);
  } else if constexpr (std::is_same_v<Plain, DictExpr>) {
    for (auto& item : node.items) {
      each(item.first);
      each(item.second);
    }
  } else if constexpr (std::is_same_v<Plain, Call>) {
    each(node.callee);
    arguments(node.args);
  } else if constexpr (std::is_same_v<Plain, FilterExpr> || std::is_same_v<Plain, TestExpr>) {
    each(node.subject);
    arguments(node.args);
  } else if constexpr (std::is_same_v<Plain, Chain>) {
    each(node.subject);
    for (auto& link : node.links) each(link);
  } else {
    static_assert(!sizeof(Plain), "an expression node kind for_each_slot does not know");
  }
}

/// Calls `each(child)` for every expression directly inside `node`.
template <typename Node, typename Each>
void for_each_operand(const Node& node, Each&& each) {
  for_each_slot(node, [&](const ExprPtr& slot) {
    if (slot) each(*slot);
  });
}

/// Calls `each(arg)` for every positional and keyword argument.
template <typename Each>
void for_each_argument(const CallArguments& args, Each&& each) {
  for (const auto& arg : args.positional) each(*arg);
  for (const auto& [name, arg] : args.keyword) each(*arg);
  if (args.star) each(*args.star);
  if (args.star_star) each(*args.star_star);
}

}  // namespace zf::detail
