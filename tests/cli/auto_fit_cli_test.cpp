// SPDX-License-Identifier: MIT
// Tier auto-fit end to end (`zeroforge generate` with the memory plugin): the choices per
// tier re-derived from the written configs and checked against `zeroforge estimate`, pinned
// values, the global batch kept or refused, impossible fits and bad `auto_fit` input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

class AutoFitCliTest : public ::testing::Test {
 protected:
  fs::path out() const { return dir.path() / "out"; }
  // A family of llama-2-7b with auto-fit over `tiers`, its values merged over the base.
  std::string family(const Json& values, const Json& extra = Json::object(),
                     const Json& tiers = Json::array({"small", "medium"})) const {
    Json f = {{"name", "fit"},
              {"template", "deepspeed/config.json.j2"},
              {"values",
               {{"global_batch_size", 512},
                {"auto_fit", {{"model", "llama-2-7b"}, {"activation_checkpointing", "full"}}}}},
              {"tiers", tiers},
              {"plugins", {"memory"}},
              {"output", "{{ tier }}/{{ variant or 'config' }}.json"}};
    f["values"].merge_patch(values);
    for (const auto& [key, value] : extra.items()) f[key] = value;
    return dir.write("fit.json", f.dump(2)).string();
  }
  Json manifest() const { return Json::parse(read_file(out() / "manifest.json")); }
  Json entry(const std::string& path) const {
    const Json all = manifest();
    for (const auto& e : all.at("configs")) {
      if (e.at("path") == path) return e;
    }
    ADD_FAILURE() << "no manifest entry " << path;
    return Json();
  }
  Json config(const std::string& path) const { return Json::parse(read_file(out() / path)); }
  TempDir dir;
};

std::string offload_device(const Json& config, const char* key) {
  const Json& zero = config.at("zero_optimization");
  return zero.contains(key) ? zero.at(key).at("device").get<std::string>() : "none";
}

// `zeroforge estimate` for what a config and its tier say; true when it fits.
bool estimate_fits(const Json& config, int gpus, int nodes, double gpu_gib, double cpu_gib,
                   long long micro) {
  const std::string stage = std::to_string(config["zero_optimization"]["stage"].get<int>());
  std::vector<std::string> args = {
      "estimate", "--model", "llama-2-7b", "--activation-checkpointing", "full", "--stage", stage};
  for (const char* key : {"offload_optimizer", "offload_param"}) {
    std::string flag = std::string("--") + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    args.insert(args.end(), {flag, offload_device(config, key)});
  }
  args.insert(args.end(), {"--gpus-per-node", std::to_string(gpus), "--nodes",
                           std::to_string(nodes), "--gpu-memory-gib", std::to_string(gpu_gib),
                           "--cpu-memory-gib", std::to_string(cpu_gib), "--micro-batch-size",
                           std::to_string(micro), "--format", "json"});
  auto r = run_cli(args);
  EXPECT_NE(r.exit_code, 2) << r.err;
  return Json::parse(r.out).at("fits").get<bool>();
}

