// SPDX-License-Identifier: MIT
// Destroying an expression tree without recursion (ast.hpp, Expr::~Expr).
#include "template/ast.hpp"

#include <atomic>

#include "template/ast_walk.hpp"

namespace zf::detail {

std::uint64_t new_tree_id() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}
namespace {

// Moves the operands of `expr` to `pending`, leaving it without children.
void detach_operands(Expr& expr, std::vector<ExprPtr>& pending) {
  std::visit(
      [&](auto& node) {
        for_each_slot(node, [&](ExprPtr& slot) {
          if (slot) pending.push_back(std::move(slot));
        });
      },
      expr.node);
}

}  // namespace

Expr::~Expr() {
  // Each node popped here has its own operands taken first, so its destructor finds none and
  // returns at once: the stack stays flat however tall the tree (a leaf allocates nothing).
  std::vector<ExprPtr> pending;
  detach_operands(*this, pending);
  while (!pending.empty()) {
    ExprPtr next = std::move(pending.back());
    pending.pop_back();
    detach_operands(*next, pending);
  }
}

}  // namespace zf::detail
