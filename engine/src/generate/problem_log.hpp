// SPDX-License-Identifier: MIT
// Problems with a family's values, collected across its variants and reported once each.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/generate.hpp"

namespace zf::pipeline {

/// Problems with values repeat for every variant that shares the offending layer: each is
/// kept once, with the first variant that hit it and how many others did.
class ProblemLog {
 public:
  void add(const Diagnostic& problem, const std::string& variant);
  bool empty() const noexcept { return entries_.empty(); }
  /// The problems in the order first seen.
  std::vector<VariantProblem> take() { return std::move(entries_); }

 private:
  std::vector<VariantProblem> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace zf::pipeline
