// SPDX-License-Identifier: MIT
// DriftCheck: file and manifest verdicts, and extra files found by walking DIR in path order
// beside the expected paths (names chosen so that per-directory order and whole-path order
// would differ if the walk got it wrong).
#include "generate/drift_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace zf::pipeline {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> extras_of(const DriftCheck& check, std::vector<std::string> expected) {
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> found;
  check.extras(
      [&](const auto& expect) {
        for (const auto& path : expected) expect(path);
      },
      [&](const std::string& path) { found.push_back(path); });
  return found;
}

TEST(DriftCheckTest, ComparesFilesAndTheManifest) {
  test::TempDir dir;
  dir.write("a.json", "{}\n");
  dir.write("manifest.json", "head,entries,tail");
  DriftCheck check(dir.path());
  EXPECT_EQ(check.compare("a.json", "{}\n"), DriftStatus::Same);
  EXPECT_EQ(check.compare("a.json", "{ }\n"), DriftStatus::Changed);
  EXPECT_EQ(check.compare("b.json", "{}\n"), DriftStatus::Missing);
  auto pieces = [](std::vector<std::string> parts) {
    return [parts](const DriftCheck::Sink& sink) {
      for (const auto& part : parts) sink(part);
    };
  };
  EXPECT_EQ(check.compare_manifest(pieces({"head,", "entries,", "tail"})), DriftStatus::Same);
  EXPECT_EQ(check.compare_manifest(pieces({"head,", "entries,", "tai"})), DriftStatus::Changed)
      << "shorter";
  EXPECT_EQ(check.compare_manifest(pieces({"head,", "entries,", "tail", "!"})),
            DriftStatus::Changed)
      << "longer";
  EXPECT_EQ(check.compare_manifest(pieces({"head,", "ENTRIES,", "tail"})), DriftStatus::Changed);
  EXPECT_EQ(DriftCheck(dir.path() / "none").compare_manifest(pieces({"x"})), DriftStatus::Missing);
}

TEST(DriftCheckTest, ListsExtraFilesInPathOrder) {
  test::TempDir dir;
  for (const char* path : {"a/x.json", "a-b.json", "a.json", "a/y/z.json", "b.json",
                           "manifest.json", "c/d.json", ".zeroforge-staging-123/a.json"}) {
    dir.write(path, "{}");
  }
  fs::create_directories(dir.path() / "empty");
  DriftCheck check(dir.path());
  EXPECT_EQ(extras_of(check, {"a/x.json", "b.json", "manifest.json"}),
            (std::vector<std::string>{"a-b.json", "a.json", "a/y/z.json", "c/d.json"}));
  EXPECT_EQ(extras_of(check, {"a-b.json", "a.json", "a/x.json", "a/y/z.json", "b.json", "c/d.json",
                              "manifest.json"}),
            std::vector<std::string>{});
  EXPECT_EQ(extras_of(check, {"zzz.json"}).size(), 7u)
      << "expected files that do not exist are not extras";
  EXPECT_EQ(extras_of(DriftCheck(dir.path() / "none"), {"a.json"}), std::vector<std::string>{});
}

}  // namespace
}  // namespace zf::pipeline
