// SPDX-License-Identifier: MIT
// Exact messages of the validator's findings (the corpus checks ids and pointers), the text
// and JSON forms, and the options helpers generate and render use.
#include <gtest/gtest.h>

#include "zeroforge/validator.hpp"

namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> lines(const json& config, const zf::ValidateOptions& options = {}) {
  std::vector<std::string> out;
  for (const auto& f : zf::validate_config(config, options, "ds.json"))
    out.push_back(zf::format_finding(f));
  return out;
}

TEST(ValidateRulesTest, UnknownZeroKeySuggestsTheNearMiss) {
  json config = {{"train_micro_batch_size_per_gpu", 1},
                 {"zero_optimization", {{"stage", 2}, {"overlap_com", true}}}};
  EXPECT_EQ(
      lines(config),
      std::vector<std::string>{
          "ds.json: /zero_optimization/overlap_com: error [unknown-key]: \"overlap_com\" is not a "
          "key of /zero_optimization, which DeepSpeed validates strictly: it refuses the config; "
          "did you mean \"overlap_comm\"?"});
}

TEST(ValidateRulesTest, ShortenedAndAbbreviatedKeysFindTheirName) {
  // The same rule as the values contract: a name cut short, or a few edits on a long one.
  json config = {{"train_micro_batch_size_per_gpu", 1},
                 {"zero_optimization",
                  {{"stage", 3}, {"stage3_prefetch_bucket", 5}, {"stage3_max_live_params", 3}}}};
  const std::string strict =
      ", which DeepSpeed validates strictly: it refuses the config; did you mean ";
  EXPECT_EQ(lines(config),
            (std::vector<std::string>{
                "ds.json: /zero_optimization/stage3_prefetch_bucket: error [unknown-key]: "
                "\"stage3_prefetch_bucket\" is not a key of /zero_optimization" +
                    strict + "\"stage3_prefetch_bucket_size\"?",
                "ds.json: /zero_optimization/stage3_max_live_params: error [unknown-key]: "
                "\"stage3_max_live_params\" is not a key of /zero_optimization" +
                    strict + "\"stage3_max_live_parameters\"?"}));
}

TEST(ValidateRulesTest, MisplacedTopLevelKeySaysWhereItBelongs) {
  json config = {{"train_micro_batch_size_per_gpu", 1}, {"memory_efficient_linear", false}};
  EXPECT_EQ(
      lines(config),
      std::vector<std::string>{
          "ds.json: /memory_efficient_linear: warning [ignored-key]: DeepSpeed does not read "
          "\"memory_efficient_linear\" at the top level and silently ignores it; it belongs at "
          "/zero_optimization/memory_efficient_linear (ZeRO stage 3, default true)"});
}

TEST(ValidateRulesTest, BatchMismatchShowsDeepSpeedsDerivation) {
  json config = {{"train_batch_size", 30}, {"train_micro_batch_size_per_gpu", 4}};
  zf::ValidateOptions options;
  options.world_size = 1;
  EXPECT_EQ(lines(config, options),
            std::vector<std::string>{
                "ds.json: /train_batch_size: error [batch-mismatch]: train_batch_size must equal "
                "train_micro_batch_size_per_gpu * gradient_accumulation_steps * world size, but 30 "
                "!= 4 * 7 * 1 "
                "(DeepSpeed derived gradient_accumulation_steps = 30 // 4 // 1 = 7); make "
                "train_batch_size a "
                "multiple of the other two times the world size"});
}

