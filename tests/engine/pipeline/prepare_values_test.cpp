// SPDX-License-Identifier: MIT
// Tests for engine/src/pipeline/prepare_values.cpp: layering and checking one template's
// values, every problem returned as a diagnostic.
#include <gtest/gtest.h>

#include "pipeline_fixture.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

PreparedValues prepare(const ConfigRequest& request) {
  ConfigSession session = open_config(request);
  return prepare_values(session);
}

TEST(PrepareValuesTest, LayersInOrderAndRemembersWhereEachValueWasWritten) {
  test::TempDir dir;
  const auto values_file = test::long_dir(dir) / "values-for-the-medium-tier.json";
  write_file_atomically(values_file, R"({"stage": 1, "gradient_accumulation": 4})");
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = "medium";
  request.values_files = {values_file};
  request.sets = {"stage=3"};
  const PreparedValues prepared = prepare(request);
  ASSERT_EQ(prepared.outcome(), Outcome::Done);
  EXPECT_TRUE(prepared.layered);
  EXPECT_EQ(prepared.values.merged()["stage"], 3);
  EXPECT_EQ(prepared.values.origin("/stage")->label, "--set stage=3");
  EXPECT_EQ(prepared.values.origin("/gradient_accumulation")->label, values_file.string());
  EXPECT_EQ(prepared.values.origin("/gpus_per_node")->kind, LayerKind::Tier);
  // The contract's facts: the tier's GPUs times the values file's accumulation.
  const Json tier = load_tier_file(test::source_dir() / "presets/tiers/medium.json");
  ASSERT_TRUE(prepared.facts.has_value());
  EXPECT_EQ(prepared.facts->world_size,
            tier["gpus_per_node"].get<int>() * tier["nodes"].get<int>());
  EXPECT_EQ(prepared.facts->train_batch_size,
            tier["micro_batch_size"].get<int>() * 4 * prepared.facts->world_size);
  EXPECT_EQ(prepared.hook_context["tier"], "medium");
}

TEST(PrepareValuesTest, ReturnsEveryContractProblemWhereItsValueWasWritten) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.sets = {"stage=7", "precision=fp8"};
  const PreparedValues prepared = prepare(request);
  EXPECT_EQ(prepared.outcome(), Outcome::Failed);
  EXPECT_FALSE(prepared.facts.has_value());
  ASSERT_EQ(prepared.problems.size(), 2u);
  EXPECT_EQ(prepared.problems[0].code, "values.contract");
  EXPECT_EQ(to_string(prepared.problems[0]),
            "--set stage=7: /stage: error: stage must be an integer 0-3 or null, got 7");
  EXPECT_EQ(to_string(prepared.problems[1]),
            "--set precision=fp8: /precision: error: precision must be one of fp32|fp16|bf16, "
            "got \"fp8\"");
}

TEST(PrepareValuesTest, ReturnsEveryUnknownTierKeyAndLayersNoFurther) {
  test::TempDir dir;
  const auto tier = test::long_dir(dir) / "a100-80gb-eight-gpus-per-node.json";
  write_file_atomically(tier, R"({"gpus_per_node": 8, "gpu_mem_gib": 80, "micro_bach_size": 2})");
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = tier.string();
  request.sets = {"stage=3"};
  const PreparedValues prepared = prepare(request);
  EXPECT_FALSE(prepared.layered);
  EXPECT_EQ(prepared.outcome(), Outcome::Failed);
  EXPECT_EQ(prepared.values.origin("/stage")->kind, LayerKind::TemplateDefault);
  ASSERT_EQ(prepared.problems.size(), 2u);
  const std::string why =
      " (a tier holds the cluster facts and values of docs/tiers.md, and values its template "
      "reads)";
  EXPECT_EQ(prepared.problems[0].code, "tier.unknown-key");
  EXPECT_EQ(to_string(prepared.problems[0]),
            tier.string() +
                ": /gpu_mem_gib: error: unknown key 'gpu_mem_gib' in a tier; did you mean "
                "'gpu_memory_gib'?" +
                why);
  EXPECT_EQ(to_string(prepared.problems[1]),
            tier.string() +
                ": /micro_bach_size: error: unknown key 'micro_bach_size' in a tier; did you "
                "mean 'micro_batch_size'?" +
                why);
}

