// SPDX-License-Identifier: MIT
// What the family report shows (engine/src/report/report_view.cpp): configs grouped by tier
// in the family's order, changes against the old manifest, findings per config, the memory
// plugin's records read into bars and trails, and exact errors for records it cannot read.
#include "report/report_view.hpp"

#include <gtest/gtest.h>

#include "zeroforge/error.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

// A record as the memory plugin writes it (the JSON of `zeroforge estimate --format json`).
Json estimate_record(bool step_is_peak) {
  return {
      {"model", {{"params", 7000}, {"seq_len", 4096}, {"name", "llama-2-7b"}}},
      {"inputs",
       {{"stage", 3},
        {"gpus_per_node", 8},
        {"nodes", 2},
        {"activation_checkpointing", "full"},
        {"attention", "sdpa"},
        {"loss", "hf"},
        {"headroom", 0.45}}},
      {"model_states", {{"gpu_bytes", 100}, {"cpu_bytes", 40}, {"nvme_bytes", 7}}},
      {"activations", {{"gpu_bytes", 30}}},
      {"optimizer_step",
       {{"gpu_bytes", 25}, {"unreused_activation_bytes", 20}, {"is_peak", step_is_peak}}},
      {"stage3_working_set", {{"gpu_bytes", 11}}},
      {"comm_buffers", {{"gpu_bytes", 12}}},
      {"headroom", {{"gpu_bytes", 5}}},
      {"cuda_context", {{"gpu_bytes", 2}}},
      {"total",
       {{"gpu_bytes", 100 + 11 + 12 + (step_is_peak ? 25 + 20 : 30 + 5) + 2}, {"cpu_bytes", 40}}},
      {"capacity", {{"gpu_bytes", 200}, {"cpu_bytes", nullptr}}}};
}

Json entry(const std::string& path, const std::string& tier, const std::string& sha,
           const Json& plugins = Json::object()) {
  Json e = {{"path", path},     {"tier", tier}, {"variant", {{"stage", 3}, {"precision", "bf16"}}},
            {"world_size", 16}, {"stage", 3},   {"sha256", sha}};
  if (!plugins.empty()) e["plugins"] = plugins;
  return e;
}

ViewInputs inputs(Json configs) {
  ViewInputs in;
  in.manifest = {{"zeroforge_version", "0.1.0"},
                 {"family", "f"},
                 {"template", "deepspeed/config.json.j2"},
                 {"configs", std::move(configs)}};
  in.tier_order = {"small", "large"};
  in.finding_prefix = "out/";
  return in;
}

TEST(ReportViewTest, TiersFollowTheFamilyAndConfigsTheirPaths) {
  ViewInputs in = inputs({entry("large/a.json", "large", "1"), entry("large/b.json", "large", "2"),
                          entry("small/a.json", "small", "3")});
  View view = make_view(in);
  ASSERT_EQ(view.tiers.size(), 2u);
  EXPECT_EQ(view.tiers[0].name, "small");
  EXPECT_EQ(view.tiers[1].name, "large");
  ASSERT_EQ(view.tiers[1].configs.size(), 2u);
  EXPECT_EQ(view.tiers[1].configs[0].path, "large/a.json");
  EXPECT_EQ(view.tiers[1].configs[0].variant, "stage=3 precision=bf16");
  EXPECT_EQ(view.tiers[1].configs[0].facts, Json({{"world_size", 16}, {"stage", 3}}));
  EXPECT_EQ(view.configs, 3u);
  EXPECT_EQ(view.family, "f");
}

TEST(ReportViewTest, AFamilyTierThatMadeNothingIsLeftOutAndAnUnknownOneComesLast) {
  ViewInputs in = inputs({entry("x/a.json", "x", "1"), entry("large/a.json", "large", "2")});
  View view = make_view(in);
  ASSERT_EQ(view.tiers.size(), 2u);
  EXPECT_EQ(view.tiers[0].name, "large");
  EXPECT_EQ(view.tiers[1].name, "x");
}

