// SPDX-License-Identifier: MIT
// What auto-fit may choose is said in one place (plugins/memory/fit_choices.hpp); the table
// of docs/estimator.md ("What auto-fit may choose") says the same, row by row.
#include "memory/fit_choices.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace zf::memory {
namespace {

// The cells of each row of the table under `heading` in `markdown` (header and rule skipped),
// backticks removed.
std::vector<std::vector<std::string>> table_under(const std::string& markdown,
                                                  const std::string& heading) {
  std::vector<std::vector<std::string>> rows;
  auto at = markdown.find("\n" + heading + "\n");
  if (at == std::string::npos) return rows;
  std::istringstream in(markdown.substr(at + heading.size() + 2));
  std::string line;
  bool in_table = false;
  int seen = 0;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (++seen <= 2) continue;  // the header and the |---| rule
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|') {
        while (!cell.empty() && cell.back() == ' ') cell.pop_back();
        cells.push_back(cell);
        cell.clear();
      } else if (line[i] != '`' && !(cell.empty() && line[i] == ' ')) {
        cell += line[i];
      }
    }
    rows.push_back(cells);
  }
  return rows;
}

TEST(FitChoicesTest, TheDocsListExactlyWhatTheCodeMayChoose) {
  std::ifstream file(std::string(ZF_SOURCE_DIR) + "/docs/estimator.md");
  ASSERT_TRUE(file);
  std::stringstream text;
  text << file.rdbuf();
  const auto rows = table_under(text.str(), "### What auto-fit may choose");
  ASSERT_EQ(rows.size(), kFitChoices.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(kFitChoices[i].value);
    ASSERT_EQ(rows[i].size(), 3u);
    EXPECT_EQ(rows[i][0], kFitChoices[i].value);
    EXPECT_EQ(rows[i][1], kFitChoices[i].space.empty() ? "—" : kFitChoices[i].space);
    EXPECT_EQ(rows[i][2], kFitChoices[i].how);
  }
}

}  // namespace
}  // namespace zf::memory
