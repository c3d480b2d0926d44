// SPDX-License-Identifier: MIT
// A tier file's keys (engine/src/family/tier_keys.cpp): the values contract's names and what
// the template reads pass; anything else is an error at its pointer with a did-you-mean.
#include <gtest/gtest.h>

#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> messages(const std::vector<Error>& errors) {
  std::vector<std::string> out;
  for (const auto& error : errors) out.push_back(error.what());
  return out;
}

TEST(TierKeysTest, TheContractsNamesAndWhatTheTemplateReadsAreKeys) {
  const Json tier = Json::parse(R"({"gpus_per_node": 8, "nodes": 2, "gpu_memory_gib": 79.15,
    "cpu_memory_gib": 1007.5, "nvme_path": "/nvme", "micro_batch_size": 2, "gpu": "A100",
    "offload_optimizer": "cpu", "zero": {"reduce_bucket_size": 5e8}, "launch": {"hosts": []},
    "slurm_partition": "a100"})");
  EXPECT_TRUE(check_tier_keys(tier, "tiers/a100x16.json", {"slurm_partition"}).empty());
}

TEST(TierKeysTest, AnUnknownKeyIsAnErrorWithADidYouMean) {
  const std::string file = "vision-team-training-configurations/tiers/a100x8.json";
  const Json tier = Json::parse(R"({"gpus_per_node": 8, "gpu_mem_gib": 79.15, "tier": "x",
    "slurm_partiton": "a100", "frobnicate": 1})");
  EXPECT_EQ(
      messages(check_tier_keys(tier, file, {"slurm_partition"})),
      (std::vector<std::string>{
          file + ": /gpu_mem_gib: error: unknown key 'gpu_mem_gib' in a tier; did you mean "
                 "'gpu_memory_gib'? (a tier holds the cluster facts and values of docs/tiers.md, "
                 "and values its template reads)",
          file + ": /tier: error: 'tier' is reserved: a tier is named after its file ('a100x8')",
          file + ": /slurm_partiton: error: unknown key 'slurm_partiton' in a tier; did you mean "
                 "'slurm_partition'? (a tier holds the cluster facts and values of "
                 "docs/tiers.md, and values its template reads)",
          file + ": /frobnicate: error: unknown key 'frobnicate' in a tier (a tier holds the "
                 "cluster facts and values of docs/tiers.md, and values its template reads)"}));
}

}  // namespace
}  // namespace zf