TEST(ReportViewTest, MarksEachConfigAgainstTheOldManifestAndListsTheRemovedOnes) {
  ViewInputs in =
      inputs({entry("small/new.json", "small", "n"), entry("small/same.json", "small", "s"),
              entry("small/edited.json", "small", "e2")});
  in.baseline.present = true;
  in.baseline.sha256 = {
      {"small/same.json", "s"}, {"small/edited.json", "e1"}, {"small/gone.json", "g"}};
  View view = make_view(in);
  const auto& configs = view.tiers[0].configs;  // in path order
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[0].path, "small/edited.json");
  EXPECT_EQ(configs[0].change, Change::Changed);
  EXPECT_EQ(configs[1].change, Change::New);
  EXPECT_EQ(configs[2].change, Change::Unchanged);
  EXPECT_EQ(view.removed, std::vector<std::string>{"small/gone.json"});
}

TEST(ReportViewTest, NoManifestOrAnUnreadableOneMarksNothing) {
  for (bool unreadable : {false, true}) {
    SCOPED_TRACE(unreadable);
    ViewInputs in = inputs({entry("small/a.json", "small", "1")});
    in.baseline.present = unreadable;
    if (unreadable) in.baseline.problem = "out/manifest.json:1:1: error: bad";
    View view = make_view(in);
    EXPECT_EQ(view.tiers[0].configs[0].change, Change::NotCompared);
    EXPECT_TRUE(view.removed.empty());
  }
}

TEST(ReportViewTest, FindingsGoToTheirConfigNamedRelativeToTheOutputDirectory) {
  ViewInputs in =
      inputs({entry("small/a.json", "small", "1"), entry("small/b.json", "small", "2")});
  in.findings = {{"out/small/b.json", "/zero_optimization", Severity::Warning, "rule-x", "msg"}};
  View view = make_view(in);
  EXPECT_TRUE(view.tiers[0].configs[0].findings.empty());
  ASSERT_EQ(view.tiers[0].configs[1].findings.size(), 1u);
  EXPECT_EQ(view.tiers[0].configs[1].findings[0].file, "small/b.json");
  EXPECT_EQ(view.tiers[0].configs[1].findings[0].rule, "rule-x");
}

TEST(ReportViewTest, TheEstimateBecomesTheBarsPartsInTheirOrder) {
  for (bool step : {false, true}) {
    SCOPED_TRACE(step);
    const Json record = estimate_record(step);
    View view = make_view(
        inputs({entry("small/a.json", "small", "1", {{"memory", {{"estimate", record}}}})}));
    const Config& c = view.tiers[0].configs[0];
    ASSERT_TRUE(c.memory);
    EXPECT_TRUE(view.tiers[0].charted());
    std::vector<std::string> keys;
    std::int64_t sum = 0;
    for (const Segment& s : c.memory->gpu) {
      keys.push_back(s.key);
      sum += s.bytes;
    }
    const std::vector<std::string> expected =
        step ? std::vector<std::string>{"model-states",   "working-set",      "buffers",
                                        "optimizer-step", "kept-activations", "cuda-context"}
             : std::vector<std::string>{"model-states", "working-set", "buffers",
                                        "activations",  "headroom",    "cuda-context"};
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(sum, record["total"]["gpu_bytes"].get<std::int64_t>());
    EXPECT_EQ(c.memory->gpu_capacity, 200);
    EXPECT_EQ(c.memory->cpu_capacity, 0) << "null: the tier states none";
    EXPECT_EQ(c.memory->cpu_total, 40);
    EXPECT_EQ(c.memory->nvme, 7);
    EXPECT_EQ(c.memory->model, "llama-2-7b");
    EXPECT_EQ(c.memory->assumptions,
              "sequence 4096, activation checkpointing full, sdpa attention, hf loss, "
              "fragmentation headroom 45% of activations");
  }
}

