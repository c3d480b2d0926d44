// SPDX-License-Identifier: MIT
// zf::companion_kinds() is the one list of companion kinds: every place a user reads the list
// (the docs, the CMake function's documentation, generate --help) names exactly those kinds,
// in that order. A list written anywhere else by hand falls behind it; this fails then.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;

// Each run of kinds in `text` that starts "deepspeed, torchrun, accelerate" (quoted as
// markdown `x` or reStructuredText ``x``, or bare as in --help), as the list of its words.
std::vector<std::vector<std::string>> kind_lists(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  // A kind: an optionally quoted word; separators: ", " possibly across a line break.
  const std::regex start(R"((`{0,2})deepspeed\1,\s+\1torchrun\1,\s+\1accelerate\1)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), start);
       it != std::sregex_iterator(); ++it) {
    const std::string quote = (*it)[1].str();
    const std::regex word("^" + std::string(quote.empty() ? "" : quote) + "([a-z][a-z-]*)" + quote +
                          R"((,\s+(or\s+)?|\s+or\s+)?)");
    std::vector<std::string> kinds;
    std::string rest = text.substr(static_cast<std::size_t>(it->position()));
    std::smatch m;
    while (std::regex_search(rest, m, word)) {
      kinds.push_back(m[1].str());
      if (m[2].length() == 0) break;
      rest = m.suffix().str();
    }
    out.push_back(kinds);
  }
  return out;
}

TEST(CompanionKindsTest, EveryListAUserReadsIsTheRegistrys) {
  std::vector<std::string> want = companion_kinds();
  std::vector<std::string> with_none = want;
  with_none.push_back("none");
  const fs::path source = test::source_dir();
  std::vector<fs::path> files = {source / "README.md",
                                 source / "plugins/sdk/cmake/ZeroforgeGenerate.cmake"};
  for (const auto& entry : fs::directory_iterator(source / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  std::size_t lists = 0;
  for (const auto& file : files) {
    for (const auto& kinds : kind_lists(read_file(file))) {
      SCOPED_TRACE(file.string());
      // A prose sentence naming three launchers ("deepspeed, torchrun and accelerate") is not
      // a list of kinds; a list of kinds goes on past them.
      if (kinds.size() <= 3) continue;
      ++lists;
      EXPECT_TRUE(kinds == want || kinds == with_none)
          << testing::PrintToString(kinds) << " is not " << testing::PrintToString(want);
    }
  }
  auto help = test::run_cli({"generate", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  std::string flat = help.out;
  for (auto& line : kind_lists(flat)) {
    ++lists;
    EXPECT_EQ(line, with_none) << "generate --help";
  }
  EXPECT_GE(lists, 4u) << "the lists were not found: the test reads nothing";
}

}  // namespace
}  // namespace zf
