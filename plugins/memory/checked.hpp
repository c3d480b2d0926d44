// SPDX-License-Identifier: MIT
// The memory plugin's integer arithmetic on sizes from the input (batch sizes, GPU counts,
// parameters, bytes), which may be anything up to 2^63 - 1: an overflow is reported, never a
// wrapped number (undefined behaviour for std::int64_t).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

namespace zf::memory {

/// The product of `factors`, or nullopt when it does not fit in 64 bits: for batch sizes and
/// GPU counts, whose callers report the value's JSON pointer.
inline std::optional<std::int64_t> checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 1;
  for (std::int64_t factor : factors) {
    if (__builtin_mul_overflow(product, factor, &product)) return std::nullopt;
  }
  return product;
}

/// "gpus_per_node x nodes = 3 x 4 is beyond 64-bit integers (9223372036854775807)".
inline std::string beyond_int64(const std::string& what) {
  return what + " is beyond 64-bit integers (" + std::to_string(INT64_MAX) + ")";
}

/// Byte counts of an estimate. Past 2^63 - 1 bytes (8 EiB) no machine holds the model: the
/// sizes are wrong, which these report as estimate() reports any bad input
/// (std::invalid_argument).
[[noreturn]] inline void bytes_beyond_range() {
  throw std::invalid_argument(
      "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes");
}
inline std::int64_t bytes_product(std::initializer_list<std::int64_t> factors) {
  std::optional<std::int64_t> product = checked_product(factors);
  if (!product) bytes_beyond_range();
  return *product;
}
inline std::int64_t bytes_sum(std::initializer_list<std::int64_t> terms) {
  std::int64_t sum = 0;
  for (std::int64_t term : terms) {
    if (__builtin_add_overflow(sum, term, &sum)) bytes_beyond_range();
  }
  return sum;
}
/// `bytes` rounded to the nearest integer (std::llround), checked to fit first.
inline std::int64_t bytes_of(double bytes) {
  if (!(std::fabs(bytes) < 9.0e18)) bytes_beyond_range();
  return std::llround(bytes);
}

}  // namespace zf::memory