// The safety margin: what a config must fit in is the usable memory the estimate recorded; an
// estimate recorded before the margin existed has none (usable = capacity).
TEST(ReportViewTest, ReadsTheUsableMemoryAndTheSafetyMargin) {
  Json with_margin = estimate_record(false);
  with_margin["capacity"]["gpu_usable_bytes"] = 190;
  with_margin["inputs"]["gpu_memory_margin"] = 0.05;
  struct Case {
    const char* name;
    Json record;
    std::int64_t usable;
    double margin;
  };
  const Case cases[] = {{"with a margin", with_margin, 190, 0.05},
                        {"recorded before the margin", estimate_record(false), 200, 0.0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    View view = make_view(
        inputs({entry("small/a.json", "small", "1", {{"memory", {{"estimate", c.record}}}})}));
    const Config& config = view.tiers[0].configs[0];
    ASSERT_TRUE(config.memory);
    EXPECT_EQ(config.memory->gpu_capacity, 200);
    EXPECT_EQ(config.memory->gpu_usable, c.usable);
    EXPECT_EQ(config.memory->gpu_margin, c.margin);
  }
}

TEST(ReportViewTest, SaysWhyAConfigHasNoChart) {
  const Json skipped = {{"memory", {{"estimate", {{"skipped", "/stage: expected a stage 0-3"}}}}}};
  View view = make_view(
      inputs({entry("small/a.json", "small", "1"), entry("small/b.json", "small", "2", skipped)}));
  const auto& configs = view.tiers[0].configs;
  EXPECT_FALSE(view.tiers[0].charted());
  EXPECT_EQ(configs[0].no_memory,
            "nothing names a model for this config (no auto_fit.model in its values, no "
            "--model), so there is nothing to estimate its memory from");
  EXPECT_EQ(configs[1].no_memory,
            "the memory plugin could not estimate this config: /stage: expected a stage 0-3");
}

TEST(ReportViewTest, ReadsAutoFitsTrail) {
  const Json auto_fit = {{"stage", 3},
                         {"offload_optimizer", "cpu"},
                         {"offload_param", "none"},
                         {"micro_batch_size", 2},
                         {"largest_fitting_micro_batch_size", 2},
                         {"micro_batch_limited_by", "memory"},
                         {"pinned", {"stage"}},
                         {"escalated",
                          {{{"stage", 3},
                            {"offload_optimizer", "none"},
                            {"offload_param", "none"},
                            {"micro_batch_size", 1},
                            {"gpu_bytes", 300},
                            {"gpu_capacity_bytes", 200},
                            {"cpu_bytes", 0},
                            {"cpu_capacity_bytes", 500},
                            {"reason", "GPU needs more"}}}}};
  View view = make_view(
      inputs({entry("small/a.json", "small", "1", {{"memory", {{"auto_fit", auto_fit}}}})}));
  const Config& c = view.tiers[0].configs[0];
  ASSERT_TRUE(c.auto_fit);
  EXPECT_EQ(c.auto_fit->chosen, "ZeRO-3, optimizer on CPU, parameters on GPU");
  EXPECT_EQ(c.auto_fit->pinned, std::vector<std::string>{"stage"});
  ASSERT_EQ(c.auto_fit->escalated.size(), 1u);
  EXPECT_EQ(c.auto_fit->escalated[0].rung, "ZeRO-3, optimizer on GPU, parameters on GPU");
  EXPECT_EQ(c.auto_fit->escalated[0].gpu_bytes - c.auto_fit->escalated[0].gpu_capacity, 100);
}

TEST(ReportViewTest, RefusesRecordsItCannotReadNamingThePointer) {
  struct Case {
    const char* name;
    Json entry;
    std::string expected;
  };
  Json no_total = estimate_record(false);
  no_total["total"].erase("gpu_bytes");
  Json bad_sum = estimate_record(false);
  bad_sum["total"]["gpu_bytes"] = 1;
  Json no_path = entry("small/a.json", "small", "1");
  no_path.erase("path");
  const std::vector<Case> cases = {
      {"missing total", entry("small/a.json", "small", "1", {{"memory", {{"estimate", no_total}}}}),
       "manifest.json: /configs/0/plugins/memory/estimate/total/gpu_bytes: error: the family "
       "report cannot read it: missing (a plugin named 'memory' wrote it)"},
      {"parts that do not add up",
       entry("small/a.json", "small", "1", {{"memory", {{"estimate", bad_sum}}}}),
       "manifest.json: /configs/0/plugins/memory/estimate/total/gpu_bytes: error: the family "
       "report cannot read it: the parts add up to 160, not 1 (a plugin named 'memory' wrote "
       "it)"},
      {"no path", no_path,
       "manifest.json: /configs/0/path: error: the family report cannot read it: missing"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      make_view(inputs({c.entry}));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
}

}  // namespace
}  // namespace zf::report
