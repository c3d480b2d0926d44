// SPDX-License-Identifier: MIT
// The per-thread value size limit (limits.hpp). A thread-local, because the operators that
// build values run deep inside expressions with no environment at hand.
#include "template/limits.hpp"

namespace zf::detail {
namespace {

thread_local std::uint64_t current_limit = EnvironmentOptions{}.max_value_size;

}  // namespace

std::uint64_t max_value_size() noexcept { return current_limit; }

ValueSizeScope::ValueSizeScope(std::uint64_t limit) noexcept : saved_(current_limit) {
  current_limit = limit;
}

ValueSizeScope::~ValueSizeScope() { current_limit = saved_; }

void check_value_size(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t size = 0;
  if (!__builtin_mul_overflow(a, b, &size) && size <= current_limit) return;
  throw Error(ErrorKind::Render,
              std::string(what) + " would build a value of " +
                  (size == 0 && a != 0 ? std::string("more than 2^64") : std::to_string(size)) +
                  " bytes or items; one value may hold at most " + std::to_string(current_limit) +
                  " (EnvironmentOptions::max_value_size)");
}

}  // namespace zf::detail
