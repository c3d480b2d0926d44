// SPDX-License-Identifier: MIT
// Parsing training command lines (launchers and HF TrainingArguments) for --against-args.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
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

// A process count beyond 64 bits was undefined behaviour (found by validate_fuzz).
TEST(AgainstArgsTest, ProcessCountsBeyondSixtyFourBitsAreUsageErrors) {
  struct Case {
    const char* line;
    const char* expected;
  };
  const Case cases[] = {
      {"torchrun --nproc_per_node=4 --nnodes 4099276460824344790 train.py",
       "error: --against-args: --nproc-per-node 4 x --nnodes 4099276460824344790 processes is "
       "more than a 64-bit count holds"},
      {"deepspeed --num_gpus 3074457345618258603 --num_nodes 3 train.py",
       "error: --against-args: --num_gpus 3074457345618258603 x --num_nodes 3 processes is more "
       "than a 64-bit count holds"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    try {
      zf::parse_training_command(c.line);
      ADD_FAILURE() << "expected an error";
    } catch (const zf::Error& e) {
      EXPECT_EQ(e.kind(), zf::ErrorKind::Usage);
      EXPECT_STREQ(e.what(), c.expected);
    }
  }
  zf::test::TempDir dir;
  dir.write("hosts", "a slots=1\nb slots=1\n");
  zf::TrainingCommand cmd =
      zf::parse_training_command("deepspeed --hostfile hosts --num_gpus 9223372036854775807 t.py");
  try {
    zf::load_launcher_files(cmd, dir.path());
    ADD_FAILURE() << "expected an error";
  } catch (const zf::Error& e) {
    EXPECT_STREQ(e.what(),
                 "error: --against-args: --num_gpus 9223372036854775807 on 2 hosts is more "
                 "processes than a 64-bit count holds");
  }
}

TEST(AgainstArgsTest, BatchCountedTwiceIsExplained) {
  nlohmann::ordered_json config = {{"train_micro_batch_size_per_gpu", 4},
                                   {"gradient_accumulation_steps", 8},
                                   {"zero_optimization", {{"stage", 0}}}};
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

TEST(AgainstArgsTest, OptimizerAndScheduleArgumentsAreComparedWithTheConfig) {
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(R"({
    "train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 0},
    "optimizer": {"type": "AdamW", "params": {"lr": 0.0003, "betas": [0.9, 0.95], "eps": 1e-08,
                                               "weight_decay": 0.1}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 0.0003,
                                                       "warmup_num_steps": 2000,
                                                       "total_num_steps": 9000}}})");
  zf::ValidateOptions options;
  options.hf = true;
  options.against = zf::parse_training_command(
      "train.py --learning_rate 0.0003 --adam_beta1 0.9 --adam_beta2 0.999 --adam_epsilon 1e-08 "
      "--weight_decay 0.0 --warmup_steps 2000 --max_steps 10000");
  std::vector<std::string> lines;
  for (const auto& f : zf::validate_config(config, options, "ds.json"))
    lines.push_back(zf::format_finding(f));
  const std::string tail =
      "; the HF Trainer refuses the mismatch: make them agree or write \"auto\"";
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "ds.json: /optimizer/params/betas/1: error [args-value]: "
                       "optimizer.params.betas.1 0.95 != --adam_beta2 0.999" +
                           tail,
                       "ds.json: /optimizer/params/weight_decay: error [args-value]: "
                       "optimizer.params.weight_decay 0.1 != --weight_decay 0" +
                           tail,
                       "ds.json: /scheduler/params/total_num_steps: error [args-value]: "
                       "scheduler.params.total_num_steps 9000 != --max_steps 10000" +
                           tail}));
  // 0 steps means "not given" to the Trainer (warmup_ratio, the epochs decide): not compared.
  options.against = zf::parse_training_command("train.py --warmup_steps 0 --max_steps -1");
  EXPECT_TRUE(zf::validate_config(config, options, "ds.json").empty());
}

