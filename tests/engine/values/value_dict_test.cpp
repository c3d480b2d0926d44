// SPDX-License-Identifier: MIT
// ValueDict: insertion order, Python's replace-in-place, lookups below and above the size at
// which the hashed index takes over, and copies that share the index until one is written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zeroforge/value.hpp"

namespace zf {
namespace {

std::vector<std::string> keys_of(const ValueDict& dict) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : dict) keys.push_back(key);
  return keys;
}

TEST(ValueDictTest, FindsEveryKeyAtEverySize) {
  // Sizes around the switch from linear search to the index, and well past it.
  for (int size : {0, 1, 5, 12, 13, 31, 32, 33, 64, 200}) {
    ValueDict dict;
    for (int i = 0; i < size; ++i) dict.set("key" + std::to_string(i), Value(i));
    ASSERT_EQ(dict.size(), static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) {
      std::string key = "key" + std::to_string(i);
      const Value* found = dict.find(key);
      ASSERT_NE(found, nullptr) << key << " in a dict of " << size;
      EXPECT_EQ(found->as_int(), i);
      EXPECT_EQ(dict.find(key, ValueDict::hash(key)), found);
    }
    EXPECT_EQ(dict.find("key"), nullptr);
    EXPECT_EQ(dict.find("key" + std::to_string(size)), nullptr);
    EXPECT_EQ(dict.find(""), nullptr);
  }
}

TEST(ValueDictTest, ReplacingKeepsTheFirstPosition) {
  for (int size : {3, 40}) {
    ValueDict dict;
    for (int i = 0; i < size; ++i) dict.set("k" + std::to_string(i), Value(i));
    dict.set("k1", Value("replaced"));
    EXPECT_EQ(dict.size(), static_cast<std::size_t>(size));
    EXPECT_EQ(keys_of(dict)[1], "k1");
    EXPECT_EQ(dict.find("k1")->as_string(), "replaced");
  }
}

TEST(ValueDictTest, CopiesAreIndependentAfterAWrite) {
  ValueDict original;
  // Past the size where the index takes over, so the copy starts out sharing it.
  for (int i = 0; i < 40; ++i) original.set("k" + std::to_string(i), Value(i));
  ValueDict copy = original;
  copy.set("new", Value(true));
  copy.set("k0", Value(-1));
  EXPECT_EQ(original.find("new"), nullptr);
  EXPECT_EQ(original.find("k0")->as_int(), 0);
  EXPECT_EQ(original.size(), 40u);
  ASSERT_NE(copy.find("new"), nullptr);
  EXPECT_EQ(copy.find("k0")->as_int(), -1);
  EXPECT_EQ(copy.find("k39")->as_int(), 39);
  EXPECT_EQ(copy.size(), 41u);
}

TEST(ValueDictTest, KeysThatDifferOnlyInTheirBytesStayApart) {
  // Distinct keys with shared prefixes, lengths and an empty key.
  const std::vector<std::string> keys = {"",      "a",      "ab",   "ba", std::string("a\0b", 3),
                                         "stage", "stage3", "Stage"};
  ValueDict dict;
  for (std::size_t i = 0; i < keys.size(); ++i) dict.set(keys[i], Value(static_cast<int>(i)));
  for (std::size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(dict.find(keys[i])->as_int(), static_cast<int>(i)) << i;
}

}  // namespace
}  // namespace zf