// Batch keys may be anything up to 2^63 - 1: DeepSpeed (Python) multiplies them exactly, so a
// product past 64 bits equals no train_batch_size a config holds. Each product is checked,
// never wrapped (issue 22).
TEST(ValidateRulesTest, BatchProductsPast64BitsAreMismatchesNeverWrapped) {
  const std::string rule =
      "train_batch_size must equal train_micro_batch_size_per_gpu * "
      "gradient_accumulation_steps * world size, but ";
  struct Case {
    const char* name;
    json config;
    long long world;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"micro * world wraps to 0",
       {{"train_batch_size", 256},
        {"train_micro_batch_size_per_gpu", 2305843009213693952LL},
        {"gradient_accumulation_steps", 1}},
       8,
       {"ds.json: /train_batch_size: error [batch-mismatch]: " + rule +
        "256 != 2305843009213693952 * 1 * 8; lower train_micro_batch_size_per_gpu or "
        "gradient_accumulation_steps"}},
      {"derived train_batch_size",
       {{"train_micro_batch_size_per_gpu", 4611686018427387904LL},
        {"gradient_accumulation_steps", 4}},
       2,
       {"ds.json: /train_micro_batch_size_per_gpu: error [batch-mismatch]: at world size 2 "
        "DeepSpeed derives train_batch_size = 4611686018427387904 * 4 * 2, which is beyond "
        "64-bit integers (9223372036854775807); lower train_micro_batch_size_per_gpu or "
        "gradient_accumulation_steps"}},
      {"largest that fits",
       {{"train_batch_size", 9223372036854775806LL},
        {"train_micro_batch_size_per_gpu", 4611686018427387903LL},
        {"gradient_accumulation_steps", 1}},
       2,
       {}},
      {"max times max",
       {{"train_batch_size", 9223372036854775807LL},
        {"train_micro_batch_size_per_gpu", 9223372036854775807LL},
        {"gradient_accumulation_steps", 9223372036854775807LL}},
       9223372036854775807LL,
       {"ds.json: /train_batch_size: error [batch-mismatch]: " + rule +
        "9223372036854775807 != 9223372036854775807 * 9223372036854775807 * "
        "9223372036854775807; lower train_micro_batch_size_per_gpu or "
        "gradient_accumulation_steps"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    zf::ValidateOptions options;
    options.world_size = c.world;
    EXPECT_EQ(lines(c.config, options), c.expected);
  }
  // Without a world size, the consistent world sizes times a sequence-parallel size past
  // 64 bits are not listed (none is a GPU count).
  json huge_sp = {{"train_batch_size", 2},
                  {"train_micro_batch_size_per_gpu", 1},
                  {"sequence_parallel_size", 9223372036854775807LL}};
  EXPECT_EQ(lines(huge_sp),
            std::vector<std::string>{
                "ds.json: /train_batch_size: note [batch-world-size]: the batch keys are "
                "consistent only with world size 9223372036854775807; pass --world-size N to "
                "check the one you launch with"});
  // gpus_per_node x nodes past 64 bits gives no world size (the values contract names it).
  EXPECT_FALSE(
      zf::validate_options_from_values({{"gpus_per_node", 4611686018427387904LL}, {"nodes", 2}})
          .world_size);
  EXPECT_EQ(
      zf::validate_options_from_values({{"gpus_per_node", 4611686018427387903LL}, {"nodes", 2}})
          .world_size,
      9223372036854775806LL);
}

TEST(ValidateRulesTest, BatchWithoutWorldSizeListsTheConsistentOnes) {
  json config = {{"train_batch_size", 16}, {"gradient_accumulation_steps", 1}};
  EXPECT_EQ(
      lines(config),
      std::vector<std::string>{
          "ds.json: /train_batch_size: note [batch-world-size]: the batch keys are consistent "
          "only with world sizes 1, 2, 4, 8, 16; pass --world-size N to check the one you "
          "launch with"});
}

TEST(ValidateRulesTest, BatchWorldSizeIsDividedBySequenceParallelism) {
  json config = {{"train_batch_size", 8},
                 {"train_micro_batch_size_per_gpu", 2},
                 {"gradient_accumulation_steps", 1},
                 {"sequence_parallel_size", 2}};
  zf::ValidateOptions options;
  options.world_size = 8;  // 4 data-parallel ranks
  EXPECT_TRUE(lines(config, options).empty());
}

// A pydantic section drops "auto" and runs with the default: DeepSpeed accepts the config, so
// it is a warning that names the default; where the string reaches DeepSpeed's code (the batch
// keys, a .get-read value, a list) it is an error.
TEST(ValidateRulesTest, AutoDroppedByAPydanticSectionIsAWarningNamingTheDefault) {
  json config = {{"train_micro_batch_size_per_gpu", 1},
                 {"zero_optimization", {{"stage", 2}, {"reduce_bucket_size", "auto"}}}};
  EXPECT_EQ(
      lines(config),
      std::vector<std::string>{
          "ds.json: /zero_optimization/reduce_bucket_size: warning [auto-dropped]: \"auto\" is "
          "filled only by the Hugging Face Trainer; raw DeepSpeed drops \"auto\" in this section "
          "and runs with the default 500000000. Validate with --hf if the Trainer loads this "
          "file, otherwise write the value you mean"});
  json passed_on = {{"train_micro_batch_size_per_gpu", 1}, {"gradient_clipping", "auto"}};
  EXPECT_EQ(lines(passed_on),
            std::vector<std::string>{
                "ds.json: /gradient_clipping: error [auto-without-hf]: \"auto\" is filled only by "
                "the Hugging Face Trainer; raw DeepSpeed passes the string \"auto\" on as the "
                "value. Validate with --hf if the Trainer loads this file, otherwise write a "
                "value"});
}

// The Trainer's own optimizer meets optimizer offload: accelerate swaps it for DeepSpeedCPUAdam
// only where offload_optimizer.device says so, not for the deprecated cpu_offload.
TEST(ValidateRulesTest, TheTrainersOptimizerUnderCpuOffloadIsRefusedWhereAccelerateKeepsIt) {
  struct Case {
    const char* name;
    json config;
    bool refused;
  };
  const json batch = "auto";
  const std::vector<Case> cases = {
      {"cpu_offload, no optimizer",
       {{"zero_optimization", {{"stage", 2}, {"cpu_offload", true}}}},
       true},
      {"offload_optimizer device cpu: accelerate swaps it",
       {{"zero_optimization", {{"stage", 2}, {"offload_optimizer", {{"device", "cpu"}}}}}},
       false},
      {"an optimizer section: DeepSpeed builds its own",
       {{"zero_optimization", {{"stage", 2}, {"cpu_offload", true}}},
        {"optimizer", {{"type", "AdamW"}, {"params", {{"lr", 1e-4}}}}}},
       false},
      {"zero_force_ds_cpu_optimizer false",
       {{"zero_optimization", {{"stage", 2}, {"cpu_offload", true}}},
        {"zero_force_ds_cpu_optimizer", false}},
       false},
      {"no offload", {{"zero_optimization", {{"stage", 2}}}}, false},
  };
  zf::ValidateOptions hf;
  hf.hf = true;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json config = c.config;
    config["train_micro_batch_size_per_gpu"] = batch;
    std::size_t refused = 0;
    for (const auto& f : zf::validate_config(config, hf, "ds.json"))
      refused += f.rule == "accelerate-client-optimizer";
    EXPECT_EQ(refused, c.refused ? 1u : 0u);
    // Raw DeepSpeed: the client's optimizer is unknown, so nothing is said.
    for (const auto& f : zf::validate_config(config, {}, "ds.json"))
      EXPECT_NE(f.rule, "accelerate-client-optimizer");
  }
}

