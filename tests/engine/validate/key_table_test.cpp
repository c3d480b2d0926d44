// SPDX-License-Identifier: MIT
// KeyTable: finds every name it holds and nothing else, whatever the names share (lengths,
// first or last eight bytes), across the growth of its slots.
#include "validate/key_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using zf::validate::KeyTable;

TEST(KeyTableTest, EmptyTableFindsNothing) {
  KeyTable<const int*> table;
  EXPECT_EQ(table.find(""), nullptr);
  EXPECT_EQ(table.find("stage"), nullptr);
}

TEST(KeyTableTest, FindsEachNameAndNoOther) {
  // Names that hash alike: same length, same first or last eight bytes, prefixes of each other.
  const std::vector<std::string> names = {"",
                                          "a",
                                          "lr",
                                          "eps",
                                          "type",
                                          "stage",
                                          "enabled",
                                          "stage3_a",
                                          "stage3_b",
                                          "stage3_prefetch_bucket_size",
                                          "stage3_param_persistence_threshold",
                                          "stage3_model_persistence_threshold",
                                          "reduce_bucket_size",
                                          "allgather_bucket_size",
                                          "offload_param",
                                          "offload_optimizer",
                                          "cpu_offload",
                                          "cpu_offload_param"};
  std::vector<int> values(names.size());
  KeyTable<const int*> table;
  for (std::size_t i = 0; i < names.size(); ++i) {
    table.insert(names[i], &values[i]);
    for (std::size_t j = 0; j <= i; ++j) {  // still all there after each growth
      SCOPED_TRACE(names[j]);
      EXPECT_EQ(table.find(names[j]), &values[j]);
    }
  }
  for (const char* absent :
       {"stage3_c", "stage3_", "Stage", "b", "ep", "stage3_prefetch_bucket_sizes",
        "stage3_param_persistence_threshole", "offload"}) {
    SCOPED_TRACE(absent);
    EXPECT_EQ(table.find(absent), nullptr);
  }
}

TEST(KeyTableTest, HoldsManyNames) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("key_" + std::to_string(i * 7919));
  std::vector<int> values(names.size());
  KeyTable<const int*> table;
  for (std::size_t i = 0; i < names.size(); ++i) table.insert(names[i], &values[i]);
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(table.find(names[i]), &values[i]);
  EXPECT_EQ(table.find("key_1"), nullptr);
}

}  // namespace