TEST(PrepareValuesTest, WarnsAboutAValueTheTemplateNeverReads) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.sets = {"frobnicate=1"};
  const PreparedValues prepared = prepare(request);
  EXPECT_EQ(prepared.outcome(), Outcome::Done);
  ASSERT_EQ(prepared.warnings.size(), 1u);
  EXPECT_EQ(prepared.warnings[0].code, "values.unread");
  EXPECT_EQ(prepared.warnings[0].severity, Severity::Warning);
  EXPECT_EQ(to_string(prepared.warnings[0]),
            "--set frobnicate=1: warning: frobnicate is set but deepspeed/config.json.j2 never "
            "reads it (a typo? `zeroforge explain deepspeed/config.json.j2` lists what it reads)");
}

TEST(PrepareValuesTest, APluginRefusalIsReturnedAtTheTemplate) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = "small";
  request.plugins = {"memory"};
  request.sets = {R"(auto_fit={"model": "llama-2-70b"})"};
  const PreparedValues prepared = prepare(request);
  EXPECT_EQ(prepared.outcome(), Outcome::Refused);
  ASSERT_EQ(prepared.refusals.size(), 1u);
  const Diagnostic& refusal = prepared.refusals[0];
  EXPECT_EQ(refusal.code, "plugin.refused");
  EXPECT_EQ(refusal.reporter, "memory");
  EXPECT_EQ(refusal.where.file, "deepspeed/config.json.j2");
  EXPECT_EQ(to_string(refusal).rfind("deepspeed/config.json.j2: error [memory]: tier small: "
                                     "llama-2-70b does not fit even at ZeRO-3",
                                     0),
            0u)
      << to_string(refusal);
}

TEST(PrepareValuesTest, AValuesFileThatIsNotAnObjectThrowsWithItsLocation) {
  test::TempDir dir;
  const auto values_file = test::long_dir(dir) / "values-written-by-hand.json";
  write_file_atomically(values_file, "[1, 2]");
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.values_files = {values_file};
  ConfigSession session = open_config(request);
  try {
    prepare_values(session);
    FAIL() << "prepared";
  } catch (const Error& error) {
    EXPECT_EQ(
        std::string(error.what()),
        values_file.string() + ": /: error: a values file must hold a JSON object, got array");
  }
}

}  // namespace
}  // namespace zf

namespace zf {
namespace {

TEST(PrepareValuesTest, ValuesObjectsLayerAfterFilesAndBeforeSetsUnderTheirLabels) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.values_objects = {{"values[0]", {{"stage", 1}, {"gradient_accumulation", 4}}},
                            {"values[1]", {{"stage", 2}}}};
  request.sets = {"gradient_accumulation=8"};
  const PreparedValues prepared = prepare(request);
  ASSERT_EQ(prepared.outcome(), Outcome::Done);
  EXPECT_EQ(prepared.values.merged()["stage"], 2);
  EXPECT_EQ(prepared.values.origin("/stage")->label, "values[1]");
  EXPECT_EQ(prepared.values.origin("/stage")->kind, LayerKind::ValuesFile);
  EXPECT_EQ(prepared.values.origin("/gradient_accumulation")->label,
            "--set gradient_accumulation=8");
}

TEST(PrepareValuesTest, AValuesObjectThatIsNotAnObjectThrowsAtItsLabel) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.values_objects = {{"values-from-the-python-caller", Json::array({1, 2})}};
  try {
    prepare(request);
    FAIL() << "expected a Values error";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Values);
    EXPECT_STREQ(error.what(),
                 "values-from-the-python-caller: /: error: values must be an object, got array");
    EXPECT_EQ(to_diagnostic(error).code, "values.not-object");
  }
}

TEST(PrepareValuesTest, AContractProblemInAValuesObjectIsPlacedAtItsLabel) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.values_objects = {{"values", {{"stage", 7}}}};
  const PreparedValues prepared = prepare(request);
  ASSERT_EQ(prepared.problems.size(), 1u);
  EXPECT_EQ(to_string(prepared.problems[0]),
            "values: /stage: error: stage must be an integer 0-3 or null, got 7");
}

}  // namespace
}  // namespace zf
