// SPDX-License-Identifier: MIT
// Family expansion (engine/src/family/expand.cpp): the order of variants, exclude and include,
// tiers, layer precedence and the file/pointer every value came from.
#include <gtest/gtest.h>

#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

Family family_of(const char* text) { return parse_family(Json::parse(text), "fam.json"); }

std::vector<Tier> tiers_of(const Family& family) {
  std::vector<Tier> tiers;
  for (const auto& t : family.tiers) {
    tiers.push_back({t.name, "tiers/" + t.name + ".json", {{"micro_batch_size", t.name == "small" ? 1 : 4}}});
  }
  return tiers;
}

std::vector<std::string> describe_all(const Expansion& expansion) {
  std::vector<std::string> out;
  for (const auto& v : expansion.variants()) out.push_back(expansion.describe(v));
  return out;
}

TEST(FamilyExpandTest, ProductIsTierMajorFirstAxisSlowestThenIncludes) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"stage": [2, 3], "precision": ["bf16", "fp16"]},
    "include": [{"stage": 1, "precision": "fp32"}, {"stage": 0, "tier": "medium"}],
    "tiers": ["small", "medium"]})");
  auto expansion = expand_family(family, tiers_of(family), {}, {});
  EXPECT_EQ(describe_all(expansion),
            (std::vector<std::string>{
                "small stage=2 precision=bf16", "small stage=2 precision=fp16",
                "small stage=3 precision=bf16", "small stage=3 precision=fp16",
                "small stage=1 precision=fp32", "medium stage=2 precision=bf16",
                "medium stage=2 precision=fp16", "medium stage=3 precision=bf16",
                "medium stage=3 precision=fp16", "medium stage=1 precision=fp32",
                "medium stage=0"}));
  EXPECT_EQ(expansion.variants()[0].slug, "stage-2_precision-bf16");
}

TEST(FamilyExpandTest, ExcludeRemovesPartialMatchesIncludingTier) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"stage": [2, 3], "offload": ["none", "cpu"]},
    "exclude": [{"stage": 2, "offload": "cpu"}, {"tier": "medium", "offload": "none"}],
    "tiers": ["small", "medium"]})");
  auto expansion = expand_family(family, tiers_of(family), {}, {});
  EXPECT_EQ(describe_all(expansion),
            (std::vector<std::string>{"small stage=2 offload=none", "small stage=3 offload=none",
                                      "small stage=3 offload=cpu", "medium stage=3 offload=cpu"}));
}

TEST(FamilyExpandTest, AFamilyThatExcludesEverythingIsAnError) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"stage": [2, 3]}, "exclude": [{"tier": "small", "stage": 2}], "tiers": ["small", "large"]})");
  EXPECT_EQ(expand_family(family, tiers_of(family), {}, {}).variants().size(), 3u);
  Family nothing = family_of(R"({"name": "f", "template": "t", "axes": {"stage": [2]}, "exclude": [{"stage": 2}]})");
  try {
    expand_family(nothing, {}, {}, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "fam.json: /exclude: error: the family expands to no variants");
  }
}

TEST(FamilyExpandTest, OnlyIncludesWhenThereAreNoAxesAndOneVariantWhenNeither) {
  Family includes = family_of(R"({"name": "f", "template": "t", "include": [{"stage": 1}, {"stage": 3}]})");
  EXPECT_EQ(describe_all(expand_family(includes, {}, {}, {})),
            (std::vector<std::string>{"stage=1", "stage=3"}));
  Family plain = family_of(R"({"name": "plain", "template": "t"})");
  auto expansion = expand_family(plain, {}, {}, {});
  ASSERT_EQ(expansion.variants().size(), 1u);
  EXPECT_EQ(expansion.variants()[0].slug, "config");
  EXPECT_EQ(expansion.describe(expansion.variants()[0]), "plain");
}

TEST(FamilyExpandTest, LayersGoDefaultsTierFamilyTierValuesVariantOverrides) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "values": {"precision": "fp16", "zero": {"a": 1}},
    "axes": {"stage": [3], "zero.b": [7]},
    "tiers": [{"name": "small", "values": {"nodes": 2}}]})");
  std::vector<Layer> defaults = {Layer{{LayerKind::TemplateDefault, "d.json"},
                                       {{"stage", 2}, {"precision", "bf16"}, {"nodes", 1}, {"micro_batch_size", 9}},
                                       "d.json", "/values", ""}};
  std::vector<Layer> overrides = {Layer{{LayerKind::Set, "--set precision=fp32"}, {{"precision", "fp32"}},
                                        "--set precision=fp32", "", ""}};
  auto expansion = expand_family(family, tiers_of(family), defaults, overrides);
  const Variant& variant = expansion.variants().at(0);
  SourcedValues values = expansion.values(variant);
  EXPECT_EQ(values.merged(), expansion.merged(variant));
  EXPECT_EQ(values.merged(), Json::parse(R"({"stage": 3, "precision": "fp32", "nodes": 2,
    "micro_batch_size": 1, "zero": {"a": 1, "b": 7}})"));
  EXPECT_EQ(values.site("/stage"), std::make_pair(std::string("fam.json"), std::string("/axes/stage/0")));
  EXPECT_EQ(values.site("/zero/b"), std::make_pair(std::string("fam.json"), std::string("/axes/zero.b/0")));
  EXPECT_EQ(values.site("/zero/a"), std::make_pair(std::string("fam.json"), std::string("/values/zero/a")));
  EXPECT_EQ(values.site("/nodes"), std::make_pair(std::string("fam.json"), std::string("/tiers/0/values/nodes")));
  EXPECT_EQ(values.site("/micro_batch_size"),
            std::make_pair(std::string("tiers/small.json"), std::string("/micro_batch_size")));
  EXPECT_EQ(values.site("/precision"),
            std::make_pair(std::string("--set precision=fp32"), std::string("/precision")));
  EXPECT_EQ(values.describe("/stage"), "stage=3 (variant fam.json /axes/stage/0)");
}

TEST(FamilyExpandTest, ExpandsDottedKeys) {
  EXPECT_EQ(expand_dotted_keys(Json::parse(R"({"a.b": 1, "a.c": 2, "d": 3})")),
            Json::parse(R"({"a": {"b": 1, "c": 2}, "d": 3})"));
}

}  // namespace
}  // namespace zf