TEST_F(AutoFitCliTest, SevenBillionGetsZero3WithCpuOffloadOnSmallAndNoOffloadOnMedium) {
  auto r = run_cli({"generate", "llama-2-7b-autofit", "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  struct Case {
    std::string tier;
    int world, gpus_per_node, nodes;
    double gpu_gib, cpu_gib;
  };
  for (const Case& c : {Case{"small", 1, 1, 1, 24, 128}, Case{"medium", 8, 8, 1, 80, 1024},
                        Case{"large", 64, 8, 8, 80, 1024}}) {
    SCOPED_TRACE(c.tier);
    const std::string path = c.tier + "/llama-2-7b.json";
    Json cfg = config(path);
    Json fit = entry(path).at("plugins").at("memory").at("auto_fit");
    const long long micro = cfg.at("train_micro_batch_size_per_gpu");
    const long long accumulation = cfg.at("gradient_accumulation_steps");
    EXPECT_EQ(cfg.at("train_batch_size"), 512) << "the family's global batch";
    EXPECT_EQ(micro * accumulation * c.world, 512);
    // The manifest records what the config says.
    EXPECT_EQ(fit.at("micro_batch_size"), micro);
    EXPECT_EQ(fit.at("gradient_accumulation"), accumulation);
    EXPECT_EQ(fit.at("world_size"), c.world);
    EXPECT_EQ(fit.at("stage"), cfg.at("zero_optimization").at("stage"));
    EXPECT_EQ(fit.at("offload_optimizer"), offload_device(cfg, "offload_optimizer"));
    EXPECT_EQ(fit.at("offload_param"), offload_device(cfg, "offload_param"));
    EXPECT_EQ(fit.at("fits"), true);
    EXPECT_LE(fit.at("estimate").at("gpu_bytes").get<long long>(),
              fit.at("estimate").at("gpu_capacity_bytes").get<long long>());
    // `zeroforge estimate` agrees: the largest fitting micro batch fits, the next does not.
    const long long largest = fit.at("largest_fitting_micro_batch_size");
    EXPECT_TRUE(estimate_fits(cfg, c.gpus_per_node, c.nodes, c.gpu_gib, c.cpu_gib, largest));
    if (fit.at("micro_batch_limited_by") == "memory") {
      EXPECT_EQ(largest, micro);
      EXPECT_FALSE(estimate_fits(cfg, c.gpus_per_node, c.nodes, c.gpu_gib, c.cpu_gib, largest + 1));
    }
  }
  Json small = config("small/llama-2-7b.json");
  EXPECT_EQ(small["zero_optimization"]["stage"], 3);
  EXPECT_EQ(offload_device(small, "offload_optimizer"), "cpu");
  EXPECT_EQ(offload_device(small, "offload_param"), "none");
  Json small_fit = entry("small/llama-2-7b.json")["plugins"]["memory"]["auto_fit"];
  EXPECT_EQ(small_fit["micro_batch_limited_by"], "memory");
  // Escalation in order: every stage without offload was tried first.
  Json escalated = small_fit.at("escalated");
  ASSERT_EQ(escalated.size(), 3u) << escalated.dump();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(escalated[i]["stage"], i + 1);
    EXPECT_EQ(escalated[i]["offload_optimizer"], "none");
    EXPECT_EQ(escalated[i]["reason"].get<std::string>().rfind("GPU needs", 0), 0u);
  }
  Json medium = config("medium/llama-2-7b.json");
  EXPECT_EQ(offload_device(medium, "offload_optimizer"), "none");
  EXPECT_EQ(offload_device(medium, "offload_param"), "none");
  EXPECT_TRUE(
      entry("medium/llama-2-7b.json")["plugins"]["memory"]["auto_fit"]["escalated"].empty());
}

// A fit never runs at the card's last byte: the small tier's micro batch 2 needs 23.75 of
// 23.98 GiB (99%); with the default 5% safety margin it gets micro batch 1.
TEST_F(AutoFitCliTest, AFitLeavesTheSafetyMarginFree) {
  struct Case {
    std::vector<std::string> sets;
    double margin;
    long long micro;
  };
  const Case cases[] = {{{}, 0.05, 1}, {{"--set", "gpu_memory_margin=0"}, 0.0, 2}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.margin);
    std::vector<std::string> args = {"generate", "llama-2-7b-autofit", "-o", out().string()};
    args.insert(args.end(), c.sets.begin(), c.sets.end());
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json fit = entry("small/llama-2-7b.json")["plugins"]["memory"]["auto_fit"];
    EXPECT_EQ(fit["gpu_memory_margin"], c.margin);
    EXPECT_EQ(fit["micro_batch_size"], c.micro);
    const double capacity = fit["estimate"]["gpu_capacity_bytes"].get<double>();
    const double need = fit["estimate"]["gpu_bytes"].get<double>();
    EXPECT_LE(need, capacity * (1 - c.margin));
    EXPECT_EQ(
        fit["estimate"]["gpu_usable_bytes"],
        fit["estimate"]["gpu_capacity_bytes"].get<long long>() - std::llround(capacity * c.margin));
    if (c.margin == 0) {
      EXPECT_GT(need / capacity, 0.99) << "what the margin is for";
    }
  }
}

