// SPDX-License-Identifier: MIT
// ProblemLog (see problem_log.hpp).
#include "problem_log.hpp"

namespace zf::pipeline {

void ProblemLog::add(const Diagnostic& problem, const std::string& variant) {
  // The same text is the same problem (two codes never share one).
  auto [it, inserted] = index_.try_emplace(to_string(problem), entries_.size());
  if (inserted) {
    entries_.push_back({problem, variant, 0});
  } else {
    ++entries_[it->second].others;
  }
}

}  // namespace zf::pipeline