TEST(AgainstArgsTest, DeepSpeedHostfileGivesTheWorldAsTheRunnerCountsIt) {
  zf::test::TempDir dir;
  dir.write("hosts", "# comment\n\nworker-0 slots=8\n  worker-1\tslots=4  \nworker-2 slots=2\n");
  auto world = [&](const std::string& line) {
    zf::TrainingCommand cmd = zf::parse_training_command(line);
    zf::load_launcher_files(cmd, dir.path());
    return cmd.world_size.value_or(-1);
  };
  EXPECT_EQ(world("deepspeed --hostfile hosts train.py"), 14) << "every host, all its slots";
  EXPECT_EQ(world("deepspeed -H hosts --num_nodes 2 train.py"), 12) << "the first two hosts";
  EXPECT_EQ(world("deepspeed --hostfile=hosts --num_gpus 1 train.py"), 3);
  EXPECT_EQ(world("deepspeed --hostfile hosts --num_nodes 2 --num_gpus 2 train.py"), 4);
  EXPECT_EQ(world("deepspeed --num_nodes 2 --num_gpus 2 train.py"), 4) << "no hostfile named";
  // DeepSpeed reads the file with readlines in text mode (a line ends at \n, \r\n or \r) and
  // strips and splits at Python's whitespace (\x1c-\x1f too): checked against its
  // _parse_hostfile (runner.py, 0.19.6), which reads these as 3 hosts of 14 GPUs and 2 of 10.
  dir.write("hosts", "worker-0 slots=8\rworker-1 slots=4\r\nworker-2 slots=2\n");
  EXPECT_EQ(world("deepspeed --hostfile hosts train.py"), 14);
  dir.write("hosts", "w0\x1cslots=8\n\x1fw1 slots=2\n");
  EXPECT_EQ(world("deepspeed --hostfile hosts train.py"), 10);

  struct Case {
    const char* text;
    const char* expected;
  };
  const Case bad[] = {
      {"worker-0 slots=8\nworker-1 8\n",
       "hosts:2:1: error: not a hostfile line ('host slots=N'), which DeepSpeed refuses: worker-1 "
       "8"},
      {"a slots=1\na slots=2\n",
       "hosts:2:1: error: host 'a' is listed twice, which DeepSpeed refuses"},
      {"# nobody\n", "hosts: error: the hostfile lists no host, which DeepSpeed refuses"},
      {"a slots=1\rb slots=1\ra slots=2\n",
       "hosts:3:1: error: host 'a' is listed twice, which DeepSpeed refuses"},
      {"w0 slots=8\nw1\u00a0slots=8\n",
       "hosts:2:3: error: a Unicode space or line break (\"\u00a0\") in a hostfile line, which "
       "DeepSpeed's reader takes as a separator; write an ASCII space"},
      {"w0 slots=8 # \u2028\n",
       "hosts:1:14: error: a Unicode space or line break (\"\\u2028\") in a hostfile line, which "
       "DeepSpeed's reader takes as a separator; write an ASCII space"},
      {"w0 slots=8\nw\xff slots=8\n",
       "hosts: error: not UTF-8 at byte 13 (DeepSpeed reads the hostfile as text and refuses it)"},
  };
  for (const auto& c : bad) {
    SCOPED_TRACE(c.text);
    dir.write("hosts", c.text);
    zf::TrainingCommand cmd = zf::parse_training_command("deepspeed --hostfile hosts t.py");
    try {
      zf::load_launcher_files(cmd, dir.path());
      ADD_FAILURE() << "expected an error";
    } catch (const zf::Error& e) {
      EXPECT_STREQ(e.what(), c.expected);
    }
  }
}

