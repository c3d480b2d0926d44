// SPDX-License-Identifier: MIT
// The did-you-mean rule (plugins/sdk/include/zeroforge/nearest_name.hpp) that the host and the
// plugins share: a name cut short, a near miss, words abbreviated, and nothing for the rest.
#include "zeroforge/nearest_name.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace zf::sdk
