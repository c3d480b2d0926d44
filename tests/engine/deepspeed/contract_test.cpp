// SPDX-License-Identifier: MIT
// The DeepSpeed values contract (engine/src/deepspeed/contract.cpp): derived facts, and one bad
// value per rule with its exact message, placed where the value was written.
#include <gtest/gtest.h>

#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

Json defaults() {
  static const Json values =
      parse_json_text(read_file(std::string(ZF_SOURCE_DIR) + "/templates/deepspeed/defaults.json"),
                      "defaults.json")
          .at("values");
  return values;
}

Json with(const char* patch) {
  Json values = defaults();
  values.merge_patch(Json::parse(patch));
  return values;
}

TEST(ContractTest, DerivesTheBatchArithmeticWithTheWorldSize) {
  ContractCheck check = check_deepspeed_values(with(
      R"({"gpus_per_node": 8, "nodes": 4, "micro_batch_size": 2, "global_batch_size": 1024})"));
  ASSERT_TRUE(check.ok()) << check.problems.front().what();
  EXPECT_EQ(check.facts.world_size, 32);
  EXPECT_EQ(check.facts.gradient_accumulation, 16);
  EXPECT_EQ(check.facts.train_batch_size, 1024);
  ContractCheck plain =
      check_deepspeed_values(with(R"({"gpus_per_node": 8, "gradient_accumulation": 3})"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.facts.train_batch_size, 24);
  EXPECT_TRUE(check_deepspeed_values(defaults()).ok());
}

TEST(ContractTest, RefusesEachBadValueByName) {
  struct Case {
    const char* patch;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"stage": 4})", "/stage: error: stage must be an integer 0-3 or null, got 4"},
      {R"({"stage": "3"})", "/stage: error: stage must be an integer 0-3 or null, got \"3\""},
      {R"({"precision": "fp8"})",
       "/precision: error: precision must be one of fp32|fp16|bf16, got \"fp8\""},
      {R"({"offload_param": "disk"})",
       "/offload_param: error: offload_param must be one of none|cpu|nvme, got \"disk\""},
      {R"({"micro_batch_size": 0})",
       "/micro_batch_size: error: micro_batch_size must be an integer > 0, got 0"},
      {R"({"gpus_per_node": 1.5})",
       "/gpus_per_node: error: gpus_per_node must be an integer > 0, got 1.5"},
      {R"({"hf_auto": "yes"})",
       "/hf_auto: error: hf_auto must be true, false or a non-empty list of keys the HF Trainer "
       "fills (docs/values.md), got \"yes\""},
      {R"({"zero": {"reduce_bucket_size": -1}})",
       "/zero/reduce_bucket_size: error: zero.reduce_bucket_size must be an integer > 0, got -1"},
      {R"({"zero": {"reduce_bucket": 5}})",
       "/zero/reduce_bucket: error: unknown key 'reduce_bucket' in zero; did you mean "
       "'reduce_bucket_size'?"},
      {R"({"zero": {"stage": 3}})",
       "/zero/stage: error: unknown key 'stage' in zero; 'stage' is a top-level value (stage, not "
       "zero.stage)"},
      {R"({"offload": {"offload_param": "cpu"}})",
       "/offload/offload_param: error: unknown key 'offload_param' in offload; 'offload_param' is "
       "a top-level value (offload_param, not offload.offload_param)"},
      {R"({"micro_batchsize": 2})",
       "/micro_batchsize: error: unknown value 'micro_batchsize'; did you mean "
       "'micro_batch_size'?"},
      {R"({"lanch": {"script": "train.py"}})",
       "/lanch: error: unknown value 'lanch'; did you mean 'launch'?"},
      {R"({"optimizer": {"type": "Lamb"}})",
       "/optimizer/type: error: optimizer.type must be Adam or AdamW (the optimizers DeepSpeed "
       "runs under ZeRO "
       "without zero_allow_untested_optimizer and with offload), got \"Lamb\""},
      {R"({"scheduler": {"type": "WarmupDecayLR"}})",
       "/scheduler: error: scheduler.type WarmupDecayLR needs scheduler.total_num_steps"},
      {R"({"scheduler": {"warmup_num_steps": 0}})",
       "/scheduler/warmup_num_steps: error: scheduler.warmup_num_steps must be an integer > 0, got "
       "0"},
      {R"({"monitor": {"tensorboard": {"path": "x"}}})",
       "/monitor/tensorboard/path: error: unknown key 'path' in monitor.tensorboard (expected "
       "output_path, job_name)"},
      {R"({"stage": 2, "offload_param": "cpu"})",
       "/offload_param: error: offload_param=cpu takes effect only at ZeRO stage 3, but stage=2; "
       "DeepSpeed "
       "would silently ignore it: use stage 3 or offload_param=none"},
      {R"({"stage": 0, "offload_optimizer": "cpu"})",
       "/offload_optimizer: error: offload_optimizer=cpu takes effect only at ZeRO stages 1-3, but "
       "stage=0; "
       "DeepSpeed would silently ignore it: use stage 1-3 or offload_optimizer=none"},
      {R"({"stage": 2, "offload_optimizer": "nvme", "nvme_path": "/n"})",
       "/offload_optimizer: error: offload_optimizer=nvme needs ZeRO stage 3, but stage=2; "
       "DeepSpeed would "
       "silently offload to cpu instead: use stage 3 or offload_optimizer=cpu"},
      {R"({"stage": 3, "offload_param": "nvme"})",
       "/offload_param: error: offload_param=nvme needs nvme_path (the directory on the NVMe "
       "drive), but "
       "nvme_path is null"},
      {R"({"stage": 3, "zero": {"round_robin_gradients": true}})",
       "/zero/round_robin_gradients: error: zero.round_robin_gradients takes effect only at ZeRO "
       "stages 1-2, "
       "but stage=3; DeepSpeed would silently ignore it"},
      {R"({"global_batch_size": 30, "micro_batch_size": 4})",
       "/global_batch_size: error: global_batch_size=30 is not a multiple of micro_batch_size x "
       "world_size = "
       "4 x 1 = 4 (DeepSpeed asserts train_batch_size = micro batch x accumulation x world size)"},
      {R"({"global_batch_size": 8, "gradient_accumulation": 4, "micro_batch_size": 1})",
       "/gradient_accumulation: error: micro_batch_size x gradient_accumulation x world_size = 1 x "
       "4 x 1 = 4, "
       "but global_batch_size=8; set only one of the two"},
      {R"({"hf_auto": []})",
       "/hf_auto: error: hf_auto must be true, false or a non-empty list of keys the HF Trainer "
       "fills (docs/values.md), got []"},
      {R"({"hf_auto": ["gradient_clip"]})",
       "/hf_auto/0: error: \"gradient_clip\" is not a key the HF Trainer fills (docs/values.md); "
       "did you mean 'gradient_clipping'?"},
      {R"({"hf_auto": ["bf16.enabled", "bf16.enabled"]})",
       "/hf_auto/1: error: \"bf16.enabled\" is listed twice"},
      {R"({"stage": 2, "hf_auto": ["zero_optimization.stage3_prefetch_bucket_size"]})",
       "/hf_auto/0: error: hf_auto names zero_optimization.stage3_prefetch_bucket_size, which the "
       "template would not write: the Trainer fills it at ZeRO stage 3 only, but stage=2"},
      {R"({"batch_keys": ["train_micro_batch_size_per_gpu"], "hf_auto": ["train_batch_size"]})",
       "/hf_auto/0: error: hf_auto names train_batch_size, which the template would not write: "
       "batch_keys does not write it; add it to batch_keys"},
      {R"({"scheduler": {"type": "WarmupLR"}, "hf_auto": ["scheduler.params.total_num_steps"]})",
       "/hf_auto/0: error: hf_auto names scheduler.params.total_num_steps, which the template "
       "would not write: only WarmupDecayLR takes total_num_steps"},
      {R"({"batch_keys": ["micro_batch_size"]})",
       "/batch_keys/0: error: \"micro_batch_size\" is not a batch key the template writes"},
      {R"({"batch_keys": "train_batch_size"})",
       "/batch_keys: error: batch_keys must be a list of train_batch_size, "
       "train_micro_batch_size_per_gpu, gradient_accumulation_steps, got \"train_batch_size\""},
      {R"({"extra": [1]})",
       "/extra: error: extra must be an object (keys merged into the config) or null, got [1]"},
      {R"({"pcie_gbs": "fast"})", "/pcie_gbs: error: pcie_gbs must be a number > 0, got \"fast\""},
      {R"({"gpu_tflops": 0})", "/gpu_tflops: error: gpu_tflops must be a number > 0, got 0"},
      {R"({"inter_node_gb": 200})",
       "/inter_node_gb: error: unknown value 'inter_node_gb'; did you mean 'inter_node_gbs'?"},
      {R"({"fp16": {"loss_scale": -1}})",
       "/fp16/loss_scale: error: fp16.loss_scale must be a number >= 0, got -1"},
      {R"({"world_size": 3, "gpus_per_node": 8})",
       "/world_size: error: world_size=3 must divide the GPU count gpus_per_node x nodes = 8 "
       "(data-parallel ranks share the GPUs); give it the GPUs: --set gpus_per_node=N and nodes=M "
       "with N x M a multiple of 3, or a tier that has them (zeroforge list tiers), or leave "
       "world_size out (it is gpus_per_node x nodes)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.patch);
    ContractCheck check = check_deepspeed_values(with(c.patch));
    ASSERT_EQ(check.problems.size(), 1u) << (check.ok() ? "no problem" : check.problems[1].what());
    EXPECT_EQ(std::string(check.problems[0].what()), c.expected);
    // The same values in two layers, as generate keeps a variant's: the patched keys on top of
    // the defaults.
    Json patched = with(c.patch);
    Json patch = Json::parse(c.patch);
    ValueDict top;
    for (const auto& [key, value] : patch.items()) top.set(key, Value::from_json(patched.at(key)));
    ContractCheck layered = check_deepspeed_values(top, Value::from_json(defaults()).as_dict());
    ASSERT_EQ(layered.problems.size(), 1u);
    EXPECT_EQ(std::string(layered.problems[0].what()), c.expected);
  }
}

