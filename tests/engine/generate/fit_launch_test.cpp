// SPDX-License-Identifier: MIT
// fit_launch (engine/src/generate/fit_launch.cpp): each assumption of a fit as the Trainer
// argument or environment variable that carries it out, and the assumption the Trainer cannot
// carry out refused. The record's reader has its own suite (fit_assumptions_test.cpp).
#include "generate/fit_launch.hpp"

#include <gtest/gtest.h>

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

FitAssumptions record(const char* checkpointing, const char* loss, const char* attention,
                      int seq_len) {
  return {"memory", checkpointing, attention, loss, seq_len};
}

using Arguments = std::vector<std::pair<std::string, Json>>;
using Variables = std::vector<std::pair<std::string, std::string>>;

Variables variables(const FitLaunch& launch) {
  Variables out;
  for (const auto& v : launch.environment) out.emplace_back(v.name, v.value);
  return out;
}

TEST(FitLaunchTest, EachAssumptionBecomesTheArgumentOrVariableThatCarriesItOut) {
  struct Case {
    const char* checkpointing;
    const char* loss;
    const char* attention;
    int seq_len;
    Arguments arguments;
    Variables environment;
  };
  const Case cases[] = {
      {"full",
       "hf",
       "sdpa",
       4096,
       {{"gradient_checkpointing", true}, {"use_liger_kernel", false}},
       {{"ZEROFORGE_SEQ_LEN", "4096"}, {"ZEROFORGE_ATTN_IMPLEMENTATION", "sdpa"}}},
      // Without checkpointing the fit says nothing about it: the config's own section decides.
      {"none",
       "fused",
       "flash",
       2048,
       {{"use_liger_kernel", true}},
       {{"ZEROFORGE_SEQ_LEN", "2048"}, {"ZEROFORGE_ATTN_IMPLEMENTATION", "flash_attention_2"}}},
      {"full",
       "fused",
       "eager",
       131072,
       {{"gradient_checkpointing", true}, {"use_liger_kernel", true}},
       {{"ZEROFORGE_SEQ_LEN", "131072"}, {"ZEROFORGE_ATTN_IMPLEMENTATION", "eager"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.checkpointing) + " " + c.loss + " " + c.attention);
    FitLaunch launch = fit_launch(record(c.checkpointing, c.loss, c.attention, c.seq_len), true);
    EXPECT_TRUE(launch.problems.empty());
    EXPECT_EQ(launch.training_arguments, c.arguments);
    EXPECT_EQ(variables(launch), c.environment);
  }
}

TEST(FitLaunchTest, SelectiveCheckpointingIsRefusedWhereTheTrainersArgumentsAreWritten) {
  const FitAssumptions selective = record("selective", "hf", "sdpa", 4096);
  FitLaunch with_arguments = fit_launch(selective, true);
  ASSERT_EQ(with_arguments.problems.size(), 1u);
  EXPECT_EQ(with_arguments.problems[0].pointer, "/auto_fit/activation_checkpointing");
  EXPECT_EQ(with_arguments.problems[0].message,
            "auto-fit sized this config for selective activation checkpointing (only the "
            "attention core recomputed), which the Hugging Face Trainer cannot do: its "
            "gradient_checkpointing recomputes whole layers (full), and without it every "
            "layer's activations stay; choose full or none, or write only companions without "
            "training arguments (hostfile, deepspeed-env)");
  // A hostfile or environment file alone passes no training arguments: nothing to refuse.
  FitLaunch without = fit_launch(selective, false);
  EXPECT_TRUE(without.problems.empty());
  EXPECT_EQ(variables(without),
            (Variables{{"ZEROFORGE_SEQ_LEN", "4096"}, {"ZEROFORGE_ATTN_IMPLEMENTATION", "sdpa"}}));
}

}  // namespace
}  // namespace zf::pipeline
