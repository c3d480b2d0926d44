// SPDX-License-Identifier: MIT
// The memory plugin's values hook (plugins/memory/auto_fit_hook.cpp) through its real ABI:
// which layers pin a value, what it applies and records, and findings that change nothing.
#include <gtest/gtest.h>

#include <cmath>

#include "support/memory_plugin.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

const PluginHost& host() { return test::memory_plugin_host(); }

// The layers of a small-tier member of a family, the way expand.cpp labels them.
LayeredValues small_tier_member(const Json& family_values) {
  LayeredValues values;
  values.apply({LayerKind::TemplateDefault, "deepspeed/config.json.j2"},
               {{"stage", 2},
                {"precision", "bf16"},
                {"offload_optimizer", "none"},
                {"offload_param", "none"},
                {"nvme_path", nullptr},
                {"micro_batch_size", 1},
                {"gradient_accumulation", nullptr},
                {"global_batch_size", nullptr},
                {"world_size", nullptr}});
  values.apply({LayerKind::Tier, "presets/tiers/small.json"}, {{"gpus_per_node", 1},
                                                               {"nodes", 1},
                                                               {"gpu_memory_gib", 24},
                                                               {"cpu_memory_gib", 128},
                                                               {"micro_batch_size", 1},
                                                               {"offload_optimizer", "cpu"}});
  values.apply({LayerKind::Family, "fam.json"},
               {{"global_batch_size", 512},
                {"auto_fit", {{"model", "llama-2-7b"}, {"activation_checkpointing", "full"}}}});
  values.apply({LayerKind::Family, "fam.json /tiers/0/values"}, family_values);
  return values;
}

const Json context = {
    {"template", "deepspeed/config.json.j2"}, {"family", "fam"}, {"tier", "small"}};