// A family's members share their tier's sections, and a section found clean is not checked
// again while it is the same dict: a different dict under the name is checked, a clean one
// before or after it changes nothing, and a bad one is reported every time.
TEST(ContractTest, ASectionSharedByMembersIsCheckedWheneverItChanges) {
  const Value base = Value::from_json(defaults());
  const Value bad_zero = Value::from_json(Json::parse(R"({"overlap_com": true})"));
  Json bad_base_json = defaults();
  bad_base_json["zero"]["overlap_com"] = true;
  const Value bad_base = Value::from_json(bad_base_json);
  const std::string expected =
      "/zero/overlap_com: error: unknown key 'overlap_com' in zero; did you mean 'overlap_comm'?";
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    EXPECT_TRUE(check_deepspeed_values(ValueDict(), base.as_dict()).ok());
    ValueDict top;
    top.set("zero", bad_zero);
    ContractCheck shadowed = check_deepspeed_values(top, base.as_dict());
    ASSERT_EQ(shadowed.problems.size(), 1u);
    EXPECT_EQ(std::string(shadowed.problems[0].what()), expected);
    EXPECT_TRUE(check_deepspeed_values(ValueDict(), base.as_dict()).ok());
    for (int again = 0; again < 2; ++again) {
      ContractCheck bad = check_deepspeed_values(ValueDict(), bad_base.as_dict());
      ASSERT_EQ(bad.problems.size(), 1u);
      EXPECT_EQ(std::string(bad.problems[0].what()), expected);
    }
  }
}

