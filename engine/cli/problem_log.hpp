// SPDX-License-Identifier: MIT
// Errors about a family's values, collected across its variants and printed once each.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "zeroforge/error.hpp"

namespace zf::cli {

/// Errors about values repeat for every variant that shares the offending layer: each is
/// reported once, with the first variant that hit it and how many others did.
class ProblemLog {
 public:
  void add(const Error& error, const std::string& variant);
  bool empty() const noexcept { return entries_.empty(); }
  /// `variant 'V' (and N more): message`, located as the error is, in the order first seen.
  void print(std::ostream& out) const;

 private:
  struct Entry {
    Error error;
    std::string variant;
    std::size_t others;
  };
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace zf::cli
