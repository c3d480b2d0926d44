// SPDX-License-Identifier: MIT
// The did-you-mean rule (plugins/sdk/include/zeroforge/nearest_name.hpp) that the host and the
// plugins share: a name cut short, a near miss, words abbreviated, and nothing for the rest.
#include "zeroforge/nearest_name.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace zf::sdk {
namespace {

TEST(NearestNameTest, SuggestsACutShortNameANearMissOrAbbreviatedWords) {
  const std::vector<std::string> names = {"gpus_per_node",      "nodes",
                                          "gpu_memory_gib",     "cpu_memory_gib",
                                          "reduce_bucket_size", "stage3_max_live_parameters",
                                          "micro_batch_size"};
  struct Case {
    const char* key;
    const char* expected;
  };
  const Case cases[] = {
      {"reduce_bucket", "reduce_bucket_size"},                   // cut short
      {"node", "nodes"},                                         // one edit
      {"stage3_max_live_params", "stage3_max_live_parameters"},  // four edits from 20
      {"gpu_mem_gib", "gpu_memory_gib"},                         // words abbreviated
      {"cpu_mem_gib", "cpu_memory_gib"},
      {"micro_bs", ""},  // a word that is no prefix
      {"gpu", ""},       // too few words
      {"frobnicate", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    EXPECT_EQ(nearest_name(c.key, names), c.expected);
  }
}

TEST(NearestNameTest, AbbreviationNeedsEveryWordInOrderAndOneShorter) {
  EXPECT_TRUE(abbreviates_words("gpu_mem_gib", "gpu_memory_gib"));
  EXPECT_TRUE(abbreviates_words("g_m_g", "gpu_memory_gib"));
  EXPECT_FALSE(abbreviates_words("gpu_memory_gib", "gpu_memory_gib"));
  EXPECT_FALSE(abbreviates_words("mem_gpu_gib", "gpu_memory_gib"));
  EXPECT_FALSE(abbreviates_words("gpu__gib", "gpu_memory_gib"));
  EXPECT_FALSE(abbreviates_words("gpu_memory", "gpu_memory_gib"));
  EXPECT_FALSE(abbreviates_words("gpu_memory_gib_x", "gpu_memory_gib"));
}

// The bounded distance is the full one wherever that is within the bound, and past the bound
// elsewhere, so nearest_name picks the same name with it; the full distance is counted here
// independently (a table of every prefix pair) so the two cannot share a mistake.
std::size_t reference_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
  }
  return d[a.size()][b.size()];
}

// What edit_distance_within promises: the distance where it is at most `bound`, else any
// number above `bound`.
::testing::AssertionResult keeps_its_bound(const std::string& a, const std::string& b,
                                           std::size_t bound) {
  const std::size_t exact = reference_distance(a, b);
  const std::size_t within = edit_distance_within(a, b, bound);
  if (exact <= bound ? within == exact : within > bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << a << " / " << b << " within " << bound << ": " << within
                                       << ", the distance is " << exact;
}

TEST(NearestNameTest, BoundedDistanceIsExactWithinItsBoundAndPastItElsewhere) {
  const std::vector<std::string> words = {"", "a", "ab", "ba", "stage", "stage3", "steps",
                                          "offload", "offload_param", "overlap_comm",
                                          "reduce_bucket_size", "xyz",
                                          // Past the 64 cells a stack row holds.
                                          std::string(63, 'a') + "b", std::string(64, 'a') + "b",
                                          std::string(70, 'a'), std::string(66, 'a') + "bc"};
  for (const std::string& a : words) {
    for (const std::string& b : words) {
      const std::size_t exact = reference_distance(a, b);
      EXPECT_EQ(edit_distance(a, b), exact) << a << " / " << b;
      for (std::size_t bound = 0; bound <= 6; ++bound) EXPECT_TRUE(keeps_its_bound(a, b, bound));
      EXPECT_EQ(edit_distance_within(a, b, SIZE_MAX), exact) << a << " / " << b;
    }
  }
}

// The band and the early exit over many random pairs of a small alphabet (so that distances
// near every bound occur), against the full table.
TEST(NearestNameTest, BoundedDistanceMatchesTheFullTableOnRandomPairs) {
  std::mt19937 random(38);
  auto word = [&] {
    std::string text(random() % 13, 'a');
    for (char& c : text) c = static_cast<char>('a' + random() % 3);
    return text;
  };
  for (int pair = 0; pair < 5000; ++pair) {
    const std::string a = word(), b = word();
    ASSERT_TRUE(keeps_its_bound(a, b, random() % 6));
  }
}

}  // namespace
}  // namespace zf::sdk