// merge_patch deletes a key given null, so these values are set one by one.
TEST(ContractTest, NullKnobsAndAListOfTrainerKeysAreValues) {
  Json values = defaults();
  values["stage"] = nullptr;
  values["gradient_clipping"] = nullptr;
  values["wall_clock_breakdown"] = nullptr;
  values["aio"] = nullptr;
  values["zero"]["reduce_bucket_size"] = nullptr;
  values["fp16"]["loss_scale"] = nullptr;
  values["optimizer"]["betas"] = nullptr;
  values["scheduler"]["warmup_max_lr"] = nullptr;
  values["activation_checkpointing"] = Json{{"profile", nullptr}};
  values["batch_keys"] = Json::array({"train_micro_batch_size_per_gpu"});
  values["hf_auto"] = Json::array({"train_micro_batch_size_per_gpu", "bf16.enabled"});
  values["extra"] = Json{{"zero_optimization", {{"stage", 1}}}};
  ContractCheck check = check_deepspeed_values(values);
  ASSERT_TRUE(check.ok()) << check.problems.front().what();
  EXPECT_EQ(check.facts.stage, 0) << "no zero_optimization: DeepSpeed's stage 0";
  EXPECT_TRUE(check.facts.hf_auto);
  values["extra"] = nullptr;
  values["batch_keys"] = Json::array();
  values["hf_auto"] = Json::array({"bf16.enabled"});
  EXPECT_TRUE(check_deepspeed_values(values).ok());
}