// Which layers pin a value (docs/estimator.md, "Pinned and free values"): what the family
// or the user sets is a constraint of the fit; template defaults and tier files are policy it
// may change.
TEST(AutoFitHookTest, ValuesTheFamilyOrTheUserSetArePinnedTemplateDefaultsAndTiersAreFree) {
  struct Case {
    LayerKind kind;
    const char* label;
    bool pinned;
  };
  const Case cases[] = {
      {LayerKind::TemplateDefault, "deepspeed/defaults.json", false},
      {LayerKind::Tier, "presets/tiers/small.json", false},
      {LayerKind::Family, "fam.json", true},
      {LayerKind::Family, "fam.json /tiers/0/values", true},
      {LayerKind::Variant, "fam.json /axes/stage/0", true},
      {LayerKind::ValuesFile, "team-values.json", true},
      {LayerKind::Set, "--set stage=2", true},
      {LayerKind::Plugin, "plugin site_fields", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    LayeredValues values = small_tier_member(Json::object());
    values.apply({c.kind, c.label}, {{"stage", 2}});
    ValuesHookResult result = host().run_values_hooks(values, context);
    ASSERT_TRUE(result.findings.empty());
    const Json& note = result.manifest.at("memory").at("auto_fit");
    if (c.pinned) {
      EXPECT_EQ(values.merged()["stage"], 2);
      EXPECT_EQ(values.origin("/stage")->label, c.label) << "pinned: untouched";
      EXPECT_EQ(note["pinned"], Json({"stage"}));
      EXPECT_EQ(note["offload_optimizer"], "cpu") << "stage 2 fits the small tier with offload";
    } else {
      EXPECT_EQ(values.merged()["stage"], 3) << "the fit's choice";
      EXPECT_EQ(values.origin("/stage")->label, "plugin memory (auto-fit)");
      EXPECT_EQ(note["pinned"], Json::array());
    }
    // The tier's micro batch and offload are policy: chosen, in auto-fit's own layer.
    EXPECT_EQ(values.origin("/micro_batch_size")->label, "plugin memory (auto-fit)");
    EXPECT_EQ(values.origin("/offload_optimizer")->label, "plugin memory (auto-fit)");
    EXPECT_EQ(values.merged()["micro_batch_size"].get<int>() *
                  values.merged()["gradient_accumulation"].get<int>(),
              512);
    EXPECT_EQ(note["model"]["name"], "llama-2-7b");
    EXPECT_EQ(note["model"]["activation_checkpointing"], "full");
    EXPECT_EQ(note["estimate"]["gpu_capacity_bytes"], 24LL << 30);
    EXPECT_EQ(note["estimate"]["cpu_capacity_bytes"], 128LL << 30);
  }
}

// A team's policy in the family's values holds on every tier: ZeRO-3 with the optimizer on the
// CPU even where the GPUs would hold ZeRO-1 without offload.
TEST(AutoFitHookTest, AFamilysStageAndOffloadAreKeptWhereLessWouldFit) {
  LayeredValues values = small_tier_member(Json::object());
  values.apply({LayerKind::Tier, "presets/tiers/medium.json"},
               {{"gpus_per_node", 8}, {"gpu_memory_gib", 80}, {"cpu_memory_gib", 1024}});
  values.apply({LayerKind::Family, "team.json"}, {{"stage", 3}, {"offload_optimizer", "cpu"}});
  ValuesHookResult result = host().run_values_hooks(values, context);
  ASSERT_TRUE(result.findings.empty());
  EXPECT_EQ(values.merged()["stage"], 3);
  EXPECT_EQ(values.merged()["offload_optimizer"], "cpu");
  EXPECT_EQ(values.origin("/offload_optimizer")->label, "team.json");
  const Json& note = result.manifest.at("memory").at("auto_fit");
  EXPECT_EQ(note["pinned"], Json({"stage", "offload_optimizer"}));
  EXPECT_TRUE(note["escalated"].empty()) << "the pinned rung is the only one tried";
}

TEST(AutoFitHookTest, AStageTheTemplatePinsIsKeptThoughATemplateDefault) {
  // deepspeed/zero1.json.j2: its entry in defaults.json sets stage 1 and pins it.
  auto zero1_member = [] {
    LayeredValues values = small_tier_member(Json::object());
    values.apply({LayerKind::TemplateDefault, "deepspeed/defaults.json (deepspeed/zero1.json.j2)"},
                 {{"stage", 1}});
    return values;
  };
  LayeredValues free = zero1_member();
  ASSERT_TRUE(host().run_values_hooks(free, context).findings.empty());
  EXPECT_NE(free.merged()["stage"], 1) << "unpinned, auto-fit moves a template default";

  Json pinned_context = context;
  pinned_context["template"] = "deepspeed/zero1.json.j2";
  pinned_context["pinned"] = {"stage"};
  LayeredValues values = zero1_member();
  ValuesHookResult result = host().run_values_hooks(values, pinned_context);
  ASSERT_TRUE(result.findings.empty());
  EXPECT_EQ(values.merged()["stage"], 1);
  EXPECT_EQ(values.origin("/stage")->label, "deepspeed/defaults.json (deepspeed/zero1.json.j2)");
  const Json& note = result.manifest.at("memory").at("auto_fit");
  EXPECT_EQ(note["pinned"], Json({"stage"}));
  EXPECT_EQ(note["stage"], 1);
  EXPECT_EQ(note["offload_optimizer"], "cpu") << "stage 1 fits the small tier only with offload";
}

// A fit the pinned values make impossible names them: the finding points at the value (so
// generate places it in the file that set it) and says what fits without it.
TEST(AutoFitHookTest, AnImpossibleFitNamesThePinsThatMakeItImpossible) {
  struct Case {
    const char* name;
    Json pins;  // set by --set, in this order
    const char* pointer;
    const char* message;
  };
  // Each GPU figure is "of 22.80 GiB usable": the small tier's 24 GiB less the 5% margin.
  const Case cases[] = {
      {"one pin",
       {{"offload_optimizer", "none"}},
       "/offload_optimizer",
       "tier small: llama-2-7b does not fit even at ZeRO-3, offload_optimizer=none, "
       "offload_param=cpu with micro batch 1: GPU needs 97.25 GiB of 22.80 GiB usable (74.45 GiB "
       "short); CPU needs 12.55 GiB of 128.00 GiB per node; the pinned offload_optimizer=none "
       "makes it impossible: without it, ZeRO-3, offload_optimizer=cpu, offload_param=none fits "
       "with micro batch 1 (GPU needs 19.99 GiB of 22.80 GiB usable; CPU needs 100.41 GiB of "
       "128.00 GiB per node)"},
      {"each of two pins",
       {{"stage", 1}, {"micro_batch_size", 4}},
       "/stage",
       "tier small: llama-2-7b does not fit even at ZeRO-1, offload_optimizer=cpu, "
       "offload_param=none with micro batch 4: GPU needs 30.24 GiB of 22.80 GiB usable (7.44 GiB "
       "short); CPU needs 100.41 GiB of 128.00 GiB per node; the pinned stage=1 and "
       "micro_batch_size=4 each make it impossible: without stage=1, ZeRO-3, "
       "offload_optimizer=cpu, offload_param=cpu fits with micro batch 4 (GPU needs 18.71 GiB "
       "of 22.80 GiB usable; CPU needs 112.96 GiB of 128.00 GiB per node)"},
      {"two pins together",
       {{"offload_param", "none"}, {"offload_optimizer", "none"}, {"micro_batch_size", 8}},
       "/offload_optimizer",
       "tier small: llama-2-7b does not fit even at ZeRO-3, offload_optimizer=none, "
       "offload_param=none with micro batch 8: GPU needs 134.14 GiB of 22.80 GiB usable (111.34 "
       "GiB short); the pinned offload_optimizer=none and micro_batch_size=8 together make it "
       "impossible: without them, ZeRO-3, offload_optimizer=cpu, offload_param=none fits with "
       "micro batch 1 (GPU needs 19.99 GiB of 22.80 GiB usable; CPU needs 100.41 GiB of 128.00 "
       "GiB per node)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LayeredValues values = small_tier_member(Json::object());
    for (const auto& [key, value] : c.pins.items())
      values.apply({LayerKind::Set, "--set " + key}, {{key, value}});
    ValuesHookResult result = host().run_values_hooks(values, context);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].pointer, c.pointer);
    EXPECT_EQ(result.findings[0].message, c.message);
  }
  // A model too large for the tier whatever is pinned blames no pin: it lists them.
  LayeredValues values = small_tier_member({{"auto_fit", {{"model", "llama-2-70b"}}}});
  values.apply({LayerKind::Set, "--set stage"}, {{"stage", 3}});
  ValuesHookResult result = host().run_values_hooks(values, context);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].pointer, "/auto_fit");
  const std::string& message = result.findings[0].message;
  EXPECT_EQ(message.substr(message.size() - 18), " (pinned: stage=3)") << message;
}

