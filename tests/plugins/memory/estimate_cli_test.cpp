// SPDX-License-Identifier: MIT
// `zeroforge estimate` end to end: the CLI loads the bundled memory plugin and prints its
// table, JSON and --all-stages; bad input exits 2 with the plugin's message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

using test::run_cli;

TEST(EstimateCliTest, PrintsTableWithVerdict) {
  auto r = run_cli({"estimate", "--model", "llama-2-7b", "--stage", "3", "--gpus-per-node", "8",
                    "--gpu-memory-gib", "80", "--activation-checkpointing", "full"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model: llama-2-7b 6.74B params"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU model states (ZeRO paper)"), std::string::npos);
  EXPECT_NE(r.out.find("DeepSpeed estimator GPU"), std::string::npos);
  EXPECT_NE(r.out.find("verdict: GPU fits"), std::string::npos);
}

TEST(EstimateCliTest, JsonHasTheContractKeys) {
  auto r = run_cli({"estimate", "--params", "7e9", "--stage", "3", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* pointer : {"/model_states/gpu_bytes", "/model_states/cpu_bytes",
                              "/activations/gpu_bytes", "/total/gpu_bytes", "/total/cpu_bytes",
                              "/fits", "/deepspeed/gpu_bytes", "/deepspeed/cpu_bytes"}) {
    EXPECT_TRUE(j.contains(nlohmann::json::json_pointer(pointer))) << pointer;
  }
  EXPECT_EQ(j["model_states"]["gpu_bytes"], 16 * 7000000000LL);
}

TEST(EstimateCliTest, AllStagesListsEveryOption) {
  auto r = run_cli({"estimate", "--model", "gpt2", "--all-stages"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row : {"ZeRO-0 ", "ZeRO-1, offload_optimizer=cpu",
                          "ZeRO-3, offload_optimizer=cpu, offload_param=cpu"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row;
  }
}

TEST(EstimateCliTest, DoesNotFitExitsOne) {
  auto r =
      run_cli({"estimate", "--model", "llama-2-70b", "--stage", "0", "--gpu-memory-gib", "80"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("verdict: GPU does not fit"), std::string::npos) << r.out;
}

TEST(EstimateCliTest, BadInputExitsTwo) {
  auto r = run_cli({"estimate", "--model", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model preset 'nope'"), std::string::npos) << r.err;
}

// --model is read with the host's reader: /dev/zero is named a device instead of growing until
// bad_alloc, and a FIFO no one writes to is named a FIFO instead of hanging (or "malformed
// JSON").
TEST(EstimateCliTest, TheModelFileIsReadWithinTheInputLimit) {
  auto zero = run_cli({"estimate", "--model", "/dev/zero"}, {}, {"ZEROFORGE_MAX_INPUT_MIB=1"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err,
            "zeroforge estimate: error: model preset: cannot read '/dev/zero': is a character "
            "device (such as /dev/zero or a terminal), not a file [usage.invalid]\n"
            "Run 'zeroforge estimate --help' for usage.\n");

  test::TempDir dir;
  const auto fifo = dir.path() / "models-shared-by-the-team" / "a-named-pipe.json";
  std::filesystem::create_directories(fifo.parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = run_cli({"estimate", "--model", fifo.string()});
  EXPECT_EQ(pipe.exit_code, 2);
  EXPECT_EQ(pipe.err, "zeroforge estimate: error: model preset: cannot read '" + fifo.string() +
                          "': is a FIFO (a named pipe) and nothing was written to it; give a "
                          "file, or write to the pipe while zeroforge reads it [usage.invalid]\n"
                          "Run 'zeroforge estimate --help' for usage.\n");
}

// A missing or wrong argument is the user's to fix: the message reads as the built-in
// commands' do, without the plugin's file path or "command 'estimate' failed".
TEST(EstimateCliTest, ArgumentErrorsReadAsUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"estimate"},
       "no model: give --model NAME, --params N, or --layers/--hidden/--heads/--vocab/--seq-len"},
      {{"estimate", "--params", "1e9", "--bogus"}, "unknown option '--bogus'"},
      {{"estimate", "--params", "1e9", "--stage", "5"}, "--stage: expected 0, 1, 2 or 3, got '5'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "zeroforge estimate: error: " + c.message +
                         " [usage.invalid]\nRun 'zeroforge estimate --help' for usage.\n");
    EXPECT_EQ(r.out, "");
  }
}

// The step time (docs/estimator.md, "Step time"): in the JSON record, also when the config does
// not fit, and on its own line of the text output.
TEST(EstimateCliTest, JsonCarriesTheStepAlsoWhenItDoesNotFit) {
  auto r = run_cli({"estimate", "--model", "llama-2-70b", "--stage", "0", "--gpu-memory-gib", "80",
                    "--gradient-accumulation-steps", "8", "--format", "json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fits"], false);
  EXPECT_EQ(j["inputs"]["gradient_accumulation_steps"], 8);
  const auto& step = j.at("step");
  double sum = 0;
  for (const char* part : {"compute", "communication", "offload", "optimizer"}) {
    ASSERT_TRUE(step["parts"][part].is_number()) << part;
    sum += step["parts"][part].get<double>();
  }
  // Seconds print to the microsecond, rates to three decimals.
  const double seconds = step["seconds"].get<double>();
  EXPECT_NEAR(seconds, sum, 2e-6);
  EXPECT_EQ(seconds, std::round(seconds * 1e6) / 1e6);
  EXPECT_GT(step["tokens_per_second"].get<double>(), 0);
  // One GPU, 8 micro batches of one 4096-token sequence.
  EXPECT_NEAR(step["tokens_per_second"].get<double>(), 8 * 4096 / seconds, 0.01);
  EXPECT_NEAR(step["samples_per_second"].get<double>(), 8 / seconds, 0.001);
  EXPECT_EQ(step["hardware"]["gpu"], "H100-SXM5-80GB");
  EXPECT_EQ(step["parts"]["communication"], 0.0) << "one GPU";

  auto text = run_cli({"estimate", "--model", "gpt2", "--gpu", "A100-SXM4-40GB"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\nstep: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TFLOPS per GPU on A100-SXM4-40GB (assumed: gpu_tflops,"),
            std::string::npos)
      << text.out;
}

TEST(EstimateCliTest, WithoutAShapeThereIsNoStep) {
  auto j = run_cli({"estimate", "--params", "7e9", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_TRUE(nlohmann::json::parse(j.out).at("step").is_null());
  auto text = run_cli({"estimate", "--params", "7e9"});
  EXPECT_NE(text.out.find("step: none (the step time needs a model shape, not only --params)"),
            std::string::npos)
      << text.out;
}

TEST(EstimateCliTest, TheTiersHardwareIsUsedAndOptionsWinOverIt) {
  test::TempDir dir;
  const auto tier = dir.write("tiers/dgx-a100.json",
                              R"({"gpus_per_node": 8, "nodes": 2, "gpu": "A100-SXM4-80GB",
                                  "inter_node_gbs": 100, "pcie_gbs": 24, "cpu_cores": 256,
                                  "nvme_gbs": 12.5})");
  auto r = run_cli({"estimate", "--model", "gpt2-xl", "--tier", tier.string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto hw = nlohmann::json::parse(r.out)["step"]["hardware"];
  EXPECT_EQ(hw["gpu"], "A100-SXM4-80GB");
  EXPECT_EQ(hw["gpu_tflops"], 312.0);  // the table's, for bf16
  EXPECT_EQ(hw["inter_node_gbs"], 100.0);
  EXPECT_EQ(hw["pcie_gbs"], 24.0);
  EXPECT_EQ(hw["cpu_cores"], 256);
  EXPECT_EQ(hw["nvme_gbs"], 12.5);
  EXPECT_EQ(hw["assumed"], nlohmann::json::parse(R"(["gpu_tflops", "intra_node_gbs"])"));
  // Options win; a slower network over the same GPUs communicates longer.
  auto slow = run_cli({"estimate", "--model", "gpt2-xl", "--tier", tier.string(), "--gpu",
                       "H100-SXM5-80GB", "--inter-node-gbs", "25", "--format", "json"});
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  auto s = nlohmann::json::parse(slow.out)["step"];
  EXPECT_EQ(s["hardware"]["gpu"], "H100-SXM5-80GB");
  EXPECT_EQ(s["hardware"]["inter_node_gbs"], 25.0);
  EXPECT_GT(s["communication_before_overlap"].get<double>(),
            nlohmann::json::parse(r.out)["step"]["communication_before_overlap"].get<double>());

  // The tier is a template's tier as well: the values contract knows its hardware keys.
  auto render = run_cli({"render", "deepspeed/config.json.j2", "--tier", tier.string()});
  EXPECT_EQ(render.exit_code, 0) << render.err;
}

TEST(EstimateCliTest, RefusesUnknownGpusAndBadRates) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string known =
      "(known: V100-SXM2-32GB, A100-SXM4-40GB, A100-SXM4-80GB, H100-SXM5-80GB, "
      "H200-SXM-141GB, L40S)";
  const std::vector<Case> cases = {
      {{"--gpu", "RTX-9090"}, "--gpu: unknown GPU 'RTX-9090' " + known},
      {{"--pcie-gbs", "0"}, "--pcie-gbs: must be positive, got 0"},
      {{"--gpu-tflops", "fast"}, "--gpu-tflops: expected a number, got 'fast'"},
      {{"--gradient-accumulation-steps", "0"},
       "--gradient-accumulation-steps: must be positive, got 0"},
      {{"--cpu-cores", "2.5"}, "--cpu-cores: expected an integer, got '2.5'"},
      {{"--step-constant", "comm_overlap"},
       "--step-constant: expected KEY=VALUE, got 'comm_overlap'"},
      {{"--step-constant", "matmul_efficiency_max=2"},
       "--step-constant: matmul_efficiency_max: expected a fraction up to 1, got 2.000000"},
      {{"--step-constant", "speed=1"},
       "--step-constant: unknown step constant 'speed' (known: matmul_efficiency_at_ref, "
       "matmul_work_exponent, matmul_efficiency_max, collective_efficiency, comm_overlap, "
       "cpu_adam_params_per_core_second)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    std::vector<std::string> args = {"estimate", "--model", "gpt2"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "zeroforge estimate: error: " + c.message +
                         " [usage.invalid]\nRun 'zeroforge estimate --help' for usage.\n");
  }
  test::TempDir dir;
  const auto tier = dir.write("tiers/odd.json", R"({"gpus_per_node": 4, "gpu": "RTX 4090"})");
  // A tier's GPU name the table lacks (a label for people before the step time read it) is a
  // warning: the memory verdict stands, the step time says what it assumed.
  auto r = run_cli({"estimate", "--model", "gpt2", "--tier", tier.string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(tier.string() + ": /gpu: GPU 'RTX 4090' is not in the step time's table"),
            std::string::npos)
      << r.err;
  const auto assumed = nlohmann::json::parse(r.out)["step"]["hardware"]["assumed"];
  EXPECT_NE(std::find(assumed.begin(), assumed.end(), "gpu"), assumed.end()) << assumed;
  const auto bad = dir.write("tiers/bad.json", R"({"gpus_per_node": 4, "inter_node_gbs": -1})");
  auto b = run_cli({"estimate", "--model", "gpt2", "--tier", bad.string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("/inter_node_gbs"), std::string::npos) << b.err;
}

TEST(EstimateCliTest, AllStagesPredictEveryRowsStep) {
  auto r = run_cli(
      {"estimate", "--model", "gpt2", "--gpus-per-node", "8", "--all-stages", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& row : rows) EXPECT_GT(row["step"]["seconds"].get<double>(), 0);
  auto text = run_cli({"estimate", "--model", "gpt2", "--all-stages"});
  EXPECT_NE(text.out.find("  fits    tokens/s\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nfastest: "), std::string::npos) << "no verdict: every row counts";
}

TEST(EstimateCliTest, AllStagesNamesTheFastestRowThatFits) {
  // Llama-2-7B on one 80 GB GPU: ZeRO-0 and ZeRO-1/2 without offload do not fit, and of those
  // that do the row with the most tokens/s is named.
  auto r =
      run_cli({"estimate", "--model", "llama-2-7b", "--gpu-memory-gib", "79.64", "--cpu-memory-gib",
               "1024", "--activation-checkpointing", "full", "--all-stages", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string best;
  double best_rate = 0;
  for (const auto& row : nlohmann::json::parse(r.out)) {
    if (row["fits"] != true) continue;
    const double rate = row["step"]["tokens_per_second"];
    if (rate > best_rate) {
      best_rate = rate;
      const auto& in = row["inputs"];
      best = "ZeRO-" + std::to_string(in["stage"].get<int>());
      if (in["stage"] >= 1)
        best += ", offload_optimizer=" + in["offload_optimizer"].get<std::string>();
      if (in["stage"] == 3) best += ", offload_param=" + in["offload_param"].get<std::string>();
    }
  }
  ASSERT_FALSE(best.empty());
  auto text =
      run_cli({"estimate", "--model", "llama-2-7b", "--gpu-memory-gib", "79.64", "--cpu-memory-gib",
               "1024", "--activation-checkpointing", "full", "--all-stages"});
  EXPECT_NE(text.out.find("\nfastest that fits: " + best + " ("), std::string::npos) << text.out;
}

}  // namespace
// --step-constant overrides a fitted constant for one run (how tests/data/step-time/fit.py
// searches them): halving the efficiency ceiling slows a run that sits at it.
TEST(EstimateCliTest, StepConstantOverridesAFittedConstant) {
  const std::vector<std::string> base = {"estimate", "--model",  "llama-2-7b",
                                         "--tier",   "large",    "--micro-batch-size",
                                         "8",        "--format", "json"};
  auto seconds = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_NE(r.exit_code, 2) << r.err;
    return nlohmann::json::parse(r.out)["step"]["parts"]["compute"].get<double>();
  };
  const double shipped = seconds({});
  const double halved = seconds({"--step-constant", "matmul_efficiency_max=0.295"});
  EXPECT_NEAR(halved / shipped, 2.0, 1e-3);
}

}  // namespace zf
