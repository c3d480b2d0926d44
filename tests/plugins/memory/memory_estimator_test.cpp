// SPDX-License-Identifier: MIT
// The memory plugin's estimator through its real ABI (memory.so loaded by a PluginHost):
// DeepSpeed's own numbers over a grid, the ZeRO paper's Table 1, activations, bad input.
#include <gtest/gtest.h>

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

std::string estimate_error(const std::vector<std::string>& args) {
  try {
    host().run_command("estimate", args);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
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

TEST(MemoryEstimatorTest, ActivationsFollowKorthikanti) {
  // s = 2048, b = 2, h = 1024, a = 16, L = 24, v = 50000.
  const long long s = 2048, b = 2, h = 1024, a = 16, L = 24, v = 50000;
  const long long layer = 34 * s * b * h + 5 * a * s * s * b;
  const long long logits = 4 * s * b * h + 4 * s * b * v;
  struct Case {
    const char* mode;
    long long layers;
  };
  const Case cases[] = {
      {"none", L * layer}, {"selective", L * 34 * s * b * h}, {"full", L * 2 * s * b * h + layer}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mode);
    Json out = estimate_json({"--layers", "24", "--hidden", "1024", "--heads", "16", "--vocab",
                              "50000", "--seq-len", "2048", "--micro-batch-size", "2",
                              "--activation-checkpointing", c.mode});
    EXPECT_EQ(out["activations"]["layers_bytes"], c.layers);
    EXPECT_EQ(out["activations"]["logits_bytes"], logits);
    EXPECT_EQ(out["activations"]["gpu_bytes"], c.layers + logits);
    // Ψ = L(12h² + 13h) + Vh + sh, derived and said so.
    EXPECT_EQ(out["model"]["params"], L * (12 * h * h + 13 * h) + v * h + s * h);
    EXPECT_EQ(out["model"]["params_derived"], true);
  }
}

TEST(MemoryEstimatorTest, TotalAddsEveryTerm) {
  Json out = estimate_json({"--model", "llama-2-7b", "--stage", "3", "--gpus-per-node", "8",
                            "--activation-checkpointing", "full"});
  long long sum = 0;
  for (const char* key : {"model_states", "activations", "stage3_working_set", "comm_buffers",
                          "headroom", "cuda_context"}) {
    sum += out[key]["gpu_bytes"].get<long long>();
  }
  EXPECT_EQ(out["total"]["gpu_bytes"], sum);
  EXPECT_EQ(out["model_states"]["gpu_bytes"], 16 * ((6738415616LL + 7) / 8));
  EXPECT_EQ(out["stage3_working_set"]["gpu_bytes"], 2 * 1000000000LL + 2 * 50000000LL);
  EXPECT_EQ(out["model"]["name"], "llama-2-7b");
  EXPECT_TRUE(out["fits"].is_null());
}

TEST(MemoryEstimatorTest, EveryModelPresetLoads) {
  struct Case {
    const char* name;
    long long params;
  };
  const Case cases[] = {{"gpt2", 124439808},          {"gpt2-xl", 1557611200},
                        {"llama-2-7b", 6738415616},   {"llama-2-13b", 13015864320},
                        {"llama-2-70b", 68976648192}, {"llama-3-8b", 8030261248},
                        {"llama-3-70b", 70553706496}, {"t5-3b", 2851598336}};
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
       "t5-3b)"},
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
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Json(c.args).dump());
    std::string error = estimate_error(c.args);
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace zf