// Every batch value may be anything up to 2^63 - 1: each product of them is checked, and one
// past 64 bits is an error at the value, never a wrapped number (a product that wrapped to 0
// once ended in `% 0`, SIGFPE; issue 22). The largest products that fit still work.
TEST(ContractTest, BatchProductsPast64BitsAreErrorsAtTheValue) {
  struct Case {
    const char* patch;
    const char* expected;  // "" when the values are accepted
  };
  const Case cases[] = {
      {R"({"gpus_per_node": 8, "micro_batch_size": 2305843009213693952, "global_batch_size": 256})",
       "/micro_batch_size: error: micro_batch_size x world_size = 2305843009213693952 x 8 is "
       "beyond 64-bit integers (9223372036854775807), so no global_batch_size "
       "(global_batch_size=256) can hold it"},
      {R"({"gpus_per_node": 8, "micro_batch_size": 1152921504606846975,
           "global_batch_size": 9223372036854775807})",
       "/global_batch_size: error: global_batch_size=9223372036854775807 is not a multiple of "
       "micro_batch_size x world_size = 1152921504606846975 x 8 = 9223372036854775800 (DeepSpeed "
       "asserts train_batch_size = micro batch x accumulation x world size)"},
      {R"({"gpus_per_node": 8, "micro_batch_size": 2305843009213693952})",
       "/micro_batch_size: error: train_batch_size = micro_batch_size x gradient_accumulation x "
       "world_size = 2305843009213693952 x 1 x 8 is beyond 64-bit integers (9223372036854775807)"},
      {R"({"gpus_per_node": 2, "micro_batch_size": 2, "gradient_accumulation": 2305843009213693952})",
       "/gradient_accumulation: error: train_batch_size = micro_batch_size x gradient_accumulation "
       "x world_size = 2 x 2305843009213693952 x 2 is beyond 64-bit integers "
       "(9223372036854775807)"},
      {R"({"gpus_per_node": 2, "micro_batch_size": 2, "gradient_accumulation": 2305843009213693952,
           "global_batch_size": 8})",
       "/gradient_accumulation: error: micro_batch_size x gradient_accumulation x world_size = 2 x "
       "2305843009213693952 x 2 is beyond 64-bit integers (9223372036854775807), but "
       "global_batch_size=8; set only one of the two"},
      {R"({"gpus_per_node": 4611686018427387904, "nodes": 2})",
       "/nodes: error: gpus_per_node x nodes = 4611686018427387904 x 2 is beyond 64-bit integers "
       "(9223372036854775807); no cluster has that many GPUs"},
      {R"({"gpus_per_node": 9223372036854775807, "nodes": 9223372036854775807})",
       "/nodes: error: gpus_per_node x nodes = 9223372036854775807 x 9223372036854775807 is beyond "
       "64-bit integers (9223372036854775807); no cluster has that many GPUs"},
      {R"({"stage": 3, "zero": {"hpz": true}, "gpus_per_node": 4611686018427387904, "nodes": 4})",
       "/nodes: error: gpus_per_node x nodes = 4611686018427387904 x 4 is beyond 64-bit integers "
       "(9223372036854775807); no cluster has that many GPUs"},
      // The largest that fit.
      {R"({"gpus_per_node": 1, "micro_batch_size": 9223372036854775807})", ""},
      {R"({"gpus_per_node": 4611686018427387903, "nodes": 2, "micro_batch_size": 1})", ""},
      {R"({"gpus_per_node": 2, "micro_batch_size": 2, "global_batch_size": 9223372036854775804})",
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.patch);
    ContractCheck check = check_deepspeed_values(with(c.patch));
    if (*c.expected == '\0') {
      EXPECT_TRUE(check.ok()) << check.problems.front().what();
      continue;
    }
    ASSERT_EQ(check.problems.size(), 1u) << (check.ok() ? "no problem" : check.problems[1].what());
    EXPECT_EQ(std::string(check.problems[0].what()), c.expected);
  }
  ContractCheck largest = check_deepspeed_values(with(
      R"({"gpus_per_node": 2, "micro_batch_size": 2, "global_batch_size": 9223372036854775804})"));
  ASSERT_TRUE(largest.ok());
  EXPECT_EQ(largest.facts.gradient_accumulation, 2305843009213693951);
  EXPECT_EQ(largest.facts.train_batch_size, 9223372036854775804);
}

