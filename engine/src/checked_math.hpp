// SPDX-License-Identifier: MIT
// Products and sums of integers that come from the input (batch sizes, GPU counts), which may
// be anything up to 2^63 - 1: an overflow is an answer the caller reports at the value's
// JSON pointer, never a wrapped number (undefined behaviour, and a `% 0` once it wrapped to 0).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace zf::detail {

/// The product of `factors`, or nullopt when it does not fit in 64 bits.
inline std::optional<std::int64_t> checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 1;
  for (std::int64_t factor : factors) {
    if (__builtin_mul_overflow(product, factor, &product)) return std::nullopt;
  }
  return product;
}

/// `a + b`, or nullopt when it does not fit in 64 bits.
inline std::optional<std::int64_t> checked_sum(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

/// "is beyond 64-bit integers (9223372036854775807)": the end of a message about a product
/// or sum that overflowed.
inline std::string beyond_int64() {
  return "is beyond 64-bit integers (" + std::to_string(INT64_MAX) + ")";
}

}  // namespace zf::detail
