// SPDX-License-Identifier: MIT
// The one world-size rule (engine/src/deepspeed/world_size.cpp): what the contract, the
// validator, the companions, the manifest and import each read from the same values.
#include "deepspeed/world_size.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace zf::deepspeed {
namespace {

struct WorldCase {
  std::string name;
  std::string values;  // JSON
  std::optional<std::int64_t> world;
};

class WorldSizeOfTest : public ::testing::TestWithParam<WorldCase> {};

TEST_P(WorldSizeOfTest, ReadsTheValuesAsDeepSpeedStartsRanks) {
  const WorldCase& c = GetParam();
  EXPECT_EQ(world_size_of(nlohmann::ordered_json::parse(c.values)), c.world) << c.values;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WorldSizeOfTest,
    ::testing::Values(
        WorldCase{"WorldSizeWins", R"({"world_size": 4, "gpus_per_node": 8, "nodes": 2})", 4},
        WorldCase{"GpusTimesNodes", R"({"gpus_per_node": 8, "nodes": 2})", 16},
        WorldCase{"AMissingNodesIsOneNode", R"({"gpus_per_node": 8})", 8},
        WorldCase{"AMissingGpusPerNodeIsOneGpu", R"({"nodes": 3})", 3},
        WorldCase{"NothingSaidIsUnknown", R"({"stage": 3})", std::nullopt},
        WorldCase{"AnIntegralFloatCounts", R"({"gpus_per_node": 8.0, "nodes": 2})", 16},
        WorldCase{"AFractionIsUnknown", R"({"gpus_per_node": 7.5, "nodes": 2})", std::nullopt},
        WorldCase{"ANonIntegerWorldFallsBackToTheGpus",
                  R"({"world_size": "auto", "gpus_per_node": 2, "nodes": 2})", 4},
        WorldCase{"AStringCountIsUnknown", R"({"gpus_per_node": "8", "nodes": 2})", std::nullopt},
        WorldCase{"PastSixtyFourBitsIsUnknown",
                  R"({"gpus_per_node": 4611686018427387904, "nodes": 2})", std::nullopt},
        WorldCase{"AnUnsignedBeyondInt64IsUnknown",
                  R"({"gpus_per_node": 18446744073709551615, "nodes": 1})", std::nullopt},
        WorldCase{"NotAnObjectIsUnknown", R"([8, 2])", std::nullopt}),
    [](const auto& info) { return info.param.name; });

TEST(GpuCountTest, IsTheCheckedProduct) {
  EXPECT_EQ(gpu_count(8, 4), 32);
  EXPECT_EQ(gpu_count(4611686018427387903LL, 2), 9223372036854775806LL);
  EXPECT_EQ(gpu_count(4611686018427387904LL, 2), std::nullopt);
}

}  // namespace
}  // namespace zf::deepspeed