TEST(AutoFitHookTest, WithoutAutoFitOrWithANullOneTheHookChangesNothing) {
  LayeredValues turned_off = small_tier_member(Json::object());
  turned_off.apply({LayerKind::Set, "--set auto_fit=null"}, {{"auto_fit", nullptr}});
  LayeredValues absent;
  absent.apply({LayerKind::Tier, "presets/tiers/small.json"}, {{"gpus_per_node", 1}});
  for (LayeredValues* values : {&turned_off, &absent}) {
    const std::size_t layers = values->layers().size();
    ValuesHookResult result = host().run_values_hooks(*values, context);
    EXPECT_EQ(values->layers().size(), layers);
    EXPECT_TRUE(result.manifest.empty());
    EXPECT_TRUE(result.findings.empty());
  }
}

TEST(AutoFitHookTest, ANotFittingModelIsAFindingThatChangesNoValues) {
  LayeredValues values = small_tier_member({{"auto_fit", {{"model", "llama-2-70b"}}}});
  const Json before = values.merged();
  ValuesHookResult result = host().run_values_hooks(values, context);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].plugin, "memory");
  EXPECT_EQ(result.findings[0].pointer, "/auto_fit");
  EXPECT_EQ(
      result.findings[0].message.rfind("tier small: llama-2-70b does not fit even at ZeRO-3", 0),
      0u)
      << result.findings[0].message;
  EXPECT_EQ(values.merged(), before);
  EXPECT_TRUE(result.manifest.empty());
}

// A context calibrated on the cluster reaches auto-fit: the manifest records the one used,
// and one that leaves a 24 GiB GPU no room makes every rung fail.
TEST(AutoFitHookTest, ACalibratedCudaContextIsUsedAndRecorded) {
  auto run = [](const Json& cuda_context) {
    LayeredValues values = small_tier_member(Json::object());
    Json auto_fit = {{"model", "llama-2-7b"}, {"activation_checkpointing", "full"}};
    if (!cuda_context.is_null()) auto_fit["cuda_context_gib"] = cuda_context;
    values.apply({LayerKind::Set, "--set auto_fit"}, {{"auto_fit", auto_fit}});
    return host().run_values_hooks(values, context);
  };
  ValuesHookResult by_default = run(nullptr);
  ASSERT_TRUE(by_default.findings.empty());
  EXPECT_EQ(by_default.manifest.at("memory").at("auto_fit")["cuda_context_gib"], 0.8);
  ValuesHookResult calibrated = run(1.5);
  ASSERT_TRUE(calibrated.findings.empty());
  EXPECT_EQ(calibrated.manifest.at("memory").at("auto_fit")["cuda_context_gib"], 1.5);
  ValuesHookResult no_room = run(23.9);
  ASSERT_EQ(no_room.findings.size(), 1u);
  EXPECT_NE(no_room.findings[0].message.find("does not fit"), std::string::npos)
      << no_room.findings[0].message;
  try {
    run(-1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("/auto_fit/cuda_context_gib: expected a number >= 0.0, got -1"),
        std::string::npos)
        << e.what();
  }
}