// What a process that `accelerate launch` starts trains in: accelerate refuses a mixed precision
// that contradicts the config, and fills "auto" from it for a plain Accelerator() while the
// Trainer fills it from --bf16/--fp16 (accelerate DeepSpeedPlugin.set_mixed_precision).
TEST(AgainstArgsTest, AccelerateMixedPrecisionIsComparedWithTheConfig) {
  const nlohmann::ordered_json hf_mode = {{"train_micro_batch_size_per_gpu", "auto"},
                                          {"fp16", {{"enabled", "auto"}}},
                                          {"bf16", {{"enabled", "auto"}}},
                                          {"zero_optimization", {{"stage", 2}}}};
  const nlohmann::ordered_json fp16_on = {{"train_micro_batch_size_per_gpu", 1},
                                          {"fp16", {{"enabled", true}}},
                                          {"zero_optimization", {{"stage", 2}}}};
  const std::string launch = "accelerate launch --num_processes 1 ";
  struct Case {
    nlohmann::ordered_json config;
    std::string command;
    std::vector<std::string> findings;
  };
  const std::vector<Case> cases = {
      {hf_mode, launch + "--mixed_precision bf16 train.py --bf16 --deepspeed ds.json", {}},
      {hf_mode,
       launch + "train.py --bf16 --deepspeed ds.json",
       {"ds.json: /bf16/enabled: error [args-precision]: the config's precision is \"auto\": "
        "the HF Trainer fills it from --bf16 (bf16), but a script with a plain Accelerator() "
        "fills it from accelerate's mixed precision 'no' (fp32); launch with --mixed_precision "
        "bf16 so that both train in bf16"}},
      {hf_mode,
       launch + "--mixed_precision fp16 train.py --deepspeed ds.json",
       {"ds.json: /bf16/enabled: error [args-precision]: the config's precision is \"auto\": "
        "the HF Trainer fills it from the absence of --bf16 and --fp16 (fp32), but a script "
        "with a plain Accelerator() fills it from accelerate's mixed precision 'fp16' (fp16); "
        "launch with --mixed_precision no so that both train in fp32"}},
      {hf_mode, launch + "--mixed_precision no train.py", {}},
      {hf_mode,
       launch + "train.py",
       {"ds.json: /bf16/enabled: warning [args-precision]: the config's precision is \"auto\" "
        "and accelerate launch names no mixed precision: a plain Accelerator() fills it with "
        "'no' and trains in fp32; name the precision with --mixed_precision (bf16, fp16 or "
        "no)"}},
      {fp16_on, launch + "--mixed_precision fp16 train.py --fp16", {}},
      {fp16_on, launch + "train.py --fp16", {}},
      {fp16_on,
       launch + "--mixed_precision bf16 train.py --fp16",
       {"ds.json: /fp16/enabled: error [args-precision]: fp16.enabled is true, and accelerate "
        "launch with mixed precision 'bf16' refuses the config (\"`--mixed_precision` arg "
        "cannot be set to `bf16` when `fp16` is set in the DeepSpeed config file\"); launch "
        "with --mixed_precision fp16"}},
      {fp16_on, "torchrun --nproc_per_node 1 train.py --fp16", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    zf::ValidateOptions options;
    options.hf = true;
    options.against = zf::parse_training_command(c.command);
    std::vector<std::string> lines;
    for (const auto& f : zf::validate_config(c.config, options, "ds.json"))
      lines.push_back(zf::format_finding(f));
    EXPECT_EQ(lines, c.findings);
  }
  EXPECT_EQ(zf::parse_training_command("accelerate launch --mixed_precision bf16 t.py --bf16")
                .mixed_precision,
            "bf16");
  EXPECT_FALSE(zf::parse_training_command("torchrun --mixed_precision bf16 t.py")
                   .mixed_precision.has_value())
      << "only accelerate launch takes it";
}

TEST(AgainstArgsTest, KeysInjectedPastTheAccelerateConfigsCommentAreReadAsAccelerateReadsThem) {
  // An accelerate companion as zeroforge wrote it before launch.args could not hold a YAML 1.1
  // line break: U+2028 in an argument ends the header comment for PyYAML (accelerate's reader),
  // which then reads `mixed_precision: fp16`, a key accelerate refuses next to a
  // deepspeed_config_file, and whose fp16 accelerate refuses next to a bf16 config. The check
  // reads it too and reports both.
  zf::test::TempDir dir;
  dir.write("medium/zero3.accelerate.yaml",
            "# accelerate launch --config_file medium/zero3.accelerate.yaml train.py --note "
            "'x\u2028mixed_precision: fp16\u2028#' --bf16\n"
            "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n"
            "  deepspeed_config_file: \"medium/zero3.json\"\n  zero3_init_flag: true\n"
            "distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 8\n");
  zf::ValidateOptions options;
  options.against = zf::parse_training_command(
      "accelerate launch --config_file medium/zero3.accelerate.yaml train.py --bf16");
  zf::load_launcher_files(*options.against, dir.path());
  ASSERT_TRUE(options.against->accelerate_config.has_value());
  EXPECT_EQ(options.against->accelerate_config->mixed_precision, "fp16");
  const auto config = nlohmann::ordered_json::parse(
      R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 1,
          "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
          "zero_optimization": {"stage": 3}})");
  std::vector<std::string> findings;
  for (const auto& f : zf::validate_config(config, options, "zero3.json"))
    findings.push_back(zf::format_finding(f));
  const std::vector<std::string> expected = {
      "zero3.json: /: error [args-accelerate]: the accelerate config "
      "medium/zero3.accelerate.yaml sets mixed_precision (fp16) next to "
      "deepspeed_config_file, which accelerate refuses (\"When using "
      "`deepspeed_config_file`, the following accelerate config variables will be "
      "ignored\"); remove them: the DeepSpeed config decides",
      "zero3.json: /bf16/enabled: error [args-precision]: bf16.enabled is true, and "
      "accelerate launch with mixed precision 'fp16' refuses the config (\"`--mixed_"
      "precision` arg cannot be set to `fp16` when `bf16` is set in the DeepSpeed "
      "config file\"); launch with --mixed_precision bf16"};
  EXPECT_EQ(findings, expected);
}

