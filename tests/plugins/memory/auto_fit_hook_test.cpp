// SPDX-License-Identifier: MIT
// The memory plugin's values hook (plugins/memory/auto_fit_hook.cpp) through its real ABI:
// which layers pin a value, what it applies and records, and findings that change nothing.
#include <gtest/gtest.h>

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

TEST(AutoFitHookTest, FamilyBaseAndTierPolicyAreFreeATiersOwnFamilyValuesArePinned) {
  LayeredValues values = small_tier_member({{"stage", 2}});
  ValuesHookResult result = host().run_values_hooks(values, context);
  ASSERT_TRUE(result.findings.empty());
  const Json& merged = values.merged();
  EXPECT_EQ(merged["stage"], 2);
  EXPECT_EQ(values.origin("/stage")->label, "fam.json /tiers/0/values") << "pinned: untouched";
  EXPECT_EQ(merged["offload_optimizer"], "cpu");
  EXPECT_EQ(values.origin("/offload_optimizer")->label, "plugin memory")
      << "chosen, not the tier's";
  EXPECT_EQ(values.origin("/micro_batch_size")->label, "plugin memory");
  EXPECT_EQ(merged["micro_batch_size"].get<int>() * merged["gradient_accumulation"].get<int>(),
            512);
  const Json& note = result.manifest.at("memory").at("auto_fit");
  EXPECT_EQ(note["pinned"], Json({"stage"}));
  EXPECT_EQ(note["stage"], 2);
  EXPECT_EQ(note["model"]["name"], "llama-2-7b");
  EXPECT_EQ(note["model"]["activation_checkpointing"], "full");
  EXPECT_EQ(note["estimate"]["gpu_capacity_bytes"], 24LL << 30);
  EXPECT_EQ(note["estimate"]["cpu_capacity_bytes"], 128LL << 30);
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
