// SPDX-License-Identifier: MIT
// KeyIndex: laid out by key_slot_layout (as compile_schema does at build time), it finds every
// name it holds and nothing else, whatever the names share (lengths, first or last eight bytes).
#include "deepspeed/key_index.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deepspeed/schema_facts.hpp"

namespace {

using zf::deepspeed::KeyIndex;
using zf::deepspeed::KeySlot;
using zf::deepspeed::NodeFacts;

// An index over `names`, each name's facts being the matching element of `facts`.
struct Built {
  std::vector<KeySlot> slots;
  KeyIndex index;
};

Built build(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts) {
  std::vector<std::string_view> views(names.begin(), names.end());
  zf::deepspeed::KeySlotLayout layout = zf::deepspeed::key_slot_layout(views);
  Built built;
  built.slots.resize(layout.size);
  for (std::size_t i = 0; i < names.size(); ++i)
    built.slots[layout.slot_of[i]] = KeySlot{names[i], &facts[i]};
  built.index = KeyIndex{built.slots, layout.shift, {}};
  return built;
}

TEST(KeyIndexTest, EmptyIndexFindsNothing) {
  KeyIndex index;
  EXPECT_EQ(index.find(""), nullptr);
  EXPECT_EQ(index.find("stage"), nullptr);
  EXPECT_EQ(zf::deepspeed::key_slot_layout({}).size, 0u);
}

TEST(KeyIndexTest, FindsEachNameAndNoOther) {
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
  for (std::size_t count = 1; count <= names.size(); ++count) {  // every table size on the way
    std::vector<std::string> some(names.begin(), names.begin() + static_cast<long>(count));
    std::vector<NodeFacts> facts(count);
    Built built = build(some, facts);
    EXPECT_GE(built.slots.size(), 2 * count) << "at most half full";
    for (std::size_t j = 0; j < count; ++j) {
      SCOPED_TRACE(names[j]);
      EXPECT_EQ(built.index.find(names[j]), &facts[j]);
    }
  }
  std::vector<NodeFacts> facts(names.size());
  Built built = build(names, facts);
  for (const char* absent :
       {"stage3_c", "stage3_", "Stage", "b", "ep", "stage3_prefetch_bucket_sizes",
        "stage3_param_persistence_threshole", "offload"}) {
    SCOPED_TRACE(absent);
    EXPECT_EQ(built.index.find(absent), nullptr);
  }
}

TEST(KeyIndexTest, HoldsManyNames) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("key_" + std::to_string(i * 7919));
  std::vector<NodeFacts> facts(names.size());
  Built built = build(names, facts);
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(built.index.find(names[i]), &facts[i]);
  EXPECT_EQ(built.index.find("key_1"), nullptr);
}

}  // namespace