TEST(AgainstArgsTest, AccelerateConfigFileGivesTheWorldUnlessTheCommandDoes) {
  zf::test::TempDir dir;
  dir.write("acc.yaml",
            "distributed_type: DEEPSPEED\nnum_processes: 16\nnum_machines: 2\n"
            "mixed_precision: 'no'\ndeepspeed_config:\n  deepspeed_config_file: ds.json\n"
            "  zero_stage: 3\n");
  zf::TrainingCommand cmd =
      zf::parse_training_command("accelerate launch --config_file acc.yaml train.py");
  EXPECT_EQ(cmd.accelerate_config_file, "acc.yaml");
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.world_size, 16);
  ASSERT_TRUE(cmd.accelerate_config.has_value());
  const zf::AccelerateConfig& acc = *cmd.accelerate_config;
  EXPECT_EQ(acc.file, "acc.yaml");
  EXPECT_EQ(acc.distributed_type, "DEEPSPEED");
  EXPECT_EQ(acc.num_machines, 2);
  EXPECT_EQ(acc.mixed_precision, "no");
  EXPECT_EQ(acc.deepspeed_config_file, "ds.json");
  EXPECT_EQ(acc.deepspeed_config_keys,
            (std::vector<std::string>{"deepspeed_config_file", "zero_stage"}));
  cmd = zf::parse_training_command(
      "accelerate launch --num_processes 4 --config-file acc.yaml train.py");
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.world_size, 4) << "the command line wins, as in accelerate launch";

  dir.write("acc.yaml", "distributed_type: DEEPSPEED\nnum_processes: eight\n");
  cmd = zf::parse_training_command("accelerate launch --config_file acc.yaml train.py");
  try {
    zf::load_launcher_files(cmd, dir.path());
    ADD_FAILURE() << "expected an error";
  } catch (const zf::Error& e) {
    EXPECT_STREQ(e.what(),
                 "acc.yaml: /num_processes: error: num_processes must be an integer, "
                 "got \"eight\"");
  }
  cmd = zf::parse_training_command("accelerate launch --config_file missing.yaml train.py");
  EXPECT_THROW(zf::load_launcher_files(cmd, dir.path()), zf::Error);
}

