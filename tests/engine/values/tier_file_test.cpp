// SPDX-License-Identifier: MIT
// load_tier_file (engine/src/values/tier_file.cpp): the step-time model's hardware facts must be
// positive rates wherever a tier is read; valid ones pass through unchanged.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {
namespace {

TEST(TierFileTest, RefusesHardwareRatesThatAreNotPositive) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"gpu_tflops": 0})",
       "/gpu_tflops: error: a tier's gpu_tflops must be a positive number of TFLOPS, got 0"},
      {R"({"intra_node_gbs": -150})",
       "/intra_node_gbs: error: a tier's intra_node_gbs must be a positive number of GB/s, got "
       "-150"},
      {R"({"inter_node_gbs": "200"})",
       "/inter_node_gbs: error: a tier's inter_node_gbs must be a positive number of GB/s, got "
       "\"200\""},
      {R"({"pcie_gbs": true})",
       "/pcie_gbs: error: a tier's pcie_gbs must be a positive number of GB/s, got true"},
      {R"({"nvme_gbs": null})",
       "/nvme_gbs: error: a tier's nvme_gbs must be a positive number of GB/s, got null"},
  };
  test::TempDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const auto path = dir.write("tiers/bad.json", c.text);
    try {
      load_tier_file(path);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path.string() + ": " + c.expected);
    }
  }
}

TEST(TierFileTest, KeepsValidHardwareFacts) {
  test::TempDir dir;
  const auto path = dir.write(
      "tiers/dgx.json",
      R"({"gpu": "A100-SXM4-80GB", "gpu_tflops": 312, "intra_node_gbs": 300, "inter_node_gbs": 200, "pcie_gbs": 32, "nvme_gbs": 25.5})");
  const auto tier = load_tier_file(path);
  EXPECT_EQ(tier.at("gpu_tflops"), 312);
  EXPECT_EQ(tier.at("nvme_gbs"), 25.5);
}

}  // namespace
}  // namespace zf