TEST(ValidateRulesTest, StageThreeAutoKeysBelowStageThreeAreOnlyAStageWarning) {
  json config = {{"train_micro_batch_size_per_gpu", "auto"},
                 {"zero_optimization", {{"stage", 2}, {"stage3_prefetch_bucket_size", "auto"}}}};
  zf::ValidateOptions options;
  options.hf = true;
  auto findings = zf::validate_config(config, options, "ds.json");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "zero-key-stage");
}

TEST(ValidateRulesTest, PydanticSectionsAcceptLaxValues) {
  // DeepSpeedConfigModel is not strict: 5e8 (a float), "3" and "true" are converted.
  json config = json::parse(R"({"train_micro_batch_size_per_gpu": 1,
      "zero_optimization": {"stage": "3", "reduce_bucket_size": 5e8, "overlap_comm": "true"}})");
  EXPECT_TRUE(lines(config).empty());
}

TEST(ValidateRulesTest, SectionsReadWithGetTakeValuesAsTheyAre) {
  // Outside pydantic sections nothing is converted; a key with two types names both.
  json config = json::parse(R"({"train_micro_batch_size_per_gpu": 1,
      "aio": {"block_size": "1048576", "queue_depth": 8.5, "single_submit": 1},
      "zero_optimization": {"stage": 3, "zenflow": {"select_interval": [], "overlap_step": 0}}})");
  EXPECT_EQ(lines(config),
            (std::vector<std::string>{
                "ds.json: /aio/block_size: error [type]: expected an integer, found \"1048576\"; "
                "write the number without quotes",
                "ds.json: /aio/queue_depth: error [type]: expected an integer, found 8.5 "
                "(not a whole number)",
                "ds.json: /aio/single_submit: error [type]: expected true or false, found 1",
                "ds.json: /zero_optimization/zenflow/select_interval: error [type]: "
                "expected a string or an integer, found []"}));
}

