// SPDX-License-Identifier: MIT
// The memory plugin's estimator through its real ABI (memory.so loaded by a PluginHost):
// DeepSpeed's own numbers over a grid, the ZeRO paper's Table 1, activations, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "support/cli_runner.hpp"
#include "support/memory_plugin.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

const PluginHost& host() { return test::memory_plugin_host(); }

Json estimate_json(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  CommandResult result = host().run_command("estimate", args);
  return Json::parse(result.output);
}

// The message of an estimate the arguments make impossible: the command's own (a usage
// error, exit code 2), or a failure of the plugin.
std::string estimate_error(const std::vector<std::string>& args) {
  try {
    CommandResult result = host().run_command("estimate", args);
    EXPECT_EQ(result.exit_code, result.message.empty() ? result.exit_code : 2);
    return result.message;
  } catch (const Error& error) {
    return error.what();
  }
}

// tests/plugins/memory/deepspeed_grid.json, written by deepspeed_oracle.py with Python's
// arithmetic: [params, largest, gpus_per_node, nodes, stage, cpu_offload, cpu_offload_params,
// zero_init, additional_buffer_factor, cpu_bytes, gpu_bytes].
TEST(MemoryEstimatorTest, MatchesDeepSpeedEstimatorsByteForByte) {
  std::ifstream in(std::string(ZF_SOURCE_DIR) + "/tests/plugins/memory/deepspeed_grid.json");
  ASSERT_TRUE(in) << "deepspeed_grid.json missing";
  Json grid = Json::parse(in);
  ASSERT_GT(grid.size(), 1000u);
  for (const Json& row : grid) {
    std::string args_text = row.dump();
    SCOPED_TRACE(args_text);
    const int stage = row[4].get<int>();
    const bool offload = row[5].get<bool>(), offload_params = row[6].get<bool>();
    std::vector<std::string> args = {"--params",
                                     std::to_string(row[0].get<std::int64_t>()),
                                     "--largest-layer-params",
                                     std::to_string(row[1].get<std::int64_t>()),
                                     "--gpus-per-node",
                                     std::to_string(row[2].get<int>()),
                                     "--nodes",
                                     std::to_string(row[3].get<int>()),
                                     "--stage",
                                     std::to_string(stage),
                                     "--offload-optimizer",
                                     offload ? "cpu" : "none",
                                     "--zero-init",
                                     row[7].get<bool>() ? "true" : "false",
                                     "--additional-buffer-factor",
                                     row[8].dump()};
    if (stage == 3) {
      args.push_back("--offload-param");
      args.push_back(offload_params ? "cpu" : "none");
    }
    Json out = estimate_json(args);
    EXPECT_EQ(out["deepspeed"]["cpu_bytes"], row[9]);
    EXPECT_EQ(out["deepspeed"]["gpu_bytes"], row[10]);
  }
}

TEST(MemoryEstimatorTest, DeepSpeedHasNoEstimatorForStagesZeroAndOne) {
  for (const char* stage : {"0", "1"}) {
    Json out = estimate_json({"--params", "1e9", "--stage", stage});
    EXPECT_TRUE(out["deepspeed"]["gpu_bytes"].is_null());
    EXPECT_TRUE(out["deepspeed"]["cpu_bytes"].is_null());
  }
}

// Rajbhandari et al. 2020, Table 1: per-device model-state memory in GB (1e9 bytes), K = 12,
// for Pos (ZeRO-1), Pos+g (ZeRO-2) and Pos+g+p (ZeRO-3), as printed (3 significant digits).
TEST(MemoryEstimatorTest, ReproducesZeroPaperTable1) {
  struct Case {
    double params;
    int dp;
    double zero1, zero2, zero3;
  };
  const Case cases[] = {
      {7.5e9, 1, 120, 120, 120},      {7.5e9, 4, 52.5, 41.25, 30},
      {7.5e9, 16, 35.6, 21.6, 7.5},   {7.5e9, 64, 31.4, 16.6, 1.88},
      {7.5e9, 256, 30.4, 15.4, 0.47}, {7.5e9, 1024, 30.1, 15.1, 0.12},
      {128e9, 1, 2048, 2048, 2048},   {128e9, 4, 896, 704, 512},
      {128e9, 16, 608, 368, 128},     {128e9, 64, 536, 284, 32},
      {128e9, 256, 518, 263, 8},      {128e9, 1024, 513, 257, 2},
      {1e12, 1, 16000, 16000, 16000}, {1e12, 4, 7000, 5500, 4000},
      {1e12, 16, 4750, 2875, 1000},   {1e12, 64, 4187, 2218, 250},
      {1e12, 256, 4046, 2054, 62.5},  {1e12, 1024, 4011, 2013, 15.6},
  };
  for (const Case& c : cases) {
    const double expected[] = {c.zero1, c.zero2, c.zero3};
    for (int stage = 1; stage <= 3; ++stage) {
      SCOPED_TRACE("params " + std::to_string(c.params) + ", N " + std::to_string(c.dp) +
                   ", stage " + std::to_string(stage));
      Json out =
          estimate_json({"--params", std::to_string(static_cast<long long>(c.params)), "--stage",
                         std::to_string(stage), "--gpus-per-node", std::to_string(c.dp)});
      double gb = out["model_states"]["gpu_bytes"].get<double>() / 1e9;
      // The paper rounds to 3 significant digits (and sometimes truncates).
      EXPECT_NEAR(gb, expected[stage - 1], expected[stage - 1] * 0.006 + 0.006);
    }
  }
  // ZeRO-0 is 16Ψ whatever N is.
  Json zero0 = estimate_json({"--params", "7500000000", "--stage", "0", "--gpus-per-node", "8"});
  EXPECT_EQ(zero0["model_states"]["gpu_bytes"], 120000000000LL);
}