TEST(ContractTest, RefusesZeroPlusPlusWhereDeepSpeedIgnoresOrRejectsIt) {
  struct Case {
    const char* patch;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"stage": 2, "zero": {"quantized_weights": true}})",
       "/zero/quantized_weights: error: zero.quantized_weights (ZeRO++) takes effect only at ZeRO "
       "stage 3, but stage=2; DeepSpeed would silently ignore it"},
      {R"({"stage": 1, "gpus_per_node": 8, "nodes": 2, "zero": {"hpz": true}})",
       "/zero/hpz: error: zero.hpz (ZeRO++) takes effect only at ZeRO stage 3, but stage=1; "
       "DeepSpeed would silently ignore it"},
      {R"({"stage": 2, "zero": {"quantized_gradients": true}})",
       "/zero/quantized_gradients: error: zero.quantized_gradients (ZeRO++) takes effect only at "
       "ZeRO stage 3, but stage=2; DeepSpeed would silently ignore it"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 2, "zero": {"hpz_partition_size": 8}})",
       "/zero/hpz_partition_size: error: zero.hpz_partition_size is set but zero.hpz is false, so "
       "nothing uses it; set zero.hpz=true (hpZ) or remove zero.hpz_partition_size"},
      {R"({"stage": 3, "gpus_per_node": 8, "zero": {"hpz": true}})",
       "/zero/hpz: error: the hpZ partition 8 (gpus_per_node=8) spans the whole world_size 8: the "
       "secondary copy would be the same partition as ZeRO-3's own, so hpZ saves no "
       "communication and costs 2 bytes per parameter / 8 of GPU memory; use zero.hpz=false "
       "(hpZ helps on several nodes)"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 4,
           "zero": {"hpz": true, "hpz_partition_size": 1}})",
       "/zero/hpz_partition_size: error: zero.hpz_partition_size=1: an hpZ partition of 1 GPU is "
       "no hpZ (DeepSpeed reads 1 as off); use zero.hpz=false, or a partition of the GPUs per "
       "node"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 4,
           "zero": {"hpz": true, "hpz_partition_size": 3}})",
       "/zero/hpz_partition_size: error: zero.hpz_partition_size=3 does not divide world_size 32: "
       "DeepSpeed asserts it does when it builds the hpZ groups"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 4,
           "zero": {"hpz": true, "hpz_partition_size": 16}})",
       "/zero/hpz_partition_size: error: zero.hpz_partition_size=16 does not divide gpus_per_node "
       "8: DeepSpeed groups consecutive ranks, so the secondary partition would span nodes and "
       "its all-gather cross the inter-node network, which hpZ exists to avoid; use the GPUs per "
       "node or a divisor of them"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 3, "world_size": 12,
           "zero": {"quantized_gradients": true}})",
       "/zero/quantized_gradients: error: zero.quantized_gradients needs world_size 12 to be a "
       "multiple of gpus_per_node 8 on several nodes: DeepSpeed builds qgZ's all-to-all groups "
       "node by node and asserts whole nodes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.patch);
    ContractCheck check = check_deepspeed_values(with(c.patch));
    ASSERT_EQ(check.problems.size(), 1u) << (check.ok() ? "no problem" : check.problems[1].what());
    EXPECT_EQ(std::string(check.problems[0].what()), c.expected);
  }
}

