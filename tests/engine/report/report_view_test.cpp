// SPDX-License-Identifier: MIT
// What the family report shows (engine/src/report/report_view.cpp): configs grouped by tier
// in the family's order, changes against the old manifest, findings per config, the memory
// estimate records plugins publish read into bars and trails (whatever the plugin is called),
// and exact errors for a manifest it cannot read (the record's own: estimate_record_test.cpp).
#include "report/report_view.hpp"

#include <gtest/gtest.h>

#include "zeroforge/error.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

// A memory estimate record (zeroforge/memory_estimate.hpp) as the memory plugin publishes it.
Json estimate_record(bool step_is_peak) {
  Json parts = {{{"part", "model_states"}, {"bytes", 100}},
                {{"part", "stage3_working_set"}, {"bytes", 11}},
                {{"part", "comm_buffers"}, {"bytes", 12}}};
  if (step_is_peak) {
    parts.push_back({{"part", "optimizer_step"}, {"bytes", 25}});
    parts.push_back({{"part", "kept_activations"}, {"bytes", 20}});
  } else {
    parts.push_back({{"part", "activations"}, {"bytes", 30}});
    parts.push_back({{"part", "fragmentation"}, {"bytes", 5}});
  }
  parts.push_back({{"part", "cuda_context"}, {"bytes", 2}});
  return {{"schema_version", 1},
          {"model", "llama-2-7b"},
          {"assumptions",
           "sequence 4096, activation checkpointing full, sdpa attention, hf loss, "
           "fragmentation headroom 45% of activations"},
          {"command", "zeroforge estimate"},
          {"gpu",
           {{"peak", step_is_peak ? "optimizer_step" : "forward_backward"},
            {"parts", parts},
            {"total_bytes", 100 + 11 + 12 + (step_is_peak ? 25 + 20 : 30 + 5) + 2},
            {"capacity_bytes", 200},
            {"usable_bytes", nullptr}}},
          {"host", {{"total_bytes", 40}, {"capacity_bytes", nullptr}, {"nvme_bytes", 7}}},
          {"cluster", {{"gpus_per_node", 8}, {"nodes", 2}}}};
}

// The record under the key the SDK names, in the annotation of a plugin called `plugin`.
Json published(const Json& record, const std::string& plugin = "memory") {
  return {{plugin,
           {{"estimate", "the plugin's own layout, which the report never reads"},
            {"memory_estimate", record}}}};
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
    View view = make_view(inputs({entry("small/a.json", "small", "1", published(record))}));
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
    EXPECT_EQ(sum, record["gpu"]["total_bytes"].get<std::int64_t>());
    EXPECT_EQ(c.memory->gpu_capacity, 200);
    EXPECT_EQ(c.memory->cpu_capacity, 0) << "null: the tier states none";
    EXPECT_EQ(c.memory->cpu_total, 40);
    EXPECT_EQ(c.memory->nvme, 7);
    EXPECT_EQ(c.memory->gpus_per_node, 8);
    EXPECT_EQ(c.memory->nodes, 2);
    EXPECT_EQ(c.memory->step_is_peak, step);
    EXPECT_EQ(c.memory->publisher, "memory");
    EXPECT_EQ(c.memory->command, "zeroforge estimate");
    EXPECT_EQ(c.memory->model, "llama-2-7b");
    EXPECT_EQ(c.memory->assumptions,
              "sequence 4096, activation checkpointing full, sdpa attention, hf loss, "
              "fragmentation headroom 45% of activations");
  }
}