TEST_F(AutoFitCliTest, TwoRunsAreByteIdentical) {
  ASSERT_EQ(run_cli({"generate", "llama-2-7b-autofit", "-o", out().string()}).exit_code, 0);
  fs::path again = dir.path() / "again";
  ASSERT_EQ(run_cli({"generate", "llama-2-7b-autofit", "-o", again.string()}).exit_code, 0);
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(out())) {
    if (!e.is_regular_file()) continue;
    ++files;
    auto relative = e.path().lexically_relative(out());
    EXPECT_EQ(read_file(e.path()), read_file(again / relative)) << relative;
  }
  EXPECT_EQ(files, 4u);
  EXPECT_EQ(run_cli({"generate", "llama-2-7b-autofit", "-o", out().string(), "--check"}).exit_code,
            0);
}

TEST_F(AutoFitCliTest, PinnedValuesAreKeptAndRecorded) {
  // The variant axis pins the stage: on small the optimizer is offloaded at stage 2.
  std::string f = family(Json::object(), {{"axes", {{"stage", {2}}}}}, Json::array({"small"}));
  auto r = run_cli({"generate", f, "-o", out().string(), "--set", "gradient_accumulation=512"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json cfg = config("small/stage-2.json");
  EXPECT_EQ(cfg["zero_optimization"]["stage"], 2);
  EXPECT_EQ(offload_device(cfg, "offload_optimizer"), "cpu");
  EXPECT_EQ(cfg["gradient_accumulation_steps"], 512) << "--set pins the accumulation";
  EXPECT_EQ(cfg["train_micro_batch_size_per_gpu"], 1) << "so the micro batch follows";
  Json fit = entry("small/stage-2.json")["plugins"]["memory"]["auto_fit"];
  EXPECT_EQ(fit["pinned"], Json({"stage", "gradient_accumulation"}));
  EXPECT_EQ(fit["micro_batch_limited_by"], "pinned");
  EXPECT_EQ(fit["stage"], 2);
  EXPECT_EQ(fit["offload_optimizer"], "cpu");
  // The stages without offload were tried first; stage 3 was not (the stage is pinned).
  ASSERT_EQ(fit["escalated"].size(), 1u);
  EXPECT_EQ(fit["escalated"][0]["stage"], 2);
  EXPECT_EQ(fit["escalated"][0]["offload_optimizer"], "none");
}

TEST_F(AutoFitCliTest, PinnedChoiceThatCannotFitIsAnImpossibleFit) {
  std::string f = family(Json::object(), Json::object(), Json::array({"small"}));
  auto r = run_cli({"generate", f, "-o", out().string(), "--set", "offload_optimizer=none", "--set",
                    "offload_param=none"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // Placed at the pin that makes it impossible (where it was written: the --set).
  EXPECT_NE(r.err.find("--set offload_optimizer=none: /offload_optimizer: error [memory]: tier "
                       "small: llama-2-7b does not fit even at ZeRO-3, offload_optimizer=none, "
                       "offload_param=none with micro batch 1: GPU needs "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; the pinned offload_optimizer=none makes it impossible: without it, "
                       "ZeRO-3, offload_optimizer=cpu, offload_param=none fits with micro batch "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

// A team's policy goes in the family's values: auto-fit keeps it on every tier, searches only
// around it, and refuses a tier it makes impossible at the file and pointer that set it.
TEST_F(AutoFitCliTest, TheFamilysValuesAreConstraintsOfTheFit) {
  std::string f = family({{"stage", 3}, {"offload_optimizer", "cpu"}});
  auto r = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* tier : {"small", "medium"}) {
    SCOPED_TRACE(tier);
    Json cfg = config(std::string(tier) + "/config.json");
    EXPECT_EQ(cfg["zero_optimization"]["stage"], 3);
    EXPECT_EQ(offload_device(cfg, "offload_optimizer"), "cpu") << "not ZeRO-1 without offload";
    Json fit = entry(std::string(tier) + "/config.json")["plugins"]["memory"]["auto_fit"];
    EXPECT_EQ(fit["pinned"], Json({"stage", "offload_optimizer"}));
  }
  // explain: the values the fit chose are a layer of their own; the family's stay the family's.
  auto explained = run_cli({"explain", f, "--config", "medium/config.json"});
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_NE(explained.out.find("  stage = 3  "), std::string::npos) << explained.out;
  for (const char* line : {"stage = 3 ", "offload_optimizer = \"cpu\" "}) {
    const auto at = explained.out.find("  " + std::string(line));
    ASSERT_NE(at, std::string::npos) << line;
    const std::string row = explained.out.substr(at, explained.out.find('\n', at) - at);
    EXPECT_NE(row.find("family: " + f), std::string::npos) << row;
  }
  for (const char* name : {"offload_param", "micro_batch_size", "gradient_accumulation"}) {
    const auto at = explained.out.find("  " + std::string(name) + " = ");
    ASSERT_NE(at, std::string::npos) << name;
    const std::string row = explained.out.substr(at, explained.out.find('\n', at) - at);
    EXPECT_EQ(row.substr(row.size() - 24), "plugin memory (auto-fit)") << row;
  }

  // A policy the tier cannot hold: the pin is named where the family wrote it.
  std::string strict =
      family({{"stage", 2}, {"offload_optimizer", "none"}}, Json::object(), Json::array({"small"}));
  auto refused = run_cli({"generate", strict, "-o", out().string() + "-strict"});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find(strict +
                             ": /values/offload_optimizer: error [memory]: tier small: llama-2-7b "
                             "does not fit even at ZeRO-2, offload_optimizer=none, "
                             "offload_param=none with micro batch 1: "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("the pinned offload_optimizer=none makes it impossible: without it, "
                             "ZeRO-2, offload_optimizer=cpu, offload_param=none fits with micro "
                             "batch "),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(out().string() + "-strict"));
}

// explain --config takes the paths generate wrote (manifest.json's), also when the output
// pattern names values auto-fit chooses: each member is named after its fitted values.
TEST_F(AutoFitCliTest, ExplainFindsEachConfigByThePathInTheManifest) {
  std::string f = family(Json::object(),
                         {{"output", "{{ tier }}/zero{{ stage }}-mb{{ micro_batch_size }}.json"}});
  auto r = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> paths;
  const Json written = manifest();
  for (const Json& e : written.at("configs")) paths.push_back(e.at("path"));
  ASSERT_EQ(paths.size(), 2u);
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const Json cfg = config(path);
    auto explained = run_cli({"explain", f, "--config", path});
    ASSERT_EQ(explained.exit_code, 0) << explained.err;
    EXPECT_EQ(explained.out.rfind("config " + path + " of family fit (" + f + ")", 0), 0u)
        << explained.out;
    EXPECT_NE(explained.out.find("  stage = " + cfg["zero_optimization"]["stage"].dump() + " "),
              std::string::npos)
        << explained.out;
    EXPECT_NE(explained.out.find(
                  "  micro_batch_size = " + cfg["train_micro_batch_size_per_gpu"].dump() + " "),
              std::string::npos)
        << explained.out;
  }
  // A path that is not the family's lists the manifest's.
  auto unknown = run_cli({"explain", f, "--config", "small/zero2-mb1.json"});
  EXPECT_EQ(unknown.exit_code, 2);
  std::string listed;
  for (const std::string& path : paths) listed += "  " + path + "\n";
  EXPECT_EQ(unknown.err,
            "zeroforge: error: explain: no config 'small/zero2-mb1.json' in family "
            "'fit'; its configs: [explain.no-such-config]\n" +
                listed);
}

TEST_F(AutoFitCliTest, ModelThatFitsNowhereNamesTheTierAndWritesNothing) {
  std::string f = family({{"global_batch_size", 64}, {"auto_fit", {{"model", "llama-2-70b"}}}},
                         {{"axes", {{"precision", {"bf16", "fp16"}}}}});
  fs::create_directories(out());
  auto r = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  for (const char* precision : {"bf16", "fp16"}) {
    EXPECT_NE(r.err.find(std::string("fit.json: /values/auto_fit: error [memory]: tier small, "
                                     "variant precision=") +
                         precision +
                         ": llama-2-70b does not fit even at ZeRO-3, "
                         "offload_optimizer=cpu, offload_param=cpu with micro batch 1: GPU needs "),
              std::string::npos)
        << r.err;
  }
  EXPECT_NE(r.err.find("CPU needs"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("tier medium"), std::string::npos) << "medium fits: " << r.err;
  EXPECT_NE(r.err.find("family 'fit' not generated: 2 config(s) cannot be made as asked; nothing "
                       "was written"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(out()));
}

// `estimate --tier` suggests what auto-fit chooses for the same tier, NVMe included: on the
// medium tier Llama-2-70B fits only with the optimizer on NVMe.
TEST_F(AutoFitCliTest, EstimatesSuggestionForATierIsTheRungAutoFitChooses) {
  std::string f = family({{"global_batch_size", 64}, {"auto_fit", {{"model", "llama-2-70b"}}}},
                         Json::object(), Json::array({"medium"}));
  auto r = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json fit = entry("medium/config.json")["plugins"]["memory"]["auto_fit"];
  auto e = run_cli({"estimate", "--model", "llama-2-70b", "--activation-checkpointing", "full",
                    "--tier", "medium", "--format", "json"});
  ASSERT_EQ(e.exit_code, 1) << e.err;  // micro batch 1 at ZeRO-2 without offload does not fit
  const Json suggestion = Json::parse(e.out).at("suggestion");
  ASSERT_TRUE(suggestion.at("fits").get<bool>()) << suggestion.dump();
  for (const char* key : {"stage", "offload_optimizer", "offload_param"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(suggestion.at(key), fit.at(key));
  }
  EXPECT_EQ(fit.at("offload_optimizer"), "nvme") << "what the tier's NVMe is for";
}

TEST_F(AutoFitCliTest, GlobalBatchThatNoMicroBatchKeepsIsRefused) {
  std::string f = family({{"global_batch_size", 500}});
  auto r = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("values hook failed: family fit, tier medium: /global_batch_size: "
                       "global_batch_size=500 is not a multiple of world_size=8, so no micro "
                       "batch x accumulation keeps it; use 496 or 504, or leave this tier out "
                       "(set by family "),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(AutoFitCliTest, MicroBatchLimitedByDivisibilityIsRecorded) {
  // 8 x 80 GiB fits more than 4 sequences per GPU, but 512 / 8 = 64 is divisible by 4 and
  // not by the largest fitting micro batch.
  std::string f = family(Json::object(), Json::object(), Json::array({"medium"}));
  auto r = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json fit = entry("medium/config.json")["plugins"]["memory"]["auto_fit"];
  const long long micro = fit["micro_batch_size"],
                  largest = fit["largest_fitting_micro_batch_size"];
  EXPECT_EQ(64 % micro, 0);
  EXPECT_GT(largest, micro);
  EXPECT_NE(64 % largest, 0);
  EXPECT_EQ(fit["micro_batch_limited_by"], "divisibility");
}

TEST_F(AutoFitCliTest, BadAutoFitInputIsAnErrorWithItsPointer) {
  struct Case {
    const char* set;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"auto_fit.max_micro_batch_size=0",
       "/auto_fit/max_micro_batch_size: expected an integer > 0, got 0 (set by --set "
       "auto_fit.max_micro_batch_size=0)"},
      {"auto_fit.model=llama-9b", "/auto_fit/model: unknown model preset 'llama-9b' (known: "},
      {"auto_fit.modle=llama-2-7b", "/auto_fit/modle: unknown key 'modle' (expected model, "},
      {"auto_fit.stages=[4]", "/auto_fit/stages/0: expected stages 0-3, got 4"},
      {"auto_fit.headroom=-0.5", "/auto_fit/headroom: expected a number >= 0.0, got -0.5"},
      {"auto_fit.offload_param=cpu",
       "/auto_fit/offload_param: expected a non-empty list of none, cpu or nvme, got \"cpu\""},
      {"auto_fit.model={\"layers\": 32, \"hidden\": -1}",
       "/auto_fit/model/hidden: expected an integer >= 1, got -1"},
      {"auto_fit.model={\"layers\": 32, \"hidden\": 4096, \"heads\": 32, \"vocab\": 32000, "
       "\"seq_len\": 4096, \"mlp\": \"relu\"}",
       "/auto_fit/model/mlp: expected gelu or swiglu, got \"relu\""},
      {"auto_fit.model={\"layers\": 32, \"hidden\": 4096, \"heads\": 32, \"kv_heads\": 5, "
       "\"vocab\": 32000, \"seq_len\": 4096}",
       "/auto_fit/model: heads=32 is not a multiple of kv_heads=5"},
      {"auto_fit.attention=flash2",
       "/auto_fit/attention: expected eager, sdpa or flash, got "
       "\"flash2\""},
      {"auto_fit.loss=liger", "/auto_fit/loss: expected hf or fused, got \"liger\""},
      {"auto_fit=3", "/auto_fit: expected an object (or null to turn auto-fit off), got 3"},
  };
  std::string f = family(Json::object(), Json::object(), Json::array({"small"}));
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    auto r = run_cli({"generate", f, "-o", out().string(), "--set", c.set});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(std::string("error: plugin 'memory': values hook failed: family fit, "
                                     "tier small: ") +
                         c.expected),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out()));
  }
}

TEST_F(AutoFitCliTest, AMisspelledAutoFitIsReportedByTheValuesContract) {
  std::string f = family(Json::object(), Json::object(), Json::array({"small"}));
  auto r = run_cli({"generate", f, "-o", out().string(), "--set", "autofit={}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown value 'autofit'; did you mean 'auto_fit'?"), std::string::npos)
      << r.err;
}

TEST_F(AutoFitCliTest, RenderFitsOneTierToo) {
  auto r = run_cli({"render", "deepspeed/config.json.j2", "--tier", "small", "--plugin", "memory",
                    "--set",
                    "auto_fit={\"model\": \"llama-2-7b\", \"activation_checkpointing\": \"full\"}",
                    "--set", "global_batch_size=64"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json cfg = Json::parse(r.out);
  EXPECT_EQ(cfg["zero_optimization"]["stage"], 3);
  EXPECT_EQ(offload_device(cfg, "offload_optimizer"), "cpu");
  EXPECT_EQ(cfg["train_batch_size"], 64);
  auto impossible = run_cli({"render", "deepspeed/config.json.j2", "--tier", "small", "--plugin",
                             "memory", "--set", "auto_fit={\"model\": \"llama-2-70b\"}"});
  EXPECT_EQ(impossible.exit_code, 1);
  EXPECT_NE(impossible.err.find("deepspeed/config.json.j2: error [memory]: tier small: llama-2-70b "
                                "does not fit even at ZeRO-3"),
            std::string::npos)
      << impossible.err;
  EXPECT_EQ(impossible.out, "");
}

TEST_F(AutoFitCliTest, WithoutThePluginAutoFitIsIgnoredAndTheTierPolicyStays) {
  std::string f = family(Json::object(), {{"plugins", Json::array()}}, Json::array({"small"}));
  auto r = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json cfg = config("small/config.json");
  EXPECT_EQ(cfg["train_micro_batch_size_per_gpu"], 1);
  EXPECT_EQ(offload_device(cfg, "offload_optimizer"), "cpu");
  EXPECT_EQ(cfg["zero_optimization"]["stage"], 2) << "the template default";
  EXPECT_FALSE(entry("small/config.json").contains("plugins"));
}

TEST_F(AutoFitCliTest, NullAutoFitTurnsItOffForOneRun) {
  std::string f = family(Json::object(), Json::object(), Json::array({"small"}));
  auto r = run_cli({"generate", f, "-o", out().string(), "--set", "auto_fit=null"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(config("small/config.json")["zero_optimization"]["stage"], 2);
}

}  // namespace
}  // namespace zf