TEST(ValidateRulesTest, NonObjectConfigIsOneTypeError) {
  EXPECT_EQ(lines(json::array()),
            std::vector<std::string>{
                "ds.json: /: error [type]: a DeepSpeed config is a JSON object, found []"});
}

TEST(ValidateRulesTest, FindingsAsJson) {
  std::vector<zf::Finding> findings = {{"a.json", "/x", zf::Severity::Warning, "ignored-key", "m"}};
  EXPECT_EQ(
      zf::findings_to_json(findings).dump(),
      R"([{"file":"a.json","pointer":"/x","severity":"warning","rule":"ignored-key","message":"m"}])");
  EXPECT_FALSE(zf::has_errors(findings));
}

TEST(ValidateRulesTest, OptionsFromTemplateValues) {
  auto options =
      zf::validate_options_from_values({{"gpus_per_node", 8}, {"nodes", 2}, {"hf_auto", true}});
  EXPECT_EQ(options.world_size, 16);
  EXPECT_TRUE(options.hf);
  EXPECT_EQ(zf::validate_options_from_values({{"world_size", 4}, {"gpus_per_node", 8}}).world_size,
            4);
  EXPECT_FALSE(zf::validate_options_from_values({{"stage", 3}}).world_size.has_value());
  // The release the templates wrote for is the one the output is judged by; null: the newest.
  EXPECT_EQ(zf::validate_options_from_values({{"deepspeed_version", "0.16.2"}}).deepspeed_version,
            "0.16.2");
  EXPECT_EQ(zf::validate_options_from_values({{"deepspeed_version", nullptr}}).deepspeed_version,
            "");
}

TEST(ValidateRulesTest, OptionsFromTemplateValuesTakeOnlyIntegers) {
  // A missing factor counts as 1; a factor that is not an integer leaves the world size unknown.
  EXPECT_EQ(zf::validate_options_from_values({{"nodes", 2}}).world_size, 2);
  EXPECT_EQ(zf::validate_options_from_values({{"gpus_per_node", 4.0}}).world_size, 4);
  EXPECT_FALSE(zf::validate_options_from_values({{"gpus_per_node", "8"}, {"nodes", 2}}).world_size);
  EXPECT_EQ(
      zf::validate_options_from_values({{"world_size", "4"}, {"gpus_per_node", 8}}).world_size, 8);
  EXPECT_FALSE(zf::validate_options_from_values({{"hf_auto", "true"}}).hf);
}

TEST(ValidateRulesTest, RecognisesDeepSpeedConfigs) {
  EXPECT_TRUE(zf::is_deepspeed_config({{"zero_optimization", {{"stage", 1}}}}));
  EXPECT_FALSE(zf::is_deepspeed_config({{"name", "x"}}));
  EXPECT_FALSE(zf::is_deepspeed_config(json::array()));
}

}  // namespace