// The safety margin: what a config must fit in is the usable memory the record states; a
// record without one (or null) has none (usable = capacity).
TEST(ReportViewTest, ReadsTheUsableMemoryAndTheSafetyMargin) {
  Json with_margin = estimate_record(false);
  with_margin["gpu"]["usable_bytes"] = 190;
  with_margin["gpu"]["margin"] = 0.05;
  Json without = estimate_record(false);
  without["gpu"].erase("usable_bytes");
  struct Case {
    const char* name;
    Json record;
    std::int64_t usable;
    double margin;
  };
  const Case cases[] = {{"with a margin", with_margin, 190, 0.05},
                        {"null usable memory", estimate_record(false), 200, 0.0},
                        {"no usable memory", without, 200, 0.0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    View view = make_view(inputs({entry("small/a.json", "small", "1", published(c.record))}));
    const Config& config = view.tiers[0].configs[0];
    ASSERT_TRUE(config.memory);
    EXPECT_EQ(config.memory->gpu_capacity, 200);
    EXPECT_EQ(config.memory->gpu_usable, c.usable);
    EXPECT_EQ(config.memory->gpu_margin, c.margin);
  }
}

// The report finds the record by its key, whatever the plugin is called and whatever else the
// plugin records beside it; a plugin that publishes none (site_fields) is not an estimator.
TEST(ReportViewTest, ReadsTheRecordOfAnyPluginByItsKey) {
  const std::string name = "acme_cluster_memory_estimator_with_a_long_name";
  Json plugins = published(estimate_record(false), name);
  plugins["site_fields"] = {{"profile", "site.json"}};
  View view = make_view(inputs(
      {entry("small/a.json", "small", "1", plugins),
       entry("small/b.json", "small", "2", {{"memory", {{"estimate", estimate_record(true)}}}})}));
  const auto& configs = view.tiers[0].configs;
  ASSERT_TRUE(configs[0].memory);
  EXPECT_EQ(configs[0].memory->publisher, name);
  EXPECT_EQ(configs[0].memory->gpu_total, 160);
  EXPECT_FALSE(configs[1].memory) << "a plugin's own layout is not the record";
  EXPECT_EQ(configs[1].no_memory,
            "nothing names a model for this config (no auto_fit.model in its values, no "
            "--model), so there is nothing to estimate its memory from");
}

TEST(ReportViewTest, SaysWhyAConfigHasNoChart) {
  const Json skipped =
      published({{"schema_version", 1}, {"skipped", "/stage: expected a stage 0-3"}}, "acme");
  View view = make_view(
      inputs({entry("small/a.json", "small", "1"), entry("small/b.json", "small", "2", skipped)}));
  const auto& configs = view.tiers[0].configs;
  EXPECT_FALSE(view.tiers[0].charted());
  EXPECT_EQ(configs[0].no_memory,
            "nothing names a model for this config (no auto_fit.model in its values, no "
            "--model), so there is nothing to estimate its memory from");
  EXPECT_EQ(configs[1].no_memory,
            "the acme plugin could not estimate this config: /stage: expected a stage 0-3");
}

TEST(ReportViewTest, ReadsAutoFitsTrail) {
  Json record = estimate_record(false);
  record["fit"] = {
      {"chosen", {{"stage", 3}, {"offload_optimizer", "cpu"}, {"offload_param", "none"}}},
      {"micro_batch_size", 2},
      {"largest_fitting_micro_batch_size", 2},
      {"limited_by", "memory"},
      {"kept", {"stage"}},
      {"tried",
       {{{"rung", {{"stage", 3}, {"offload_optimizer", "none"}, {"offload_param", "nvme"}}},
         {"micro_batch_size", 1},
         {"gpu_bytes", 300},
         {"gpu_usable_bytes", 190},
         {"cpu_bytes", 0},
         {"cpu_capacity_bytes", 500},
         {"reason", "GPU needs more"}}}}};
  View view = make_view(inputs({entry("small/a.json", "small", "1", published(record))}));
  const Config& c = view.tiers[0].configs[0];
  ASSERT_TRUE(c.auto_fit);
  EXPECT_EQ(c.auto_fit->chosen, "ZeRO-3, optimizer on CPU, parameters on GPU");
  EXPECT_EQ(c.auto_fit->micro_batch_size, 2);
  EXPECT_EQ(c.auto_fit->limited_by, "memory");
  EXPECT_EQ(c.auto_fit->pinned, std::vector<std::string>{"stage"});
  ASSERT_EQ(c.auto_fit->escalated.size(), 1u);
  const RejectedRung& tried = c.auto_fit->escalated[0];
  EXPECT_EQ(tried.rung, "ZeRO-3, optimizer on GPU, parameters on NVMe");
  EXPECT_EQ(tried.gpu_bytes - tried.gpu_usable, 110);
  EXPECT_EQ(tried.cpu_capacity, 500);
  EXPECT_EQ(tried.reason, "GPU needs more");
}

TEST(ReportViewTest, RefusesAManifestItCannotReadNamingThePointer) {
  struct Case {
    const char* name;
    Json entry;
    std::string expected;
  };
  Json bad_sum = estimate_record(false);
  bad_sum["gpu"]["total_bytes"] = 1;
  Json no_path = entry("small/a.json", "small", "1");
  no_path.erase("path");
  Json no_sha = entry("small/a.json", "small", "1");
  no_sha["sha256"] = 12;
  const std::vector<Case> cases = {
      {"a record that does not add up", entry("small/a.json", "small", "1", published(bad_sum)),
       "manifest.json: /configs/0/plugins/memory/memory_estimate/gpu/total_bytes: error: the "
       "family report cannot read it: the parts add up to 160, not 1 (a plugin named 'memory' "
       "wrote it)"},
      {"no path", no_path,
       "manifest.json: /configs/0/path: error: the family report cannot read it: missing"},
      {"a sha256 that is no string", no_sha,
       "manifest.json: /configs/0/sha256: error: the family report cannot read it: expected a "
       "string, got 12"},
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
