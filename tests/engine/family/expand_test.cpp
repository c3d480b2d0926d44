// SPDX-License-Identifier: MIT
// Family expansion (engine/src/family/expand.cpp): the order of variants, exclude and include,
// tiers, layer precedence and the file/pointer every value came from.
#include <gtest/gtest.h>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

Family family_of(const char* text) { return parse_family(Json::parse(text), "fam.json"); }

std::vector<Tier> tiers_of(const Family& family) {
  std::vector<Tier> tiers;
  for (const auto& t : family.tiers) {
    tiers.push_back(
        {t.name, "tiers/" + t.name + ".json", {{"micro_batch_size", t.name == "small" ? 1 : 4}}});
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
  EXPECT_EQ(
      describe_all(expansion),
      (std::vector<std::string>{"small stage=2 precision=bf16", "small stage=2 precision=fp16",
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

TEST(FamilyExpandTest, ATierFileIsKnownByItsStemAndMatchedByNameOrPath) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"stage": [2, 3]},
    "exclude": [{"tier": "../../tiers/a100x8.json", "stage": 2}],
    "include": [{"stage": 1, "tier": "a100x8"}, {"stage": 0, "tier": "small"}],
    "tiers": ["../../tiers/a100x8.json", "small"]})");
  auto expansion = expand_family(family, tiers_of(family), {}, {});
  EXPECT_EQ(describe_all(expansion),
            (std::vector<std::string>{"a100x8 stage=3", "a100x8 stage=1", "small stage=2",
                                      "small stage=3", "small stage=0"}));
  EXPECT_EQ(expansion.tier_name(expansion.variant(0)), "a100x8");
}

TEST(FamilyExpandTest, AFamilyThatExcludesEverythingIsAnError) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"stage": [2, 3]}, "exclude": [{"tier": "small", "stage": 2}], "tiers": ["small", "large"]})");
  EXPECT_EQ(expand_family(family, tiers_of(family), {}, {}).variants().size(), 3u);
  Family nothing = family_of(
      R"({"name": "f", "template": "t", "axes": {"stage": [2]}, "exclude": [{"stage": 2}]})");
  try {
    expand_family(nothing, {}, {}, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "fam.json: /exclude: error: the family expands to no variants");
    EXPECT_EQ(to_diagnostic(error).code, "family.invalid");
  }
}

// Found reviewing family_fuzz's coverage: 40 axes of two values each made expand_family walk
// 2^40 product positions (a hang; 64 axes overflowed the position counter).
TEST(FamilyExpandTest, AnAxisProductOverTenMillionIsAnError) {
  Json axes = Json::object();
  for (int i = 0; i < 40; ++i) axes["k" + std::to_string(i)] = {1, 2};
  Family family = parse_family({{"name", "f"}, {"template", "t"}, {"axes", axes}}, "fam.json");
  try {
    expand_family(family, {}, {}, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "fam.json: /axes: error: the axes make more than 10000000 combinations; a family "
                 "is for the configs one runs (split it, or narrow the axes)");
    EXPECT_EQ(to_diagnostic(error).code, "family.invalid");
  }
  // Up to the bound it expands (the product of 10 x 10 x ... is walked, not stored).
  Json seven = Json::object();
  for (int i = 0; i < 7; ++i)
    seven["k" + std::to_string(i)] = Json::array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Family largest = parse_family({{"name", "f"}, {"template", "t"}, {"axes", seven}}, "fam.json");
  EXPECT_EQ(expand_family(largest, {}, {}, {}).size(), 10'000'000u);
}

TEST(FamilyExpandTest, OnlyIncludesWhenThereAreNoAxesAndOneVariantWhenNeither) {
  Family includes =
      family_of(R"({"name": "f", "template": "t", "include": [{"stage": 1}, {"stage": 3}]})");
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
  std::vector<Layer> defaults = {
      Layer{{LayerKind::TemplateDefault, "d.json"},
            {{"stage", 2}, {"precision", "bf16"}, {"nodes", 1}, {"micro_batch_size", 9}},
            "d.json",
            "/values",
            ""}};
  std::vector<Layer> overrides = {Layer{{LayerKind::Set, "--set precision=fp32"},
                                        {{"precision", "fp32"}},
                                        "--set precision=fp32",
                                        "",
                                        ""}};
  auto expansion = expand_family(family, tiers_of(family), defaults, overrides);
  const Variant variant = expansion.variant(0);
  SourcedValues values = expansion.values(variant);
  EXPECT_EQ(values.merged(), expansion.merged(variant));
  EXPECT_EQ(values.merged(), Json::parse(R"({"stage": 3, "precision": "fp32", "nodes": 2,
    "micro_batch_size": 1, "zero": {"a": 1, "b": 7}})"));
  EXPECT_EQ(values.site("/stage"),
            std::make_pair(std::string("fam.json"), std::string("/axes/stage/0")));
  EXPECT_EQ(values.site("/zero/b"),
            std::make_pair(std::string("fam.json"), std::string("/axes/zero.b/0")));
  EXPECT_EQ(values.site("/zero/a"),
            std::make_pair(std::string("fam.json"), std::string("/values/zero/a")));
  EXPECT_EQ(values.site("/nodes"),
            std::make_pair(std::string("fam.json"), std::string("/tiers/0/values/nodes")));
  EXPECT_EQ(values.site("/micro_batch_size"),
            std::make_pair(std::string("tiers/small.json"), std::string("/micro_batch_size")));
  EXPECT_EQ(values.site("/precision"),
            std::make_pair(std::string("--set precision=fp32"), std::string("/precision")));
  EXPECT_EQ(values.describe("/stage"), "stage=3 (variant fam.json /axes/stage/0)");
}

