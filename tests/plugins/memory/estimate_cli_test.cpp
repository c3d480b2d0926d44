// SPDX-License-Identifier: MIT
// `zeroforge estimate` end to end: the CLI loads the bundled memory plugin and prints its
// table, JSON and --all-stages; bad input exits 2 with the plugin's message.
#include <gtest/gtest.h>
#include <sys/stat.h>

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
            "device (such as /dev/zero or a terminal), not a file\n"
            "Run 'zeroforge estimate --help' for usage.\n");

  test::TempDir dir;
  const auto fifo = dir.path() / "models-shared-by-the-team" / "a-named-pipe.json";
  std::filesystem::create_directories(fifo.parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = run_cli({"estimate", "--model", fifo.string()});
  EXPECT_EQ(pipe.exit_code, 2);
  EXPECT_EQ(pipe.err, "zeroforge estimate: error: model preset: cannot read '" + fifo.string() +
                          "': is a FIFO (a named pipe) and nothing was written to it; give a "
                          "file, or write to the pipe while zeroforge reads it\n"
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
                         "\nRun 'zeroforge estimate --help' for usage.\n");
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace zf
