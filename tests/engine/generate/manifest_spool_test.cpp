// SPDX-License-Identifier: MIT
// ManifestSpool: whatever the run size (all in memory, one run per entry, runs in between),
// merge() visits every entry once, in path order, equal paths in the order they were added,
// with its variant, tag and text intact.
#include "generate/manifest_spool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/cli_runner.hpp"

namespace zf::pipeline {
namespace {

using Entry = std::tuple<std::string, std::uint64_t, std::uint32_t, std::string>;

std::vector<Entry> merged(ManifestSpool& spool) {
  std::vector<Entry> out;
  spool.merge([&](const SpoolEntry& entry) {
    out.emplace_back(std::string(entry.path), entry.variant, entry.tag, std::string(entry.text));
  });
  return out;
}

std::vector<Entry> sample_entries() {
  std::mt19937 random(7);  // fixed seed: the same entries every run
  std::vector<Entry> entries;
  for (std::uint64_t i = 0; i < 500; ++i) {
    std::string path =
        "tier" + std::to_string(random() % 3) + "/zero" + std::to_string(random() % 40) + ".json";
    std::string text(random() % 300, static_cast<char>('a' + i % 26));
    if (i % 97 == 0) text.assign(100000, 'x');  // larger than a run's read window
    if (i % 50 == 0) text.clear();
    entries.emplace_back(path, i, static_cast<std::uint32_t>(i % 3), text);
  }
  return entries;
}

TEST(ManifestSpoolTest, MergesInPathOrderForEveryRunSize) {
  std::vector<Entry> entries = sample_entries();
  std::vector<Entry> expected = entries;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Entry& a, const Entry& b) { return std::get<0>(a) < std::get<0>(b); });
  test::TempDir dir;
  for (std::size_t run_bytes :
       {std::size_t{1} << 30, std::size_t{1}, std::size_t{700}, std::size_t{40000}}) {
    ManifestSpool spool(dir.path(), run_bytes);
    for (const auto& [path, variant, tag, text] : entries) spool.add({path, variant, tag, text});
    EXPECT_EQ(spool.size(), entries.size());
    auto first = merged(spool);
    ASSERT_EQ(first.size(), expected.size()) << "run bytes " << run_bytes;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(first[i], expected[i]) << "entry " << i << ", run bytes " << run_bytes;
    }
    EXPECT_EQ(merged(spool), first) << "a second merge gives the same, run bytes " << run_bytes;
  }
}

TEST(ManifestSpoolTest, EmptySpoolVisitsNothing) {
  test::TempDir dir;
  ManifestSpool spool(dir.path(), 1);
  EXPECT_EQ(spool.size(), 0u);
  EXPECT_TRUE(merged(spool).empty());
}

TEST(ManifestSpoolTest, LeavesNoFileBehind) {
  test::TempDir dir;
  {
    ManifestSpool spool(dir.path(), 1);
    spool.add({"a.json", 0, 0, "text"});
    spool.add({"b.json", 1, 0, "text"});
    EXPECT_EQ(merged(spool).size(), 2u);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the spool is an unnamed file";
}

}  // namespace
}  // namespace zf::pipeline
