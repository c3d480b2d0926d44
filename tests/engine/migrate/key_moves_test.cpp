// SPDX-License-Identifier: MIT
// The table of renamed and deprecated keys (engine/src/migrate/key_moves.cpp) held against the
// schema data's release history, which engine/tools/release_history.py read from DeepSpeed's
// source: a rename's `since` is exactly where the old key goes and the new one comes, and a
// deprecated key is one the schema marks deprecated, replaced by the key the table names.
#include "migrate/key_moves.hpp"

#include <gtest/gtest.h>

#include <string>

#include "deepspeed/release.hpp"
#include "zeroforge/deepspeed_release.hpp"

namespace zf {
namespace {

std::string parent_of(std::string_view pointer) {
  return std::string(pointer.substr(0, pointer.rfind('/')));
}
std::string key_of(std::string_view pointer) {
  return std::string(pointer.substr(pointer.rfind('/') + 1));
}

TEST(KeyMovesTest, EachRenameHappensAtItsRelease) {
  const auto& versions = deepspeed_versions();
  std::size_t renames = 0;
  for (const auto& move : migrate::key_moves()) {
    if (move.since.empty()) continue;
    SCOPED_TRACE(std::string(move.from));
    ++renames;
    const auto since = deepspeed::require_release(move.since);
    ASSERT_GT(since, 0) << "a rename at the oldest release would cross nothing";
    for (std::size_t r = 0; r < versions.size(); ++r) {
      const bool after = r >= since;
      EXPECT_EQ(deepspeed_has_key(move.from, versions[r]), !after) << versions[r];
      EXPECT_EQ(deepspeed_has_key(move.to, versions[r]), after) << versions[r];
    }
    EXPECT_EQ(parent_of(move.from), parent_of(move.to));
  }
  EXPECT_EQ(renames, 2u);
}

TEST(KeyMovesTest, EachDeprecatedKeyIsTheSchemasAndNamesItsReplacement) {
  std::size_t deprecated = 0;
  for (const auto& move : migrate::key_moves()) {
    if (!move.since.empty()) continue;
    SCOPED_TRACE(std::string(move.from));
    ++deprecated;
    const deepspeed::NodeFacts* node = deepspeed::node_at_pointer(move.from);
    ASSERT_NE(node, nullptr);
    EXPECT_TRUE(node->deprecated);
    EXPECT_TRUE(node->releases.empty()) << "read (and deprecated) by every release";
    if (move.map == migrate::ValueMap::NoEffect) {
      EXPECT_TRUE(move.to.empty());
      EXPECT_TRUE(node->replaced_by.empty()) << "DeepSpeed sets nothing from it";
      continue;
    }
    EXPECT_EQ(std::string(node->replaced_by), key_of(move.to));
    EXPECT_EQ(parent_of(move.from), parent_of(move.to));
    EXPECT_TRUE(deepspeed_has_key(move.to, deepspeed_versions().front()));
  }
  EXPECT_EQ(deprecated, 4u);
}

TEST(KeyMovesTest, EveryEntryNamesItsChangeAndSource) {
  for (const auto& move : migrate::key_moves()) {
    SCOPED_TRACE(std::string(move.from));
    EXPECT_FALSE(move.change.empty());
    EXPECT_TRUE(move.source.starts_with("deepspeed/")) << move.source;
  }
}

}  // namespace
}  // namespace zf
