// SPDX-License-Identifier: MIT
// The expression tree's destructor (engine/src/template/ast.cpp): a tree of any height is
// released with a bounded stack.
#include "template/ast.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

namespace zf::detail {
namespace {

ExprPtr leaf() { return ExprPtr(new Expr{0, 1, Literal{Value(1)}}); }

// `not not ... 1`, `height` levels, built without recursion (as no parser would allow).
ExprPtr unary_chain(std::uint32_t height) {
  ExprPtr node = leaf();
  for (std::uint32_t i = 1; i < height; ++i)
    node = ExprPtr(new Expr{0, i + 1, Unary{UnaryOp::Not, std::move(node)}});
  return node;
}

// Every kind of operand slot at once, nested `height` times through the first one: a node's
// other operands are leaves.
ExprPtr mixed_chain(std::uint32_t height) {
  ExprPtr node = leaf();
  for (std::uint32_t i = 1; i < height; ++i) {
    switch (i % 4) {
      case 0: {
        std::vector<BinaryOperand> rest;
        rest.push_back(BinaryOperand{BinaryOp::Add, 0, leaf()});
        node = ExprPtr(new Expr{0, i + 1, Binary{std::move(node), std::move(rest)}});
        break;
      }
      case 1:
        node = ExprPtr(new Expr{0, i + 1, Conditional{leaf(), std::move(node), leaf()}});
        break;
      case 2: {
        ListExpr list;
        list.items.push_back(leaf());
        list.items.push_back(std::move(node));
        node = ExprPtr(new Expr{0, i + 1, std::move(list)});
        break;
      }
      default: {
        std::vector<ExprPtr> links;
        links.push_back(leaf());
        node = ExprPtr(new Expr{0, i + 1, Chain{std::move(node), std::move(links)}});
      }
    }
  }
  return node;
}

// A million levels, released on a thread with a 256 KiB stack: a recursive release would
// need far more (tens of bytes a level at the least).
TEST(AstTest, ReleasingATreeOfAnyHeightTakesABoundedStack) {
  for (auto build : {unary_chain, mixed_chain}) {
    ExprPtr tree = build(1'000'000);
    pthread_attr_t attributes;
    ASSERT_EQ(pthread_attr_init(&attributes), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attributes, 256 * 1024), 0);
    pthread_t thread;
    auto release = [](void* argument) -> void* {
      static_cast<ExprPtr*>(argument)->reset();
      return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attributes, release, &tree), 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    pthread_attr_destroy(&attributes);
    EXPECT_EQ(tree, nullptr);
  }
}

}  // namespace
}  // namespace zf::detail
