// SPDX-License-Identifier: MIT
// The resource limits of the render running on this thread (EnvironmentOptions): the size of
// any string or list an operator or filter builds, checked before it is allocated.
#pragma once

#include <cstdint>
#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {

/// The largest string (bytes) or list (items) one operation may build on this thread: the
/// running render's EnvironmentOptions::max_value_size, else the default.
std::uint64_t max_value_size() noexcept;

/// Sets this thread's limit for as long as it lives (a render, or a nested one).
class ValueSizeScope {
 public:
  explicit ValueSizeScope(std::uint64_t limit) noexcept;
  ~ValueSizeScope();
  ValueSizeScope(const ValueSizeScope&) = delete;
  ValueSizeScope& operator=(const ValueSizeScope&) = delete;

 private:
  std::uint64_t saved_;
};

/// Throws zf::Error (Render) when `what` would build a string or list of `size` bytes or
/// items beyond the limit; call it before allocating. `size` may be an overflowed product:
/// pass `a` and `b` and it multiplies them safely.
void check_value_size(std::uint64_t a, std::uint64_t b, const char* what);
inline void check_value_size(std::uint64_t size, const char* what) {
  check_value_size(size, 1, what);
}

}  // namespace zf::detail
