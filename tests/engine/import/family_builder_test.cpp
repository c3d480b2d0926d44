// SPDX-License-Identifier: MIT
// The family an import writes (engine/src/import/family_builder.cpp): what every member agrees
// on goes into `values`, the rest into one include entry per member named by its output.
#include "import/family_builder.hpp"

#include <gtest/gtest.h>

#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

// Layering puts the family's keys first; a member's values are the same whatever the order.
nlohmann::json unordered(const Json& value) { return nlohmann::json::parse(value.dump()); }

TEST(FamilyBuilderTest, SharedLeavesGoToValuesAndTheRestToEachMembersEntry) {
  const std::vector<MemberValues> members = {
      {"llava/zero2.json", Json::parse(R"({"stage": 2, "precision": "fp16",
          "zero": {"overlap_comm": true, "sub_group_size": 1000000000},
          "fp16": {"loss_scale": 0}, "extra": {}})")},
      {"llava/zero3.json", Json::parse(R"({"stage": 3, "precision": "fp16",
          "zero": {"overlap_comm": true, "sub_group_size": 1000000000.0},
          "fp16": {"loss_scale": 0}, "extra": {"steps_per_print": 10}})")},
  };
  FamilyHead head{"llava", "Imported.", "deepspeed/config.json.j2", "medium"};
  const Json family = build_family(head, members);
  // 1000000000 and 1000000000.0 are not the same written value: each member keeps its own.
  EXPECT_EQ(family, Json::parse(R"({
    "name": "llava", "description": "Imported.", "template": "deepspeed/config.json.j2",
    "tiers": ["medium"],
    "values": {"precision": "fp16", "zero": {"overlap_comm": true}, "fp16": {"loss_scale": 0}},
    "include": [
      {"imported_from": "llava/zero2.json", "stage": 2, "zero": {"sub_group_size": 1000000000},
       "extra": {}},
      {"imported_from": "llava/zero3.json", "stage": 3, "zero": {"sub_group_size": 1000000000.0},
       "extra": {"steps_per_print": 10}}
    ],
    "output": "{{ imported_from }}"})"));
  EXPECT_EQ(count_leaves(family.at("values")), 3u);
  EXPECT_EQ(count_leaves(members[1].values), 6u) << "leaves at any depth, extra's keys included";
}

TEST(FamilyBuilderTest, EachMembersValuesComeBackWhenItsEntryIsLayeredOverTheFamily) {
  const std::vector<MemberValues> members = {
      {"a.json", Json::parse(R"({"stage": 1, "zero": {"reduce_bucket_size": null},
          "hf_auto": ["bf16.enabled"], "extra": {"x": {"y": 1}}})")},
      {"b.json", Json::parse(R"({"stage": 1, "zero": {"reduce_bucket_size": null},
          "hf_auto": ["bf16.enabled", "fp16.enabled"], "extra": {"x": {"y": 1}}})")},
      {"c.json", Json::parse(R"({"stage": 1, "zero": {"reduce_bucket_size": 5},
          "hf_auto": false, "extra": {"x": {"y": 1}}})")},
  };
  const Json family = build_family({"f", "", "deepspeed/config.json.j2", ""}, members);
  EXPECT_FALSE(family.contains("tiers"));
  EXPECT_EQ(family.at("values"), Json::parse(R"({"stage": 1, "extra": {"x": {"y": 1}}})"));
  for (std::size_t i = 0; i < members.size(); ++i) {
    SCOPED_TRACE(members[i].output);
    LayeredValues layered;
    layered.apply({LayerKind::Family, "f.json"}, family.at("values"));
    Json entry = family.at("include").at(i);
    EXPECT_EQ(entry.at("imported_from"), members[i].output);
    entry.erase("imported_from");
    layered.apply({LayerKind::Variant, "member"}, entry);
    EXPECT_EQ(unordered(layered.merged()), unordered(members[i].values));
  }
}

}  // namespace
}  // namespace zf::importer