// accelerate takes any integer (ClusterConfig checks no range) and fails only when the launch
// starts: 0 or -8 processes, a rank past the machines, a port past 65535 are refused where they
// are written; -1, accelerate's own "not given", leaves the count to the command line.
TEST(AgainstArgsTest, AccelerateConfigNumbersAreCheckedAtTheirKey) {
  struct Case {
    const char* name;
    std::string yaml;
    std::string error;  // empty: read
  };
  const std::string head = "distributed_type: DEEPSPEED\n";
  const std::vector<Case> cases = {
      {"no processes", head + "num_processes: 0\n",
       "acc.yaml: /num_processes: error: num_processes must be a process count from 1 to "
       "16777216 (or -1: given on the command line), got 0"},
      {"negative", head + "num_processes: -8\n",
       "acc.yaml: /num_processes: error: num_processes must be a process count from 1 to "
       "16777216 (or -1: given on the command line), got -8"},
      {"absurd", head + "num_processes: 1000000000000\n",
       "acc.yaml: /num_processes: error: num_processes must be a process count from 1 to "
       "16777216 (or -1: given on the command line), got 1000000000000"},
      {"no machines", head + "num_machines: 0\n",
       "acc.yaml: /num_machines: error: num_machines must be a machine count from 1 to 65536, "
       "got 0"},
      {"rank past the machines", head + "num_machines: 2\nmachine_rank: 2\n",
       "acc.yaml: /machine_rank: error: machine_rank must be a machine rank (below num_machines) "
       "from 0 to 1, got 2"},
      {"port", head + "main_process_port: 70000\n",
       "acc.yaml: /main_process_port: error: main_process_port must be a port number from 1 to "
       "65535, got 70000"},
      {"a 1 MiB key", head + std::string(1 << 20, 'k') + ": 1\n",
       "acc.yaml:2:1: error: a key of 1048576 characters; YAML takes a key of at most 1024 "
       "before its ':' (PyYAML refuses it: \"mapping values are not allowed here\")"},
      {"unset", head + "num_processes: -1\nnum_machines: 2\nmachine_rank: 1\n", ""},
  };
  zf::test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    dir.write("acc.yaml", c.yaml);
    zf::TrainingCommand cmd =
        zf::parse_training_command("accelerate launch --config_file acc.yaml train.py");
    try {
      zf::load_launcher_files(cmd, dir.path());
      EXPECT_EQ(c.error, "");
      EXPECT_FALSE(cmd.world_size.has_value()) << "-1 gives no world size";
    } catch (const zf::Error& e) {
      EXPECT_EQ(e.what(), c.error);
    }
  }
}

}  // namespace