// The safety margin is a value like the tier's memory: from the tier or the family, 5% by
// default, used by the fit and recorded in the manifest.
TEST(AutoFitHookTest, TheSafetyMarginIsATierOrFamilyValueTheFitLeavesFree) {
  struct Case {
    const char* name;
    Json margin;  // null: not set
    LayerKind kind;
    double used;
    std::int64_t micro;
  };
  const Case cases[] = {
      {"the default", nullptr, LayerKind::Tier, 0.05, 1},
      {"a tier's", 0.1, LayerKind::Tier, 0.1, 1},
      // Without a margin the small tier's fit runs at 99% of the card (23.75 of 24 GiB).
      {"none, from the family", 0, LayerKind::Family, 0.0, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    LayeredValues values = small_tier_member(Json::object());
    if (!c.margin.is_null())
      values.apply({c.kind, "margin.json"}, {{"gpu_memory_margin", c.margin}});
    ValuesHookResult result = host().run_values_hooks(values, context);
    ASSERT_TRUE(result.findings.empty());
    const Json& note = result.manifest.at("memory").at("auto_fit");
    EXPECT_EQ(note["gpu_memory_margin"], c.used);
    EXPECT_EQ(note["micro_batch_size"], c.micro);
    const std::int64_t capacity = 24LL << 30;
    const auto usable = static_cast<std::int64_t>(std::llround(capacity * (1 - c.used)));
    EXPECT_EQ(note["estimate"]["gpu_usable_bytes"], usable);
    EXPECT_LE(note["estimate"]["gpu_bytes"].get<std::int64_t>(), usable);
    const Json& record = result.manifest.at("memory").at("estimate");
    EXPECT_EQ(record["inputs"]["gpu_memory_margin"], c.used);
    EXPECT_EQ(record["capacity"]["gpu_usable_bytes"], usable);
  }
  for (const Json& bad : {Json(-0.1), Json(1), Json("5%")}) {
    SCOPED_TRACE(bad.dump());
    LayeredValues values = small_tier_member(Json::object());
    values.apply({LayerKind::Set, "--set gpu_memory_margin"}, {{"gpu_memory_margin", bad}});
    try {
      host().run_values_hooks(values, context);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "values hook failed: family fam, tier small: /gpu_memory_margin: expected a "
                    "fraction from 0 to below 1 (0.05 leaves 5% of each GPU free), got " +
                    bad.dump() + " (set by --set gpu_memory_margin)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(AutoFitHookTest, MissingTierFactsAreBadInput) {
  LayeredValues values = small_tier_member(Json::object());
  values.apply({LayerKind::Set, "--set gpu_memory_gib=null"}, {{"gpu_memory_gib", nullptr}});
  try {
    host().run_values_hooks(values, context);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "values hook failed: family fam, tier small: /gpu_memory_gib: auto-fit needs the "
                  "GPU memory (gpu_memory_gib, per GPU), found nothing (set by --set "
                  "gpu_memory_gib=null)"),
              std::string::npos)
        << e.what();
  }
}

// A misspelt auto_fit key is refused at its pointer with the host's did-you-mean rule.
TEST(AutoFitHookTest, AMisspeltKeyIsRefusedWithADidYouMean) {
  const struct {
    const char* key;
    const char* message;
  } cases[] = {
      {"seqlen", "; did you mean 'seq_len'?"},
      {"max_micro_batch", "; did you mean 'max_micro_batch_size'?"},
      {"colour", ")"},  // nothing close: no guess
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key);
    LayeredValues values = small_tier_member(Json::object());
    values.apply({LayerKind::Set, std::string("--set auto_fit.") + c.key + "=4096"},
                 {{"auto_fit", {{c.key, 4096}}}});
    try {
      host().run_values_hooks(values, context);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      const std::string head = std::string("/auto_fit/") + c.key + ": unknown key '" + c.key +
                               "' (expected model, seq_len, ";
      EXPECT_NE(what.find(head), std::string::npos) << what;
      EXPECT_NE(what.find(std::string(c.message) + " (set by --set auto_fit."), std::string::npos)
          << what;
    }
  }
}

// A GPU count past 64 bits is refused at /nodes, where the tier's layer set it (issue 22).
TEST(AutoFitHookTest, AGpuCountPast64BitsIsBadInputAtNodes) {
  LayeredValues values = small_tier_member(Json::object());
  values.apply({LayerKind::Set, "--set gpus_per_node=4611686018427387904"},
               {{"gpus_per_node", 4611686018427387904LL}});
  values.apply({LayerKind::Set, "--set nodes=2"}, {{"nodes", 2}});
  try {
    host().run_values_hooks(values, context);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "values hook failed: family fam, tier small: /nodes: gpus_per_node x nodes = "
                  "4611686018427387904 x 2 is beyond 64-bit integers (9223372036854775807) (set "
                  "by --set nodes=2)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace zf
