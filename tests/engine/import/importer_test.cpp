// SPDX-License-Identifier: MIT
// zeroforge import in process (engine/src/import/importer.cpp): bad input refused before
// anything is judged, with the file and where; each input judged as validate judges it plus
// the import's notes; the batch keys solved against the tier; shared values in the family.
#include "import/importer.hpp"

#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf::importer {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// Long enough that no path fits a std::string's inline buffer (a dangling view would show).
const std::string kSub = "teams/pretraining/deepspeed-configs/checked-in/";

class ImporterTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) const {
    return dir.write(kSub + name, text).string();
  }
  ImportRequest request(std::vector<std::string> configs, std::string tier = "") const {
    ImportRequest r;
    r.configs = std::move(configs);
    r.family_file = dir.path() / "family.json";
    r.data_dir = test::source_dir();
    r.tier = std::move(tier);
    return r;
  }
  std::string error_of(const ImportRequest& r) const {
    try {
      import_configs(r);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  static std::vector<std::string> lines(const std::vector<Finding>& findings) {
    std::vector<std::string> out;
    for (const auto& f : findings) out.push_back(format_finding(f));
    return out;
  }
  TempDir dir;
};

TEST_F(ImporterTest, BadInputIsRefusedWithTheFileAndWhere) {
  const std::string good = write("good.json", R"({"train_micro_batch_size_per_gpu": 1})");
  const std::string bad = write("bad.json", "{\n  \"zero_optimization\": {\"stage\": 2,}\n}\n");
  const std::string list = write("list.json", "\n\n  [1, 2]\n");
  const std::string dup = write("dup.json", R"({"a": 1, "a": 2})");
  const std::string missing = (dir.path() / kSub / "missing.json").string();
  const std::string manifest = write("manifest.json", "{}");
  EXPECT_EQ(error_of(request({good, missing})),
            "error: cannot read '" + missing + "': No such file or directory");
  EXPECT_EQ(error_of(request({good, bad})), bad + ":2:36: error: trailing comma in object");
  EXPECT_EQ(error_of(request({list})),
            list + ":3:3: error: a DeepSpeed config is a JSON object, this is an array");
  EXPECT_EQ(error_of(request({dup})).substr(0, dup.size() + 1), dup + ":");
  EXPECT_EQ(error_of(request({good, good})),
            "error: import: " + good + " is given twice (also as " + good + ")");
  EXPECT_EQ(error_of(request({manifest, good})),
            "error: import: " + manifest +
                " would be the member named manifest.json, which is generate's index of the "
                "configs; rename the file");
  EXPECT_EQ(error_of(request({good}, "no-such-tier")),
            "error: import: tier 'no-such-tier' not found on the tier search path (searched: " +
                (dir.path() / "tiers").string() + ", ./tiers, " +
                (test::source_dir() / "presets" / "tiers").string() +
                "); put no-such-tier.json in tiers/ beside the family, ./tiers or a "
                "ZEROFORGE_TIER_PATH directory, or give its path ('zeroforge list tiers' shows "
                "the tiers found)");
  // A tier's GPU count past 64 bits is bad input at its /nodes, never a wrapped product.
  const std::string huge_tier =
      write("tiers/huge.json", R"({"gpus_per_node": 4611686018427387904, "nodes": 2})");
  EXPECT_EQ(error_of(request({good}, huge_tier)),
            huge_tier +
                ": /nodes: error: gpus_per_node x nodes = 4611686018427387904 x 2 is beyond "
                "64-bit integers (9223372036854775807); no cluster has that many GPUs");
}

TEST_F(ImporterTest, ImpossibleBatchArithmeticIsAnErrorAndTheKeysAreCarriedAsWritten) {
  const std::string file = write("zero2-impossible-batch.json", R"({
    "train_batch_size": 30, "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}})");
  const ImportResult result = import_configs(request({file}));
  EXPECT_EQ(
      lines(result.findings),
      (std::vector<std::string>{
          file + ": /train_batch_size: error [batch-mismatch]: no world size satisfies "
                 "train_batch_size == train_micro_batch_size_per_gpu * "
                 "gradient_accumulation_steps * world size with these values; fix the batch "
                 "keys",
          file + ": /train_batch_size: note [import-world-size]: train_batch_size 30 is not a "
                 "multiple of micro batch x accumulation = 4, so no world size makes "
                 "DeepSpeed's batch equation hold: the batch keys are carried as written "
                 "(extra)",
          file + ": /train_batch_size: note [import-passthrough]: carried as written in "
                 "extra (no value of the template writes it; [batch-mismatch] above): 30",
          file + ": /train_micro_batch_size_per_gpu: note [import-passthrough]: carried as "
                 "written in extra (no value of the template writes it): 4",
          file + ": /gradient_accumulation_steps: note [import-passthrough]: carried as "
                 "written in extra (no value of the template writes it): 1",
      }));
  ASSERT_EQ(result.configs.size(), 1u);
  EXPECT_EQ(result.configs[0].values.at("extra"),
            Json::parse(R"({"train_batch_size": 30, "train_micro_batch_size_per_gpu": 4,
                           "gradient_accumulation_steps": 1})"));
}

TEST_F(ImporterTest, TheBatchKeysGiveTheWorldSizeAMemberRunsAt) {
  const std::string file = write("zero3-64.json", R"({
    "train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 3}})");
  const ImportResult alone = import_configs(request({file}));
  EXPECT_EQ(lines(alone.findings),
            (std::vector<std::string>{
                file + ": /train_batch_size: note [batch-world-size]: the batch keys are "
                       "consistent only with world size 8; pass --world-size N to check the one "
                       "you launch with",
                file + ": /train_batch_size: note [import-world-size]: train_batch_size 64 = 4 x "
                       "2 x world 8: the member is given gpus_per_node 8 (import --tier NAME "
                       "puts the family on a tier instead)"}));
  EXPECT_EQ(alone.configs[0].values.at("gpus_per_node"), 8);

  // On a tier of 8 GPUs the world size is the tier's: nothing to say, nothing to set.
  const ImportResult medium = import_configs(request({file}, "medium"));
  EXPECT_TRUE(medium.findings.empty()) << lines(medium.findings).front();
  EXPECT_FALSE(medium.configs[0].values.contains("gpus_per_node"));
  EXPECT_EQ(medium.family.at("tiers"), Json::array({"medium"}));

  // 4 of the 8: the member runs world_size 4 on the tier, and the input is judged at it.
  const std::string half = write("zero3-32.json", R"({
    "train_batch_size": 32, "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 3}})");
  const ImportResult four = import_configs(request({half}, "medium"));
  EXPECT_EQ(lines(four.findings),
            (std::vector<std::string>{
                half + ": /train_batch_size: note [import-world-size]: train_batch_size 32 = 4 x "
                       "2 x world 4: the member runs 4 ranks of tier medium's 8 GPUs "
                       "(world_size 4)"}));
  EXPECT_EQ(four.configs[0].values.at("world_size"), 4);

  // 3 ranks cannot be laid out on 8 GPUs: said, judged at the tier's 8, carried as written.
  const std::string three = write("zero3-24.json", R"({
    "train_batch_size": 24, "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 3}})");
  const ImportResult odd = import_configs(request({three}, "medium"));
  ASSERT_GE(odd.findings.size(), 2u);
  EXPECT_EQ(format_finding(odd.findings[0]),
            three +
                ": /train_batch_size: error [batch-mismatch]: train_batch_size must equal "
                "train_micro_batch_size_per_gpu * gradient_accumulation_steps * world size, "
                "but 24 != 4 * 2 * 8; set train_batch_size to 64 or remove it");
  EXPECT_EQ(format_finding(odd.findings[1]),
            three +
                ": /train_batch_size: warning [import-world-size]: train_batch_size 24 = 4 x "
                "2 x world 3, but tier medium has 8 GPUs, which 3 does not divide: the batch "
                "keys are carried as written (extra), and DeepSpeed's batch assertion fails "
                "on this tier");
  EXPECT_TRUE(odd.configs[0].values.at("extra").contains("train_batch_size"));
}

TEST_F(ImporterTest, WhatEveryInputAgreesOnIsTheFamilysValues) {
  const std::string a = write("zero2.json", R"({"train_micro_batch_size_per_gpu": "auto",
      "bf16": {"enabled": "auto"}, "gradient_clipping": 1.0,
      "zero_optimization": {"stage": 2, "overlap_comm": true}})");
  const std::string b = write("zero3.json", R"({"train_micro_batch_size_per_gpu": "auto",
      "bf16": {"enabled": "auto"}, "gradient_clipping": 1.0,
      "zero_optimization": {"stage": 3, "overlap_comm": true}})");
  const ImportResult result = import_configs(request({a, b}));
  // What the template writes by default and the inputs leave out is null (left to DeepSpeed);
  // what they say as the template's defaults do (bf16, overlap_comm, clipping 1.0) is not
  // repeated.
  EXPECT_EQ(result.family.at("values"), Json::parse(R"({
      "batch_keys": ["train_micro_batch_size_per_gpu"],
      "hf_auto": ["train_micro_batch_size_per_gpu", "bf16.enabled"],
      "steps_per_print": null, "wall_clock_breakdown": null, "optimizer": null,
      "scheduler": null,
      "zero": {"contiguous_gradients": null, "reduce_scatter": null,
               "reduce_bucket_size": null}})"));
  EXPECT_EQ(result.shared_values, 9u);
  EXPECT_EQ(result.family.at("include"), Json::parse(R"([
      {"imported_from": "zero2.json", "zero": {"allgather_bucket_size": null}},
      {"imported_from": "zero3.json", "stage": 3,
       "zero": {"sub_group_size": null, "stage3_prefetch_bucket_size": null,
                "stage3_param_persistence_threshold": null, "stage3_max_live_parameters": null,
                "stage3_max_reuse_distance": null,
                "stage3_gather_16bit_weights_on_model_save": null}}])"));
  EXPECT_EQ(result.configs[1].output, "zero3.json");
  EXPECT_EQ(lines(result.findings),
            (std::vector<std::string>{
                b +
                ": /zero_optimization/stage: note [import-one-key]: the only key that differs "
                "from " +
                a + ": 3 here, 2 there; check that this is the difference the pair is for"}));
}

}  // namespace
}  // namespace zf::importer
