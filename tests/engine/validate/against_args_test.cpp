// SPDX-License-Identifier: MIT
// Parsing training command lines (launchers and HF TrainingArguments) for --against-args.
#include <gtest/gtest.h>

#include "zeroforge/error.hpp"
#include "zeroforge/validator.hpp"

namespace {

TEST(AgainstArgsTest, DeepSpeedLauncherAndTrainerArguments) {
  auto cmd = zf::parse_training_command(
      "deepspeed --num_gpus 8 --num_nodes 2 train.py \\\n --per_device_train_batch_size=4 "
      "--gradient_accumulation_steps 2 --bf16 --gradient_checkpointing True --deepspeed "
      "'configs/ds z3.json'");
  EXPECT_EQ(cmd.launcher, "deepspeed");
  EXPECT_EQ(cmd.world_size, 16);
  EXPECT_EQ(cmd.per_device_train_batch_size, 4);
  EXPECT_EQ(cmd.gradient_accumulation_steps, 2);
  EXPECT_EQ(cmd.bf16, true);
  EXPECT_FALSE(cmd.fp16.has_value());
  EXPECT_EQ(cmd.gradient_checkpointing, true);
  EXPECT_EQ(cmd.deepspeed, "configs/ds z3.json");
}

TEST(AgainstArgsTest, TorchrunAndAccelerate) {
  EXPECT_EQ(
      zf::parse_training_command("torchrun --nnodes 2 --nproc_per_node 4 train.py").world_size, 8);
  EXPECT_EQ(zf::parse_training_command("python -m torch.distributed.run --nproc-per-node=2 t.py")
                .world_size,
            2);
  EXPECT_EQ(
      zf::parse_training_command("accelerate launch --num_processes 6 --config_file a.yaml t.py")
          .world_size,
      6);
  EXPECT_FALSE(zf::parse_training_command("torchrun --nnodes 1:4 t.py").world_size.has_value());
  EXPECT_FALSE(zf::parse_training_command("python train.py --fp16").world_size.has_value());
  EXPECT_EQ(zf::parse_training_command("python train.py --fp16 False").fp16, false);
}

TEST(AgainstArgsTest, BadValuesAreUsageErrors) {
  try {
    zf::parse_training_command("train.py --per_device_train_batch_size four");
    FAIL() << "expected an error";
  } catch (const zf::Error& e) {
    EXPECT_EQ(e.kind(), zf::ErrorKind::Usage);
    EXPECT_STREQ(
        e.what(),
        "error: --against-args: --per_device_train_batch_size expects an integer, found 'four'");
  }
  EXPECT_THROW(zf::parse_training_command("train.py --deepspeed 'x.json"), zf::Error);
}

TEST(AgainstArgsTest, BatchCountedTwiceIsExplained) {
  nlohmann::ordered_json config = {{"train_micro_batch_size_per_gpu", 4},
                                   {"gradient_accumulation_steps", 8}};
  zf::ValidateOptions options;
  options.hf = true;
  options.against = zf::parse_training_command(
      "train.py --per_device_train_batch_size 32 --gradient_accumulation_steps 8");
  auto findings = zf::validate_config(config, options, "ds.json");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(zf::format_finding(findings[0]),
            "ds.json: /train_micro_batch_size_per_gpu: error [args-batch]: "
            "train_micro_batch_size_per_gpu 4 != "
            "--per_device_train_batch_size 32; the HF Trainer refuses the mismatch; "
            "--per_device_train_batch_size "
            "already includes the accumulation, so the batch is counted twice (or write \"auto\")");
}

}  // namespace
