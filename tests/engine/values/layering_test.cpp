// SPDX-License-Identifier: MIT
// Value layering: deep merge, replacement of scalars and arrays, provenance per leaf.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "support/render.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {
namespace {

using nlohmann::ordered_json;

TEST(LayeringTest, LaterLayersWinAndObjectsMerge) {
  LayeredValues values;
  values.apply({LayerKind::Tier, "tier small"},
               ordered_json::parse(R"({"gpus_per_node": 1, "zero": {"stage": 2, "bucket": 5}})"));
  values.apply({LayerKind::ValuesFile, "v.json"},
               ordered_json::parse(R"({"zero": {"stage": 3}, "list": [1, 2]})"));
  values.apply({LayerKind::Set, "--set list=[3]"}, ordered_json::parse(R"({"list": [3]})"));
  EXPECT_EQ(values.merged(),
            ordered_json::parse(
                R"({"gpus_per_node": 1, "zero": {"stage": 3, "bucket": 5}, "list": [3]})"));
  EXPECT_EQ(values.origin("/zero/stage")->label, "v.json");
  EXPECT_EQ(values.origin("/zero/bucket")->label, "tier small");
  EXPECT_EQ(values.origin("/list")->label, "--set list=[3]");
  EXPECT_EQ(values.origin("/list/0")->label, "--set list=[3]");
  EXPECT_EQ(values.origin("/nothing"), nullptr);
}

TEST(LayeringTest, AnObjectsOriginIsItsFirstLeafs) {
  LayeredValues values;
  values.apply({LayerKind::Tier, "tier small"}, ordered_json::parse(R"({"stage": 2})"));
  values.apply({LayerKind::Set, "--set zero.offload_optimizer.device=cpu"},
               ordered_json::parse(R"({"zero": {"offload_optimizer": {"device": "cpu"}}})"));
  EXPECT_EQ(values.origin("/zero/offload_optimizer")->label,
            "--set zero.offload_optimizer.device=cpu");
  EXPECT_EQ(values.origin("/zero")->label, "--set zero.offload_optimizer.device=cpu");
  EXPECT_EQ(values.origin("/zero/offload"), nullptr) << "a prefix of a sibling's key is not it";
  EXPECT_EQ(values.origin(""), nullptr);
}

TEST(LayeringTest, ScalarReplacingAnObjectForgetsItsLeaves) {
  LayeredValues values;
  values.apply({LayerKind::Tier, "t"}, ordered_json::parse(R"({"a": {"b": 1}})"));
  values.apply({LayerKind::Set, "s"}, ordered_json::parse(R"({"a": 5})"));
  EXPECT_EQ(values.origin("/a")->label, "s");
  auto leaves = values.leaves();
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(leaves[0].first, "/a");
}

TEST(LayeringTest, ObjectReplacingAScalarIsMergedAsNew) {
  LayeredValues values;
  values.apply({LayerKind::Tier, "t"}, ordered_json::parse(R"({"a": 5})"));
  values.apply({LayerKind::ValuesFile, "v.json"}, ordered_json::parse(R"({"a": {"b": 1}})"));
  EXPECT_EQ(values.merged()["a"]["b"], 1);
  EXPECT_EQ(values.origin("/a/b")->label, "v.json");
}

TEST(LayeringTest, ADottedSetNeverTurnsAValueIntoAnObject) {
  struct Case {
    std::vector<std::string> sets;
    std::string expected;
  };
  const Case cases[] = {
      {{"stage.x=1"},
       "--set stage.x=1: /stage: error: this would replace stage=2 (tier small) with an "
       "object; a dotted key sets a value inside an object"},
      {{"a=1", "a.b=2"},
       "--set a.b=2: /a: error: this would replace a=1 (--set a=1) with an object; a dotted key "
       "sets a value inside an object"},
      {{"zero.bucket.x=1"},
       "--set zero.bucket.x=1: /zero/bucket: error: this would replace zero.bucket=5 (tier "
       "small) with an object; a dotted key sets a value inside an object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    LayeredValues values;
    values.apply({LayerKind::Tier, "tier small"},
                 ordered_json::parse(R"({"stage": 2, "zero": {"bucket": 5}, "n": null})"));
    try {
      for (const auto& set : c.sets) values.apply({LayerKind::Set, "--set " + set}, parse_set(set));
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
  // Into null or an object it is a plain merge.
  LayeredValues values;
  values.apply({LayerKind::Tier, "t"}, ordered_json::parse(R"({"n": null, "o": {"k": 1}})"));
  values.apply({LayerKind::Set, "--set n.a=1"}, parse_set("n.a=1"));
  values.apply({LayerKind::Set, "--set o.j=2"}, parse_set("o.j=2"));
  EXPECT_EQ(values.merged(), ordered_json::parse(R"({"n": {"a": 1}, "o": {"k": 1, "j": 2}})"));
}

TEST(LayeringTest, LeavesListEveryValueWithItsLayerInOrder) {
  LayeredValues values;
  values.apply({LayerKind::Family, "f"},
               ordered_json::parse(R"({"x": 1, "y": {"z": null, "e": {}}, "a/b": 2})"));
  values.apply({LayerKind::Variant, "v"}, ordered_json::parse(R"({"x": 2})"));
  std::vector<std::string> got;
  for (const auto& [pointer, source] : values.leaves()) got.push_back(pointer + "=" + source.label);
  EXPECT_EQ(got, (std::vector<std::string>{"/x=v", "/y/z=f", "/y/e=f", "/a~1b=f"}));
}

// A plugin's layer (apply_under_user) keeps what --set and values files set, inside objects
// too, and lists each earlier value it changes with the layer that had set it.
TEST(LayeringTest, ALayerUnderTheUsersKeepsTheirValuesAndListsWhatItReplaced) {
  LayeredValues values;
  values.apply({LayerKind::Tier, "tier small"}, ordered_json::parse(R"({"micro": 1})"));
  values.apply({LayerKind::Family, "f.json"},
               ordered_json::parse(R"({"slurm": {"partition": "a", "time": "1:00"},
                                       "hosts": ["x"], "same": 5})"));
  values.apply({LayerKind::Set, "--set slurm.partition=b"},
               ordered_json::parse(R"({"slurm": {"partition": "b"}})"));
  values.apply({LayerKind::ValuesFile, "v.json"},
               ordered_json::parse(R"({"k8s": {"namespace": "ci"}})"));
  auto replaced = values.apply_under_user(
      {LayerKind::Plugin, "plugin site"},
      ordered_json::parse(R"({"micro": 4, "slurm": {"partition": "c", "time": "2:00",
                                                    "account": "ml"},
                              "hosts": ["x", "y"], "same": 5, "k8s": "flat"})"));
  EXPECT_EQ(values.merged(), ordered_json::parse(R"({"micro": 4,
      "slurm": {"partition": "b", "time": "2:00", "account": "ml"}, "hosts": ["x", "y"],
      "same": 5, "k8s": {"namespace": "ci"}})"));
  EXPECT_EQ(values.origin("/slurm/partition")->label, "--set slurm.partition=b");
  EXPECT_EQ(values.origin("/slurm/account")->label, "plugin site");
  EXPECT_EQ(values.origin("/k8s/namespace")->label, "v.json");
  ASSERT_EQ(replaced.size(), 3u);
  EXPECT_EQ(replaced[0].pointer, "/micro");
  EXPECT_EQ(replaced[0].before, 1);
  EXPECT_EQ(values.layers()[replaced[0].layer].label, "tier small");
  EXPECT_EQ(replaced[1].pointer, "/slurm/time");
  EXPECT_EQ(values.layers()[replaced[1].layer].label, "f.json");
  EXPECT_EQ(replaced[2].pointer, "/hosts");
  EXPECT_EQ(replaced[2].before, ordered_json::parse(R"(["x"])"));
}

TEST(LayeringTest, RejectsNonObjectLayers) {
  LayeredValues values;
  try {
    values.apply({LayerKind::ValuesFile, "v.json"}, ordered_json::array());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "v.json: error: values must be a JSON object, got array");
  }
}

TEST(SetSyntaxTest, ParsesDottedKeysAndJsonValues) {
  struct Case {
    std::string input;
    std::string expected;
  };
  const Case cases[] = {
      {"stage=3", R"({"stage":3})"},
      {"zero.offload.device=cpu", R"({"zero":{"offload":{"device":"cpu"}}})"},
      {"hf_auto=true", R"({"hf_auto":true})"},
      {"list=[1,2]", R"({"list":[1,2]})"},
      {"quoted=\"3\"", R"({"quoted":"3"})"},
      // Numbers keep their JSON type, as Python's json reads them (Jinja2 prints 5e8 as
      // 500000000.0); only a .json template's output is normalised.
      {"bucket=5e8", R"({"bucket":500000000.0})"},
      {"big=1000000.0", R"({"big":1000000.0})"},
      {"count=1000000", R"({"count":1000000})"},
      {"empty=", R"({"empty":""})"},
      {"path=/mnt/nvme", R"({"path":"/mnt/nvme"})"},
      {"eq=a=b", R"({"eq":"a=b"})"},
      {"nothing=null", R"({"nothing":null})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(parse_set(c.input).dump(), c.expected);
  }
}

TEST(SetSyntaxTest, RejectsMalformedAssignments) {
  struct Case {
    std::string input, expected;
  };
  const Case cases[] = {
      {"stage", "error: '--set stage': expected KEY=VALUE"},
      {"=3", "error: '--set =3': the key is empty"},
      {"a..b=1", "error: '--set a..b=1': empty segment in key 'a..b'"},
      {".a=1", "error: '--set .a=1': empty segment in key '.a'"},
      {"a=18446744073709551616",
       "error: '--set a=18446744073709551616': integer 18446744073709551616 is out of range: "
       "integers are 64-bit (-9223372036854775808 to 9223372036854775807)"},
      // Taken as a string, it was written into .json output as invalid UTF-8 (and writing
      // the values out for a plugin or explain threw nlohmann's type_error 316).
      {"nvme_path=/mnt/\xff",
       "error: '--set': invalid UTF-8 (byte 0xff at offset 15 of 'nvme_path=/mnt/...')"},
      {"n\xc3.a=1", "error: '--set': invalid UTF-8 (byte 0xc3 at offset 1 of 'n...')"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    try {
      parse_set(c.input);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
    }
  }
}

// Jinja2 reads values with Python's json, so `1000000.0` and `5e8` are floats there: they print
// with `.0`, pass `is float` and keep the `.0` through tojson. Only a .json template's output is
// normalised (docs/template-language.md, ".json templates").
TEST(ValuesFileTest, KeepsJsonNumberTypes) {
  test::TempDir dir;
  const auto path = dir.write("clusters/a100-80g-values-with-large-buckets.json",
                              R"({"x": 1000000.0, "y": 5e8, "n": 1000000, "small": 1e-3})");
  const ordered_json values = load_values_file(path);
  EXPECT_EQ(test::render("{{ x }} {{ x is float }} {{ x | tojson }} {{ y }} {{ y is float }} "
                         "{{ n }} {{ n is integer }} {{ small }}",
                         values),
            "1000000.0 True 1000000.0 500000000.0 True 1000000 True 0.001");
  EXPECT_EQ(load_tier_file(path).at("y").dump(), "500000000.0");
}

}  // namespace
}  // namespace zf