TEST(MemoryEstimatorTest, ModelStatesPerStageAndOffload) {
  // Ψ = 8e9 on 8 GPUs: exact partitions of 1e9 elements.
  struct Case {
    std::vector<std::string> args;
    long long gpu, cpu, nvme;
  };
  const Case cases[] = {
      {{"--stage", "0"}, 128'000'000'000LL, 0, 0},
      {{"--stage", "1"}, 32'000'000'000LL + 12'000'000'000LL, 0, 0},
      {{"--stage", "2"}, 16'000'000'000LL + 14'000'000'000LL, 0, 0},
      {{"--stage", "3"}, 16'000'000'000LL, 0, 0},
      {{"--stage", "1", "--offload-optimizer", "cpu"}, 16'000'000'000LL, 128'000'000'000LL, 0},
      {{"--stage", "2", "--offload-optimizer", "cpu"}, 16'000'000'000LL, 128'000'000'000LL, 0},
      {{"--stage", "3", "--offload-optimizer", "cpu"}, 2'000'000'000LL, 128'000'000'000LL, 0},
      {{"--stage", "3", "--offload-optimizer", "cpu", "--offload-param", "cpu"},
       0,
       144'000'000'000LL,
       0},
      {{"--stage", "3", "--offload-optimizer", "nvme", "--offload-param", "cpu"},
       0,
       16'000'000'000LL,
       128'000'000'000LL},
      {{"--stage", "3", "--offload-param", "cpu"}, 14'000'000'000LL, 16'000'000'000LL, 0},
      {{"--stage", "3", "--precision", "fp32"}, 16'000'000'000LL, 0, 0},  // 4 + 4 + 8
      {{"--stage", "0", "--optimizer", "sgd"}, 96'000'000'000LL, 0, 0},   // 2 + 2 + 8
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    for (const char* a : {"--params", "8e9", "--gpus-per-node", "8"}) args.emplace_back(a);
    SCOPED_TRACE(Json(args).dump());
    Json out = estimate_json(args);
    EXPECT_EQ(out["model_states"]["gpu_bytes"], c.gpu);
    EXPECT_EQ(out["model_states"]["cpu_bytes"], c.cpu);
    EXPECT_EQ(out["model_states"]["nvme_bytes"], c.nvme);
  }
}

TEST(MemoryEstimatorTest, ActivationTermsPerBlockFamilyAttentionAndCheckpointing) {
  // A Llama-style shape: s = 2048, b = 2, h = 1024, a = 16, 4 kv heads (k = 256), i = 2816,
  // L = 24, v = 50000. Bytes per token, by count (docs/estimator.md, "Activations").
  const long long s = 2048, b = 2, h = 1024, a = 16, k = 256, i = 2816, L = 24, v = 50000;
  const long long T = s * b;
  const long long sdpa_layer = 16 * h + 4 * h + 4 * k + 4 * a + 8 * i;
  const long long eager_layer = 16 * h + 8 * h + 8 * i;
  const long long loss = (12 * v + 8 * h) * T;
  const long long grads = 4 * i + 4 * h;
  struct Case {
    const char* attention;
    const char* checkpointing;
    long long stored;
    long long backward;
  };
  const Case cases[] = {
      {"sdpa", "none", L * sdpa_layer * T, grads * T},
      {"sdpa", "full", L * 2 * h * T, (sdpa_layer + grads) * T},
      {"eager", "none", L * (eager_layer + 6 * a * s) * T + 2 * s * T, 9 * a * s * T},
      {"eager", "selective", L * eager_layer * T + 2 * s * T, (6 + 9) * a * s * T},
      {"eager", "full", L * 2 * h * T + 2 * s * T, (eager_layer + 15 * a * s) * T},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.attention) + " " + c.checkpointing);
    Json out = estimate_json({"--layers",
                              "24",
                              "--hidden",
                              "1024",
                              "--heads",
                              "16",
                              "--kv-heads",
                              "4",
                              "--intermediate-size",
                              "2816",
                              "--mlp",
                              "swiglu",
                              "--vocab",
                              "50000",
                              "--seq-len",
                              "2048",
                              "--micro-batch-size",
                              "2",
                              "--attention",
                              c.attention,
                              "--activation-checkpointing",
                              c.checkpointing});
    EXPECT_EQ(out["activations"]["layers_bytes"], c.stored);
    EXPECT_EQ(out["activations"]["logits_bytes"], loss);
    EXPECT_EQ(out["activations"]["backward_bytes"], c.backward);
    EXPECT_EQ(out["activations"]["gpu_bytes"], c.stored + std::max(loss, c.backward));
    // Llama's count: q/k/v/o, gate/up/down, two RMSNorms; final norm; untied embeddings.
    EXPECT_EQ(out["model"]["params"],
              L * (h * (h + 2 * k) + h * h + 3 * h * i + 2 * h) + h + 2 * v * h);
    EXPECT_EQ(out["model"]["params_derived"], true);
    EXPECT_EQ(out["model"]["tied_embeddings"], false);
  }
}

TEST(MemoryEstimatorTest, Gpt2StyleBlocksAndTheFusedLoss) {
  // GPT-2 style (the default): LayerNorms, fused q/k/v, op-by-op GELU, tied embedding,
  // learned positions = seq_len. h = 768, a = 12, i = 4h, v = 50257, s = 1024, b = 1.
  const long long h = 768, i = 3072, L = 12, v = 50257, s = 1024, a = 12;
  Json hf = estimate_json({"--layers", "12", "--hidden", "768", "--heads", "12", "--vocab", "50257",
                           "--seq-len", "1024"});
  EXPECT_EQ(hf["inputs"]["attention"], "sdpa");
  EXPECT_EQ(hf["inputs"]["loss"], "hf");
  EXPECT_EQ(hf["activations"]["layers_bytes"], L * (8 * h + 12 * h + 4 * a + 10 * i) * s);
  EXPECT_EQ(hf["activations"]["logits_bytes"], (12 * v + 4 * h) * s);
  EXPECT_EQ(hf["model"]["params"], L * (12 * h * h + 13 * h) + 2 * h + v * h + s * h);
  Json fused = estimate_json({"--layers", "12", "--hidden", "768", "--heads", "12", "--vocab",
                              "50257", "--seq-len", "1024", "--loss", "fused"});
  EXPECT_EQ(fused["activations"]["logits_bytes"], (4 * v + 4 * h) * s);
  Json untied =
      estimate_json({"--layers", "12", "--hidden", "768", "--heads", "12", "--vocab", "50257",
                     "--seq-len", "1024", "--tied-embeddings", "false", "--positions", "0"});
  EXPECT_EQ(untied["model"]["params"], L * (12 * h * h + 13 * h) + 2 * h + 2 * v * h);
}

TEST(MemoryEstimatorTest, TotalIsStatesBuffersContextAndThePeakPhase) {
  for (const char* stage : {"0", "1", "2", "3"}) {
    SCOPED_TRACE(stage);
    Json out = estimate_json({"--model", "llama-2-7b", "--stage", stage, "--gpus-per-node", "8",
                              "--activation-checkpointing", "full"});
    const long long forward_backward = out["activations"]["gpu_bytes"].get<long long>() +
                                       out["headroom"]["gpu_bytes"].get<long long>();
    const long long step = out["optimizer_step"]["gpu_bytes"].get<long long>() +
                           out["optimizer_step"]["unreused_activation_bytes"].get<long long>();
    long long sum = std::max(forward_backward, step);
    for (const char* key : {"model_states", "stage3_working_set", "comm_buffers", "cuda_context"})
      sum += out[key]["gpu_bytes"].get<long long>();
    EXPECT_EQ(out["total"]["gpu_bytes"], sum);
    EXPECT_EQ(out["optimizer_step"]["is_peak"], step > forward_backward);
    EXPECT_EQ(out["inputs"]["headroom"], 0.45);  // measured, full checkpointing
    EXPECT_EQ(out["cuda_context"]["gpu_bytes"], std::llround(0.8 * 1024 * 1024 * 1024));
  }
  // The step's fp32 gradient copy: all of Ψ at stage 0, the rank's partition at 1-3; plus
  // two fp32 temporaries of the largest tensor (its partition at stage 3).
  const long long psi = 6738415616LL, largest = 131072000LL, part = (psi + 7) / 8;
  const struct {
    const char* stage;
    long long bytes;
  } steps[] = {{"0", 4 * psi + 8 * largest},
               {"1", 4 * part + 8 * largest},
               {"3", 4 * part + 8 * (largest / 8)}};
  for (const auto& c : steps) {
    Json out = estimate_json({"--model", "llama-2-7b", "--stage", c.stage, "--gpus-per-node", "8"});
    EXPECT_EQ(out["optimizer_step"]["gpu_bytes"], c.bytes) << c.stage;
  }
  Json offloaded =
      estimate_json({"--model", "llama-2-7b", "--stage", "2", "--offload-optimizer", "cpu"});
  EXPECT_EQ(offloaded["optimizer_step"]["gpu_bytes"], 0);
  Json out = estimate_json({"--model", "llama-2-7b", "--stage", "3", "--gpus-per-node", "8"});
  EXPECT_EQ(out["model_states"]["gpu_bytes"], 16 * ((6738415616LL + 7) / 8));
  EXPECT_EQ(out["stage3_working_set"]["gpu_bytes"], 2 * 1000000000LL + 2 * 50000000LL);
  EXPECT_EQ(out["model"]["name"], "llama-2-7b");
  EXPECT_EQ(out["model"]["kv_heads"], 32);
  EXPECT_EQ(out["model"]["intermediate_size"], 11008);
  EXPECT_TRUE(out["fits"].is_null());
  // One GPU at stage 0 has nothing to all-reduce.
  Json single = estimate_json({"--model", "gpt2", "--stage", "0"});
  EXPECT_EQ(single["comm_buffers"]["gpu_bytes"], 0);
}

TEST(MemoryEstimatorTest, EveryModelPresetLoads) {
  struct Case {
    const char* name;
    long long params;
  };
  const Case cases[] = {
      {"gpt2", 124439808},          {"gpt2-xl", 1557611200},      {"llama-2-7b", 6738415616},
      {"llama-2-13b", 13015864320}, {"llama-2-70b", 68976648192}, {"llama-3-8b", 8030261248},
      {"llama-3-70b", 70553706496}, {"t5-3b", 2851598336},        {"vit-base-16", 86567656}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json out = estimate_json({"--model", c.name});
    EXPECT_EQ(out["model"]["params"], c.params);
    EXPECT_EQ(out["model"]["params_derived"], false);
  }
}

TEST(MemoryEstimatorTest, VerdictAgainstCapacity) {
  // 7B, ZeRO-3 with everything offloaded, fits a 24 GiB GPU but not 64 GiB of CPU memory.
  CommandResult small = host().run_command(
      "estimate", {"--model", "llama-2-7b", "--stage", "3", "--offload-optimizer", "cpu",
                   "--offload-param", "cpu", "--activation-checkpointing", "full",
                   "--gpu-memory-gib", "24", "--cpu-memory-gib", "64", "--format", "json"});
  Json out = Json::parse(small.output);
  EXPECT_EQ(small.exit_code, 1);
  EXPECT_EQ(out["gpu_fits"], true);
  EXPECT_EQ(out["cpu_fits"], false);
  EXPECT_EQ(out["fits"], false);
  // 8 x 80 GiB, ZeRO-2 without offload: fits.
  CommandResult medium =
      host().run_command("estimate", {"--model", "llama-2-7b", "--stage", "2", "--gpus-per-node",
                                      "8", "--activation-checkpointing", "full", "--gpu-memory-gib",
                                      "80", "--cpu-memory-gib", "1024"});
  EXPECT_EQ(medium.exit_code, 0);
  EXPECT_NE(medium.output.find("verdict: GPU fits: needs "), std::string::npos) << medium.output;
}

// The verdict leaves the safety margin free: what fits is judged against the card's memory
// less the margin, and the line says both.
TEST(MemoryEstimatorTest, TheVerdictLeavesTheSafetyMarginFree) {
  struct Case {
    std::vector<std::string> margin;
    int exit_code;
    std::string verdict;
  };
  const std::vector<std::string> base = {"--model",
                                         "llama-2-7b",
                                         "--stage",
                                         "3",
                                         "--offload-optimizer",
                                         "cpu",
                                         "--activation-checkpointing",
                                         "full",
                                         "--micro-batch-size",
                                         "2",
                                         "--gpu-memory-gib",
                                         "23.98"};
  const Case cases[] = {
      {{},
       1,
       "verdict: GPU does not fit: needs 23.75 GiB of 22.78 GiB usable (0.97 GiB short; 23.98 GiB "
       "less the 5% safety margin)\n"},
      {{"--gpu-memory-margin", "0.025"},
       1,
       "verdict: GPU does not fit: needs 23.75 GiB of 23.38 GiB usable (0.37 GiB short; 23.98 GiB "
       "less the 2.5% safety margin)\n"},
      {{"--gpu-memory-margin", "0"},
       0,
       "verdict: GPU fits: needs 23.75 GiB of 23.98 GiB (0.23 GiB free)\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(Json(c.margin).dump());
    std::vector<std::string> args = base;
    args.insert(args.end(), c.margin.begin(), c.margin.end());
    CommandResult result = host().run_command("estimate", args);
    EXPECT_EQ(result.exit_code, c.exit_code);
    EXPECT_NE(result.output.find("\n" + c.verdict), std::string::npos) << result.output;
  }
  std::vector<std::string> json = base;
  json.insert(json.end(), {"--format", "json"});
  Json out = Json::parse(host().run_command("estimate", json).output);
  EXPECT_EQ(out["inputs"]["gpu_memory_margin"], 0.05);
  const auto capacity = std::llround(23.98 * 1024.0 * 1024.0 * 1024.0);
  EXPECT_EQ(out["capacity"]["gpu_bytes"], capacity);
  EXPECT_EQ(out["capacity"]["gpu_usable_bytes"],
            capacity - std::llround(static_cast<double>(capacity) * 0.05));
  struct Bad {
    const char* margin;
    const char* message;
  };
  for (const Bad& bad :
       {Bad{"1", "--gpu-memory-margin: expected a fraction from 0 to below 1 (0.05 = 5%), got '1'"},
        Bad{"-0.01",
            "--gpu-memory-margin: expected a fraction from 0 to below 1 (0.05 = 5%), got '-0.01'"},
        Bad{"5%", "--gpu-memory-margin: expected a number, got '5%'"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--gpu-memory-margin", bad.margin});
    EXPECT_EQ(estimate_error(args), bad.message);
  }
}

TEST(MemoryEstimatorTest, WhatDoesNotFitNamesTheSmallestChangeThatDoes) {
  struct Case {
    std::vector<std::string> args;
    std::string suggestion;
  };
  const Case cases[] = {
      // A smaller micro batch with the same options.
      {{"--model", "gpt2", "--stage", "0", "--micro-batch-size", "64", "--gpu-memory-gib", "23.98"},
       "suggestion: micro batch 16 fits with these options (GPU 22.12 GiB)\n"},
      // Up the ladder: no micro batch fits at stage 1; stage 2 fits micro batch 3 (not 4).
      {{"--model", "llama-2-7b", "--stage", "1", "--gpus-per-node", "8",
        "--activation-checkpointing", "full", "--micro-batch-size", "4", "--gpu-memory-gib", "40"},
       "suggestion: ZeRO-2, offload_optimizer=none, offload_param=none with micro batch 3 fits "
       "(GPU 37.46 GiB)\n"},
      // Checkpointing is what it takes.
      {{"--model", "llama-2-7b", "--stage", "2", "--gpu-memory-gib", "24", "--cpu-memory-gib",
        "128"},
       "suggestion: with full activation checkpointing, ZeRO-3, offload_optimizer=cpu, "
       "offload_param=none fits (GPU 19.99 GiB, CPU 100.41 GiB per node)\n"},
      {{"--model", "llama-3-70b", "--stage", "3", "--gpu-memory-gib", "23.98", "--cpu-memory-gib",
        "128"},
       "suggestion: nothing fits: even ZeRO-3 with optimizer and parameters offloaded to the "
       "CPU, full activation checkpointing and micro batch 1 needs GPU 36.03 GiB, CPU 1182.75 "
       "GiB per node\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Json(c.args).dump());
    CommandResult result = host().run_command("estimate", c.args);
    EXPECT_EQ(result.exit_code, 1);
    ASSERT_GE(result.output.size(), c.suggestion.size());
    EXPECT_EQ(result.output.substr(result.output.size() - c.suggestion.size()), c.suggestion);
  }
  std::vector<std::string> args = {"--model",          "llama-2-7b", "--stage",  "2",
                                   "--gpu-memory-gib", "24",         "--format", "json"};
  Json out = Json::parse(host().run_command("estimate", args).output);
  EXPECT_EQ(out["suggestion"]["stage"], 3);
  EXPECT_EQ(out["suggestion"]["offload_optimizer"], "cpu");
  EXPECT_EQ(out["suggestion"]["activation_checkpointing"], "full");
  args[5] = "200";
  EXPECT_TRUE(Json::parse(host().run_command("estimate", args).output)["suggestion"].is_null());
}

Json shipped_tier(const std::string& name) {
  std::ifstream in(std::string(ZF_SOURCE_DIR) + "/presets/tiers/" + name + ".json");
  return Json::parse(in);
}

// The options a tier's cluster facts stand for (--gpus-per-node 8 ...); nvme_path left out.
std::vector<std::string> cluster_flags(const Json& tier) {
  std::vector<std::string> out;
  for (const char* key :
       {"gpus_per_node", "nodes", "gpu_memory_gib", "cpu_memory_gib", "cpu_cores"}) {
    if (!tier.contains(key)) continue;
    std::string flag = std::string("--") + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    out.insert(out.end(), {flag, tier.at(key).dump()});
  }
  return out;
}

// A family's tier is the natural input of an estimate: --tier reads its cluster facts (the
// same estimate as the options they stand for), and an option given as well wins.
TEST(MemoryEstimatorTest, ATierGivesTheClusterAndOptionsWinOverIt) {
  const std::vector<std::string> model = {"--model", "llama-2-7b", "--activation-checkpointing",
                                          "full"};
  for (const char* name : {"small", "medium", "large"}) {
    SCOPED_TRACE(name);
    const Json tier = shipped_tier(name);
    std::vector<std::string> by_tier = model, by_flags = model;
    by_tier.insert(by_tier.end(), {"--tier", name});
    const std::vector<std::string> flags = cluster_flags(tier);
    by_flags.insert(by_flags.end(), flags.begin(), flags.end());
    Json a = estimate_json(by_tier), b = estimate_json(by_flags);
    EXPECT_EQ(a["tier"]["name"], name);
    EXPECT_EQ(a["tier"]["file"], std::string(ZF_SOURCE_DIR) + "/presets/tiers/" + name + ".json");
    EXPECT_EQ(a["inputs"]["nvme_path"], tier.value("nvme_path", Json(nullptr)));
    EXPECT_FALSE(a["fits"].is_null()) << "a verdict from the tier's capacities";
    for (Json* j : {&a, &b}) {
      j->erase("tier");
      (*j)["inputs"].erase("nvme_path");
    }
    EXPECT_EQ(a, b);
  }
  // Options win over the tier's facts, before or after --tier.
  for (const auto& order : {std::vector<std::string>{"--tier", "medium", "--gpus-per-node", "2",
                                                     "--gpu-memory-gib", "40"},
                            std::vector<std::string>{"--gpus-per-node", "2", "--gpu-memory-gib",
                                                     "40", "--tier", "medium"}}) {
    std::vector<std::string> args = model;
    args.insert(args.end(), order.begin(), order.end());
    const Json j = estimate_json(args);
    EXPECT_EQ(j["inputs"]["gpus_per_node"], 2);
    EXPECT_EQ(j["inputs"]["nodes"], shipped_tier("medium")["nodes"]);
    EXPECT_EQ(j["capacity"]["gpu_bytes"], std::llround(40.0 * 1024 * 1024 * 1024));
    EXPECT_EQ(
        j["capacity"]["cpu_bytes"],
        std::llround(shipped_tier("medium")["cpu_memory_gib"].get<double>() * 1024 * 1024 * 1024));
  }
  // A team's own tier file: named after its stem, its margin and NVMe taken; the training
  // values it also holds (micro_batch_size) are the estimate's options, not the tier's.
  test::TempDir dir;
  const std::string file = dir.write("a-team-repository-with-a-long-name/cluster-tiers/h100x4.json",
                                     R"({"gpus_per_node": 4, "nodes": 2, "gpu_memory_gib": 79.64, )"
                                     R"("cpu_memory_gib": 512, "gpu_memory_margin": 0.1, )"
                                     R"("nvme_path": "/scratch/nvme", "micro_batch_size": 8})")
                               .string();
  std::vector<std::string> args = model;
  args.insert(args.end(), {"--tier", file});
  const Json j = estimate_json(args);
  EXPECT_EQ(j["tier"], Json({{"name", "h100x4"}, {"file", file}}));
  EXPECT_EQ(j["inputs"]["gpus_per_node"], 4);
  EXPECT_EQ(j["inputs"]["nodes"], 2);
  EXPECT_EQ(j["inputs"]["gpu_memory_margin"], 0.1);
  EXPECT_EQ(j["inputs"]["nvme_path"], "/scratch/nvme");
  EXPECT_EQ(j["inputs"]["micro_batch_size"], 1);
  args.pop_back();
  args.pop_back();
  args.insert(args.end(), {"--tier", file});
  CommandResult text = host().run_command("estimate", args);
  EXPECT_NE(text.output.find("\ntier: h100x4 (" + file + "; NVMe offload to /scratch/nvme)\n"),
            std::string::npos)
      << text.output;
}

TEST(MemoryEstimatorTest, ABadTierIsRefusedAtItsFileAndKey) {
  test::TempDir dir;
  const std::string folder = (dir.path() / "a-team-repository-with-a-long-name" / "tiers").string();
  // Found as every command finds a tier (the host's zf_host::find_tier): every directory searched.
  EXPECT_EQ(estimate_error({"--model", "gpt2", "--tier", "h100"}),
            "--tier: tier 'h100' not found on the tier search path (searched: ./tiers, " +
                std::string(ZF_SOURCE_DIR) +
                "/presets/tiers); put h100.json in ./tiers or a ZEROFORGE_TIER_PATH directory, or "
                "give its path ('zeroforge list tiers' shows the tiers found)");
  struct Case {
    const char* text;
    std::string message;  // after "FILE: "
  };
  const Case cases[] = {
      {R"({"gpu_memory_gib": 0})",
       "/gpu_memory_gib: expected a positive number of GiB (at most 1048576), got 0"},
      {R"({"cpu_memory_gib": 2e6})",
       "/cpu_memory_gib: expected a positive number of GiB (at most 1048576), got 2000000.0"},
      {R"({"gpu_memory_gib": "80"})",
       "/gpu_memory_gib: expected a positive number of GiB (at most 1048576), got \"80\""},
      {R"({"nodes": 1.5})", "/nodes: expected a positive integer, got 1.5"},
      {R"({"gpus_per_node": 0})", "/gpus_per_node: expected a positive integer, got 0"},
      {R"({"gpus_per_node": true})", "/gpus_per_node: expected a positive integer, got true"},
      {R"({"gpu_memory_margin": 1})",
       "/gpu_memory_margin: expected a fraction from 0 to below 1 (0.05 leaves 5% of each GPU "
       "free), got 1"},
      {R"({"nvme_path": 3})", "/nvme_path: expected a path, got 3"},
      {"[1]", "expected a JSON object (a tier), got array"},
      {"{\"nodes\": ", "malformed JSON at byte 11 (a tier is a JSON object)"},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string file = folder + "/bad-" + std::to_string(i++) + ".json";
    std::filesystem::create_directories(folder);
    std::ofstream(file) << c.text;
    EXPECT_EQ(estimate_error({"--model", "gpt2", "--tier", file}), file + ": " + c.message);
  }
  // A path is the file it names, as for every command (the host's find_tier), and never
  // looked up by name.
  const std::string missing = folder + "/h100x8.json";
  EXPECT_EQ(estimate_error({"--model", "gpt2", "--tier", missing}),
            "--tier: tier '" + missing + "' not found (no " + missing + ")");
  EXPECT_EQ(estimate_error({"--model", "gpt2", "--nvme-path", ""}),
            "--nvme-path: expected a path, got ''");
}

// The suggestion considers every offload the cluster holds, as auto-fit searches a tier: on
// the medium tier (an nvme_path) Llama-2-70B's Adam states (1,028 GiB per node with the
// optimizer offloaded) do not fit the 1 TiB of host memory, and only NVMe offload fits.
TEST(MemoryEstimatorTest, TheSuggestionConsidersEveryOffloadTheTierHolds) {
  const std::vector<std::string> model = {"--model", "llama-2-70b", "--activation-checkpointing",
                                          "full"};
  const Json medium = shipped_tier("medium");
  ASSERT_TRUE(medium.contains("nvme_path"));
  std::vector<std::string> by_tier = model, by_flags = model;
  by_tier.insert(by_tier.end(), {"--tier", "medium"});
  const std::vector<std::string> flags = cluster_flags(medium);
  by_flags.insert(by_flags.end(), flags.begin(), flags.end());
  std::vector<std::string> by_path = by_flags;
  by_path.insert(by_path.end(), {"--nvme-path", medium["nvme_path"].get<std::string>()});

  const Json suggested = estimate_json(by_tier)["suggestion"];
  ASSERT_TRUE(suggested["fits"].get<bool>()) << suggested.dump();
  EXPECT_EQ(suggested["stage"], 3);
  EXPECT_EQ(suggested["offload_optimizer"], "nvme");
  EXPECT_EQ(estimate_json(by_path)["suggestion"], suggested) << "--nvme-path is the tier's";
  // It fits, and no CPU offload does: the estimate at each rung says so.
  auto fits_at = [&](const std::string& optimizer, const std::string& param) {
    std::vector<std::string> args = by_tier;
    args.insert(args.end(),
                {"--stage", "3", "--offload-optimizer", optimizer, "--offload-param", param});
    return estimate_json(args)["fits"].get<bool>();
  };
  EXPECT_TRUE(fits_at("nvme", suggested["offload_param"].get<std::string>()));
  EXPECT_FALSE(fits_at("cpu", "none"));
  EXPECT_FALSE(fits_at("cpu", "cpu"));
  CommandResult text = host().run_command("estimate", by_tier);
  EXPECT_NE(text.output.find("\nsuggestion: ZeRO-3, offload_optimizer=nvme, offload_param=" +
                             suggested["offload_param"].get<std::string>() + " fits (GPU "),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find(" GiB, NVMe "), std::string::npos) << "the NVMe it takes";

  // Without an nvme_path, nothing fits.
  const Json without = estimate_json(by_flags)["suggestion"];
  EXPECT_FALSE(without["fits"].get<bool>());
  EXPECT_EQ(
      without["text"].get<std::string>().rfind(
          "nothing fits: even ZeRO-3 with optimizer and parameters offloaded to the CPU, ", 0),
      0u)
      << without.dump();

  // --all-stages lists the NVMe rows where there is NVMe, and one of them fits.
  by_tier.push_back("--all-stages");
  by_flags.push_back("--all-stages");
  EXPECT_EQ(estimate_json(by_tier).size(), estimate_json(by_flags).size() + 2);
  EXPECT_EQ(host().run_command("estimate", by_tier).exit_code, 0);
  EXPECT_EQ(host().run_command("estimate", by_flags).exit_code, 1);
}

TEST(MemoryEstimatorTest, AllStagesExitsOneWhenNoRowFits) {
  auto exit_code = [](const char* gpu_gib) {
    return host()
        .run_command("estimate", {"--model", "llama-3-70b", "--all-stages", "--gpu-memory-gib",
                                  gpu_gib, "--cpu-memory-gib", "128"})
        .exit_code;
  };
  EXPECT_EQ(exit_code("24"), 1);
  EXPECT_EQ(exit_code("10000"), 0);
  EXPECT_EQ(host().run_command("estimate", {"--model", "llama-3-70b", "--all-stages"}).exit_code,
            0);
}

TEST(MemoryEstimatorTest, RejectsBadInputWithExactMessages) {
  const std::string prefix = std::string(ZF_MEMORY_PLUGIN) + ": error: plugin 'memory': ";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"--params", "0"}, "--params: must be positive, got 0"},
      {{"--params", "-5"}, "--params: must be positive, got -5"},
      {{"--params", "1.5"}, "--params: expected an integer, got '1.5'"},
      {{"--model", "llama-9"},
       "unknown model preset 'llama-9' (known: gpt2, gpt2-xl, "
       "llama-2-13b, llama-2-70b, llama-2-7b, llama-3-70b, llama-3-8b, "
       "t5-3b, vit-base-16)"},
      {{},
       "no model: give --model NAME, --params N, or --layers/--hidden/--heads/--vocab/--seq-len"},
      {{"--layers", "2"},
       "a model shape needs all of --layers, --hidden, --heads, --vocab and --seq-len"},
      {{"--params", "1e9", "--stage", "4"}, "--stage: expected 0, 1, 2 or 3, got '4'"},
      {{"--params", "1e9", "--stage", "2", "--offload-param", "cpu"},
       "offload_param takes effect only at stage 3"},
      {{"--params", "1e9", "--stage", "0", "--offload-optimizer", "cpu"},
       "offload_optimizer takes effect only at stage 1, 2 or 3"},
      {{"--params", "1e9", "--offload-optimizer", "disk"},
       "--offload-optimizer: expected none, cpu or nvme, got 'disk'"},
      {{"--params", "1e9", "--zero-init", "yes"}, "--zero-init: expected true or false, got 'yes'"},
      {{"--params", "1e9", "--gpu-memory-gib", "0"},
       "gpu_memory_gib and cpu_memory_gib must be positive"},
      {{"--params", "1e9", "--bogus"}, "unknown option '--bogus'"},
      {{"--params"}, "--params needs a value"},
      {{"--params", "1e9", "--attention", "flash2"},
       "--attention: expected eager, sdpa or flash, got 'flash2'"},
      {{"--params", "1e9", "--loss", "liger"}, "--loss: expected hf or fused, got 'liger'"},
      {{"--params", "1e9", "--kv-heads", "8"},
       "--kv-heads, --intermediate-size, --mlp, --tied-embeddings and --positions describe a "
       "shape: give --model NAME or --layers/--hidden/--heads/--vocab/--seq-len too"},
      {{"--model", "llama-2-7b", "--kv-heads", "5"}, "heads=32 is not a multiple of kv_heads=5"},
      {{"--model", "llama-2-7b", "--mlp", "relu"}, "--mlp: expected gelu or swiglu, got 'relu'"},
      {{"--layers", "32", "--hidden", "4000", "--heads", "32", "--vocab", "32000", "--seq-len",
        "100000000"},
       "seq_len=100000000 is beyond any model this estimator describes (max 10000000)"},
      {{"--params", "9e15", "--stage", "0", "--gpus-per-node", "9e15", "--nodes", "9e15"},
       "gpus_per_node=9000000000000000 x nodes=9000000000000000 is beyond any cluster this "
       "estimator describes (at most 1000000 GPUs)"},
      {{"--layers", "100000", "--hidden", "100000", "--heads", "1", "--vocab", "10", "--seq-len",
        "100000"},
       "params=12000140001200000 is beyond any model this estimator describes (max 1e15)"},
      {{"--layers", "1000", "--hidden", "100000", "--heads", "1", "--vocab", "10", "--seq-len",
        "100000", "--micro-batch-size", "1000000"},
       "the activations of this shape and micro batch exceed 8 EiB; check the sizes"},
      // Every product near the 64-bit limit is checked, never wrapped (issue 22).
      {{"--layers", "10000000", "--hidden", "2000000", "--heads", "1", "--vocab", "10", "--seq-len",
        "10"},
       "the parameter count of layers=10000000 x 48000026000000 per layer is beyond 64-bit "
       "integers (9223372036854775807); check the sizes"},
      {{"--layers", "2", "--hidden", "64", "--heads", "1", "--vocab", "10", "--seq-len", "10",
        "--mlp", "gelu", "--positions", "9e15"},
       "positions=9000000000000000 is beyond any model this estimator describes (max "
       "10000000)"},
      {{"--params", "1e9", "--largest-layer-params", "9e15"},
       "largest_layer_params=9000000000000000 is beyond any model this estimator describes "
       "(max 1e15)"},
      {{"--params", "1e15", "--stage", "2", "--offload-optimizer", "cpu", "--gpus-per-node",
        "1000000"},
       "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes"},
      {{"--params", "1e15", "--stage", "0", "--gpus-per-node", "1000000"},
       "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes"},
      {{"--params", "1e9", "--cuda-context-gib", "1e30"},
       "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes"},
      {{"--params", "1e9", "--gpu-memory-gib", "1e30"},
       "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes"},
      {{"--model", "llama-2-7b", "--headroom", "1e300"},
       "the estimate exceeds 8 EiB (2^63 bytes) per GPU or node; check the sizes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Json(c.args).dump());
    std::string error = estimate_error(c.args);
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace zf
