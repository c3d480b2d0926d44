// SPDX-License-Identifier: MIT
// ProblemLog (see problem_log.hpp).
#include "problem_log.hpp"

namespace zf::pipeline {

void ProblemLog::add(const Error& error, const std::string& variant) {
  auto [it, inserted] = index_.try_emplace(error.what(), entries_.size());
  if (inserted) {
    entries_.push_back({error, variant, 0});
  } else {
    ++entries_[it->second].others;
  }
}

}  // namespace zf::pipeline