TEST(FamilyExpandTest, VariantsMadeOnDemandFollowTheProductWithExcludesRemoved) {
  Family family = family_of(R"({"name": "f", "template": "t",
    "axes": {"a": [1, 2, 3], "b": ["x", "y"], "c": [true, false, null, 0.5]},
    "exclude": [{"b": "y", "c": null}, {"tier": "large", "a": 2}],
    "include": [{"a": 9, "tier": "large"}],
    "tiers": ["small", "large"]})");
  auto expansion = expand_family(family, tiers_of(family), {}, {});
  // The same product written as nested loops.
  std::vector<Variant> expected;
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t a = 0; a < 3; ++a) {
      for (std::size_t b = 0; b < 2; ++b) {
        for (std::size_t c = 0; c < 4; ++c) {
          if ((b == 1 && c == 2) || (t == 1 && a == 1)) continue;
          Variant v;
          v.tier = t;
          v.axis_index = {a, b, c};
          for (std::size_t k = 0; k < 3; ++k) {
            v.choice[family.axes[k].key] = family.axes[k].values[v.axis_index[k]];
          }
          expected.push_back(v);
        }
      }
    }
    if (t == 1) {
      Variant v;
      v.tier = t;
      v.include = 0;
      v.choice = {{"a", 9}};
      expected.push_back(v);
    }
  }
  ASSERT_EQ(expansion.size(), expected.size());
  std::vector<Variant> all = expansion.variants();
  ASSERT_EQ(all.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    Variant v = expansion.variant(i);
    EXPECT_EQ(v.tier, expected[i].tier);
    EXPECT_EQ(v.include, expected[i].include);
    EXPECT_EQ(v.axis_index, expected[i].axis_index);
    EXPECT_EQ(v.choice.dump(), expected[i].choice.dump());
    EXPECT_EQ(all[i].slug, v.slug);
  }
  EXPECT_EQ(expansion.variant(0).slug, "a-1_b-x_c-true");
  EXPECT_EQ(expansion.variant(3).slug, "a-1_b-x_c-0.5");
  EXPECT_EQ(expansion.variant(expected.size() - 1).slug, "a-9");
}

TEST(FamilyExpandTest, VariantValuesLayersEqualFreshMergesInOrder) {
  // Axes replace scalars, merge into sections (dotted keys), bring objects whose keys differ
  // from one value to the next, and add keys the base lacks; includes add others; overrides
  // write over all of them. Every variant, in order, must equal its fresh merge, key order
  // included, and so must its template value.
  Family family = family_of(R"({"name": "f", "template": "t",
    "values": {"precision": "fp16", "zero": {"a": 1}, "opt": {"x": 1}},
    "axes": {"stage": [2, 3], "zero.b": [7, 8], "opt": [{"y": 2}, {"z": 3, "x": 4}, 5],
             "extra": ["e1", "e2"]},
    "include": [{"stage": 1, "zero.c": 9, "late": true}, {"tier": "medium", "opt": null}],
    "exclude": [{"stage": 2, "extra": "e2"}],
    "tiers": ["small", {"name": "medium", "values": {"nodes": 2, "zero": {"b": 0}}}]})");
  std::vector<Layer> defaults = {Layer{{LayerKind::TemplateDefault, "d.json"},
                                       {{"stage", 0}, {"nodes", 1}, {"zero", {{"d", 1}}}},
                                       "d.json",
                                       "/values",
                                       ""}};
  std::vector<Layer> overrides = {
      Layer{{LayerKind::Set, "--set zero.a=5"}, {{"zero", {{"a", 5}}}}, "--set zero.a=5", "", ""},
      Layer{{LayerKind::Set, "--set added=1"}, {{"added", 1}}, "--set added=1", "", ""}};
  auto expansion = expand_family(family, tiers_of(family), defaults, overrides);
  ASSERT_GT(expansion.variants().size(), 20u);
  const VariantValues all(expansion);
  for (const auto& variant : expansion.variants()) {
    SCOPED_TRACE(expansion.describe(variant));
    VariantValues::Layers values = all.values(variant);
    Json fresh = expansion.merged(variant);
    EXPECT_EQ(values.merged().to_json().dump(), fresh.dump());
    for (const auto& [key, value] : fresh.items()) {  // each layer holds what it should
      const Value* top = values.top.find(key);
      const Value& seen = top != nullptr ? *top : *values.base->as_dict().find(key);
      EXPECT_EQ(seen.to_json().dump(), value.dump()) << key;
    }
    values.top.set("tier", Value(expansion.tier_name(variant)));
    values.top.set("variant", Value(variant.slug));
    fresh["tier"] = expansion.tier_name(variant);
    fresh["variant"] = variant.slug;
    EXPECT_EQ(values.merged().to_json().dump(), fresh.dump());
  }
}

TEST(FamilyExpandTest, ExpandsDottedKeys) {
  EXPECT_EQ(expand_dotted_keys(Json::parse(R"({"a.b": 1, "a.c": 2, "d": 3})")),
            Json::parse(R"({"a": {"b": 1, "c": 2}, "d": 3})"));
}

}  // namespace
}  // namespace zf