namespace {

// Each launch style's command as the companions write it, and a non-Python script, under each
// launcher: the script is the first word after the launcher's options and their values, the
// config path is read from the style's option, and only the Trainer's arguments make a left-out
// flag a finding.
TEST(AgainstArgsTest, EveryLaunchStyleAndANonPythonScriptAreReadAsTheLaunchersReadThem) {
  struct Case {
    const char* line;
    const char* script;
    bool no_python;
    const char* config;  // "" when the command names none
    const char* option;  // the option that named it
    bool trainer;
    long long world;
  };
  const Case cases[] = {
      {"deepspeed --num_nodes 1 --num_gpus 8 --master_port 29500 train.py --deepspeed "
       "--deepspeed_config /c/zero3.json --output_dir o",
       "train.py", false, "/c/zero3.json", "--deepspeed_config", false, 8},
      {"deepspeed --num_gpus 8 --no_python --master_port 29500 run.sh --deepspeed_config z.json",
       "run.sh", true, "z.json", "--deepspeed_config", false, 8},
      {"torchrun --standalone --nnodes 1 --nproc_per_node 4 --no_python bin/train --output_dir o",
       "bin/train", true, "", "", false, 4},
      {"torchrun --nproc-per-node=2 --no-python --rdzv_id job-1 wrap.sh --deepspeed x.json --bf16",
       "wrap.sh", true, "x.json", "--deepspeed", true, 2},
      // A flag of the launcher before the script, and an option's value that is no script.
      {"torchrun --standalone --nnodes 1 --nproc_per_node 8 --log_dir logs t.sh --deepspeed",
       "t.sh", false, "", "", false, 8},
      {"accelerate launch --config_file a.yaml --mixed_precision bf16 --no_python train.sh "
       "--output_dir o",
       "train.sh", true, "", "", false, -1},
      {"accelerate launch --num_processes 8 --same_network train.py --deepspeed --deepspeed_config "
       "z.json",
       "train.py", false, "z.json", "--deepspeed_config", false, 8},
      {"deepspeed --num_gpus 8 train.py --deepspeed ds.json --bf16", "train.py", false, "ds.json",
       "--deepspeed", true, 8},
      {"python train.py --deepspeed ds.json", "train.py", false, "ds.json", "--deepspeed", true,
       -1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    const zf::TrainingCommand cmd = zf::parse_training_command(c.line);
    EXPECT_EQ(cmd.script, c.script);
    EXPECT_EQ(cmd.no_python, c.no_python);
    EXPECT_EQ(cmd.deepspeed.value_or(""), c.config);
    EXPECT_EQ(cmd.deepspeed_option, c.option);
    EXPECT_EQ(cmd.trainer_arguments, c.trainer);
    EXPECT_EQ(cmd.world_size.value_or(-1), c.world);
  }
}

// A bf16 config with activation checkpointing: the Trainer's command must say both, a script of
// another style takes them from the config (no finding), and a --deepspeed_config that names
// another file is reported by its option.
TEST(AgainstArgsTest, LeftOutTrainerFlagsAreFindingsOnlyForTheTrainersArguments) {
  const nlohmann::ordered_json config = {
      {"train_micro_batch_size_per_gpu", 4},
      {"bf16", {{"enabled", true}}},
      {"activation_checkpointing", {{"partition_activations", true}}},
      {"zero_optimization", {{"stage", 3}}}};
  struct Case {
    const char* line;
    std::vector<std::string> rules;
  };
  const Case cases[] = {
      {"torchrun --nproc_per_node 1 train.py --deepspeed ds.json",
       {"args-precision", "args-activation-checkpointing"}},
      {"torchrun --nproc_per_node 1 train.py --deepspeed --deepspeed_config ds.json", {}},
      {"torchrun --nproc_per_node 1 --no_python train.sh --deepspeed_config ds.json", {}},
      {"torchrun --nproc_per_node 1 --no_python train.sh --output_dir o", {}},
      {"torchrun --nproc_per_node 1 --no_python train.sh --deepspeed_config other.json",
       {"args-deepspeed-file"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    zf::ValidateOptions options;
    options.against = zf::parse_training_command(c.line);
    std::vector<std::string> rules;
    for (const auto& f : zf::validate_config(config, options, "ds.json")) {
      if (f.rule.starts_with("args-")) rules.push_back(f.rule);
      if (f.rule == "args-deepspeed-file") {
        EXPECT_NE(f.message.find("--deepspeed_config other.json"), std::string::npos) << f.message;
      }
    }
    EXPECT_EQ(rules, c.rules);
  }
}

}  // namespace
