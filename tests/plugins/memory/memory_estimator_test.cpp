// SPDX-License-Identifier: MIT
// The memory plugin's estimator through its real ABI (memory.so loaded by a PluginHost):
// DeepSpeed's own numbers over a grid, the ZeRO paper's Table 1, activations, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

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
  const Case cases[] = {{"gpt2", 124439808},          {"gpt2-xl", 1557611200},
                        {"llama-2-7b", 6738415616},   {"llama-2-13b", 13015864320},
                        {"llama-2-70b", 68976648192}, {"llama-3-8b", 8030261248},
                        {"llama-3-70b", 70553706496}, {"t5-3b", 2851598336},
                        {"vit-base-16", 86567656}};
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

TEST(MemoryEstimatorTest, WhatDoesNotFitNamesTheSmallestChangeThatDoes) {
  struct Case {
    std::vector<std::string> args;
    std::string suggestion;
  };
  const Case cases[] = {
      // A smaller micro batch with the same options.
      {{"--model", "gpt2", "--stage", "0", "--micro-batch-size", "64", "--gpu-memory-gib", "23.98"},
       "suggestion: micro batch 17 fits with these options (GPU 23.34 GiB)\n"},
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
