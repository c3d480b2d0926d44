// SPDX-License-Identifier: MIT
// ValueDict: insertion order, Python's replace-in-place, lookups below and above the size at
// which the hashed index takes over, and copies that share the index until one is written.
#include <gtest/gtest.h>

#include <cstdint>
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

// Keys whose hashes share the bit of the dict's key mask and the byte lookup compares 8 keys
// at a time by (bits 58-63 and 48-55): only the whole hash and the key tell them apart. At
// every size up to the index and past it, each is found, in each kind of copy, and keys that
// share those bits but are absent are not.
TEST(ValueDictTest, KeysWhoseHashesShareTheComparedBitsStayApart) {
  const std::uint64_t want = ValueDict::hash("x0") >> 48;  // the mask's bit and the byte
  std::vector<std::string> alike;
  for (int i = 0; alike.size() < 48; ++i) {
    std::string key = "x" + std::to_string(i);
    if ((ValueDict::hash(key) >> 48) == want) alike.push_back(key);
  }
  const std::vector<std::string> absent(alike.begin() + 40, alike.end());
  for (std::size_t size : {1u, 2u, 7u, 8u, 9u, 16u, 31u, 32u, 33u, 40u}) {
    SCOPED_TRACE(size);
    ValueDict dict;
    for (std::size_t i = 0; i < size; ++i) dict.set(alike[i], Value(static_cast<int>(i)));
    ValueDict copied(dict);
    ValueDict assigned;
    assigned = dict;
    ValueDict moved_from(dict);
    ValueDict moved(std::move(moved_from));
    for (const ValueDict* d : {&dict, &copied, &assigned, &moved}) {
      for (std::size_t i = 0; i < size; ++i) {
        const Value* found = d->find(alike[i]);
        ASSERT_NE(found, nullptr) << alike[i];
        EXPECT_EQ(found->as_int(), static_cast<int>(i));
      }
      for (std::size_t i = size; i < 40; ++i) EXPECT_EQ(d->find(alike[i]), nullptr) << alike[i];
      for (const auto& key : absent) EXPECT_EQ(d->find(key), nullptr) << key;
    }
  }
}

}  // namespace
}  // namespace zf
