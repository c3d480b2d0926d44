// SPDX-License-Identifier: MIT
// ProblemLog (see problem_log.hpp).
#include "problem_log.hpp"

#include "diagnostic_printer.hpp"

namespace zf::cli {

void ProblemLog::add(const Error& error, const std::string& variant) {
  auto [it, inserted] = index_.try_emplace(error.what(), entries_.size());
  if (inserted) {
    entries_.push_back({error, variant, 0});
  } else {
    ++entries_[it->second].others;
  }
}

void ProblemLog::print(std::ostream& out) const {
  for (const auto& entry : entries_) {
    std::string where = "variant '" + entry.variant + "'";
    if (entry.others > 0) where += " (and " + std::to_string(entry.others) + " more)";
    const Error& e = entry.error;
    Error shown =
        e.has_location()
            ? Error(e.kind(), where + ": " + e.message(), e.where().file, e.json_pointer())
            : Error(e.kind(), where + ": " + e.message(), "", e.json_pointer());
    print_error(out, e.where().line != 0 ? e : shown);
  }
}

}  // namespace zf::cli