TEST(ContractTest, AcceptsZeroPlusPlusOnSeveralNodes) {
  for (const char* patch : {
           R"({"stage": 3, "gpus_per_node": 8, "nodes": 4,
               "zero": {"quantized_weights": true, "quantized_gradients": true, "hpz": true}})",
           R"({"stage": 3, "gpus_per_node": 8, "nodes": 2, "offload_optimizer": "cpu",
               "zero": {"hpz": true, "hpz_partition_size": 4}})",
           R"({"stage": 3, "gpus_per_node": 8, "zero": {"quantized_weights": true}})",
       }) {
    SCOPED_TRACE(patch);
    ContractCheck check = check_deepspeed_values(with(patch));
    EXPECT_TRUE(check.ok()) << check.problems.front().what();
  }
}

TEST(ContractTest, LayeredValuesDeriveTheSameFacts) {
  Json patch = Json::parse(R"({"stage": 3, "micro_batch_size": 2, "gpus_per_node": 8})");
  ValueDict top;
  for (const auto& [key, value] : patch.items()) top.set(key, Value::from_json(value));
  ContractCheck layered = check_deepspeed_values(top, Value::from_json(defaults()).as_dict());
  ContractCheck merged = check_deepspeed_values(with(patch.dump().c_str()));
  ASSERT_TRUE(layered.ok());
  EXPECT_EQ(facts_to_json(layered.facts), facts_to_json(merged.facts));
  EXPECT_EQ(layered.facts.stage, 3);
  EXPECT_EQ(layered.facts.train_batch_size, 16);
}

TEST(ContractTest, NamesTheFileAndPointerWhereTheValueWasWritten) {
  SourcedValues values;
  values.apply(
      Layer{{LayerKind::TemplateDefault, "d"}, defaults(), "defaults.json", "/values", ""});
  values.apply(Layer{{LayerKind::Family, "fam.json"}, {{"stage", 2}}, "fam.json", "/values", ""});
  values.apply(Layer{{LayerKind::Variant, "fam.json /axes/offload_param/1"},
                     {{"offload_param", "cpu"}},
                     "fam.json",
                     "/axes/offload_param/1",
                     "/offload_param"});
  ContractCheck check = check_deepspeed_values(values.merged(), &values);
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_STREQ(check.problems[0].what(),
               "fam.json: /axes/offload_param/1: error: offload_param=cpu takes effect only at "
               "ZeRO stage 3, "
               "but stage=2 (family fam.json); DeepSpeed would silently ignore it: use stage 3 or "
               "offload_param=none");
}

}  // namespace
}  // namespace zf
