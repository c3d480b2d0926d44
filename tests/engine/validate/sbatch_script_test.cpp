// SPDX-License-Identifier: MIT
// `validate --against-args "sbatch ..."` (engine/src/validate/sbatch_script.cpp): the allocation
// from sbatch's options and the script's #SBATCH directives, the launch the script runs (a
// hand-written srun line, or the companion's cmd=( ... ) with "$here" and accelerate's bash -c),
// the args-world-size finding when they disagree, and the errors with their exact text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/validator.hpp"

namespace {

// A site's own batch script: directives with a comment, a GRES list, a directive after the
// first command (sbatch ignores it) and a launch continued over two lines.
constexpr const char* kHandWritten =
    "#!/bin/bash\n"
    "#SBATCH --nodes=4   # the whole rack\n"
    "#SBATCH --gres=gpu:a100:8,nvme:1\n"
    "#SBATCH -p gpu --exclusive\n"
    "\n"
    "module load cuda\n"
    "#SBATCH --nodes=9\n"
    "srun torchrun --nnodes 4 --nproc_per_node 8 --rdzv_backend c10d \\\n"
    "  train.py --per_device_train_batch_size 2 --bf16 --deepspeed ds.json\n";

TEST(SbatchScriptTest, CommandLineOptionsWinOverTheDirectivesAsInSbatch) {
  zf::test::TempDir dir;
  dir.write("jobs/train job.sh", kHandWritten);
  zf::TrainingCommand cmd =
      zf::parse_training_command("sbatch --parsable -N2 'jobs/train job.sh' --seed 1");
  EXPECT_EQ(cmd.sbatch_script, "jobs/train job.sh");
  EXPECT_EQ(cmd.sbatch_script_args, (std::vector<std::string>{"--seed", "1"}));
  EXPECT_EQ(cmd.slurm_nodes, 2);
  EXPECT_FALSE(cmd.slurm_gpus_per_node.has_value()) << "until the script is read";
  EXPECT_EQ(cmd.sbatch_options, (std::vector<std::string>{"--parsable", "-N2"}));
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.slurm_nodes, 2) << "-N2 on the command line wins over --nodes=4";
  EXPECT_EQ(cmd.slurm_gpus_per_node, 8) << "gpu:a100:8 of the GRES list";
  EXPECT_EQ(cmd.launcher, "torchrun");
  EXPECT_EQ(cmd.world_size, 32);
  EXPECT_EQ(cmd.per_device_train_batch_size, 2);
  EXPECT_EQ(cmd.bf16, true);
  EXPECT_EQ(cmd.deepspeed, "ds.json");

  cmd = zf::parse_training_command("sbatch 'jobs/train job.sh'");
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.slurm_nodes, 4) << "the first --nodes: the one after `module load` is not read";
  cmd = zf::parse_training_command("sbatch --gpus-per-node=h100:4 --nodes 1-3 'jobs/train job.sh'");
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.slurm_gpus_per_node, 4);
  EXPECT_FALSE(cmd.slurm_nodes.has_value()) << "a range of nodes is no count";
}

TEST(SbatchScriptTest, ReadsTheCompanionsLaunchArrayWithItsConfigAndTheAccelerateRank) {
  // The shape of companions/slurm.sbatch.j2's script (tests/cli checks the real ones).
  zf::test::TempDir dir;
  dir.write("large/zero3.sbatch",
            "#!/usr/bin/env bash\n#SBATCH --job-name=x\n#SBATCH --nodes=8\n"
            "#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:8\n# comment\nset -euo pipefail\n"
            "here=large\n"
            "if [[ -n \"${SLURM_JOB_ID:-}\" ]]; then\n  rdzv_id=\"$SLURM_JOB_ID\"\nfi\n"
            "cmd=(\n  srun\n  --nodes=8\n  --kill-on-bad-exit=1\n"
            "  bash -c 'exec accelerate launch --machine_rank \"$SLURM_NODEID\" \"$@\"' "
            "accelerate\n"
            "  --config_file \"$here\"/zero3.accelerate.yaml\n  --num_machines 8\n"
            "  --num_processes 64\n  --mixed_precision bf16\n  train.py\n"
            "  --deepspeed \"$here\"/zero3.json\n  --per_device_train_batch_size 4\n  --bf16\n)\n"
            "exec \"${cmd[@]}\" \"$@\"\n");
  dir.write("large/zero3.accelerate.yaml",
            "deepspeed_config:\n  deepspeed_config_file: \"large/zero3.json\"\n"
            "distributed_type: DEEPSPEED\nnum_machines: 8\nnum_processes: 64\n");
  zf::TrainingCommand cmd = zf::parse_training_command("sbatch large/zero3.sbatch --seed 1");
  zf::load_launcher_files(cmd, dir.path());
  EXPECT_EQ(cmd.launcher, "accelerate");
  EXPECT_EQ(cmd.accelerate_config_file, "large/zero3.accelerate.yaml") << "$here resolved";
  ASSERT_TRUE(cmd.accelerate_config.has_value()) << "and read";
  EXPECT_EQ(cmd.world_size, 64);
  EXPECT_EQ(cmd.mixed_precision, "bf16");
  EXPECT_EQ(cmd.deepspeed, "large/zero3.json");
  EXPECT_EQ(cmd.slurm_nodes, 8);
  EXPECT_EQ(cmd.slurm_gpus_per_node, 8);
}

TEST(SbatchScriptTest, AnAllocationOtherThanTheLaunchIsAnArgsWorldSizeError) {
  zf::test::TempDir dir;
  dir.write("job.sh", kHandWritten);
  zf::ValidateOptions options;
  options.against = zf::parse_training_command("sbatch --gres=gpu:4 job.sh");
  zf::load_launcher_files(*options.against, dir.path());
  const auto config = nlohmann::ordered_json::parse(
      R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
          "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
          "zero_optimization": {"stage": 3}})");
  std::vector<std::string> findings;
  for (const auto& f : zf::validate_config(config, options, "ds.json"))
    findings.push_back(zf::format_finding(f));
  EXPECT_EQ(findings, std::vector<std::string>{
                          "ds.json: /: error [args-world-size]: sbatch job.sh asks SLURM for 4 "
                          "node(s) x 4 GPU(s), but its torchrun launch starts 32 processes; "
                          "submit the script without -N/--nodes/--gres/--gpus-per-node, or make "
                          "its directives and its launch agree"});
  options.against = zf::parse_training_command("sbatch job.sh");
  zf::load_launcher_files(*options.against, dir.path());
  EXPECT_TRUE(zf::validate_config(config, options, "ds.json").empty());
}

TEST(SbatchScriptTest, ReportsWhatItCannotReadWithItsPlace) {
  struct Case {
    const char* command;
    const char* expected;
  };
  const Case usage[] = {
      {"sbatch", "error: --against-args: sbatch names no batch script"},
      {"sbatch --parsable -N", "error: --against-args: sbatch -N needs a value"},
      {"sbatch --nodes two job.sh",
       "error: --against-args: sbatch --nodes expects a count, found 'two'"},
      {"sbatch --gpus-per-node=a100:eight job.sh",
       "error: --against-args: sbatch --gpus-per-node expects a count, found 'eight'"},
  };
  for (const auto& c : usage) {
    SCOPED_TRACE(c.command);
    try {
      zf::TrainingCommand cmd = zf::parse_training_command(c.command);
      zf::test::TempDir dir;
      dir.write("job.sh", kHandWritten);
      zf::load_launcher_files(cmd, dir.path());
      ADD_FAILURE() << "expected an error";
    } catch (const zf::Error& e) {
      EXPECT_EQ(e.kind(), zf::ErrorKind::Usage);
      EXPECT_STREQ(e.what(), c.expected);
    }
  }
  zf::test::TempDir dir;
  dir.write("a long directory name/of batch jobs/nothing here.sh",
            "#!/bin/bash\n#SBATCH -N 2\necho hello\n");
  zf::TrainingCommand cmd =
      zf::parse_training_command("sbatch 'a long directory name/of batch jobs/nothing here.sh'");
  try {
    zf::load_launcher_files(cmd, dir.path());
    ADD_FAILURE() << "expected an error";
  } catch (const zf::Error& e) {
    EXPECT_EQ(e.kind(), zf::ErrorKind::Values);
    EXPECT_STREQ(e.what(),
                 "a long directory name/of batch jobs/nothing here.sh: error: no launch found in "
                 "the batch script (an srun, torchrun, deepspeed or accelerate line, or the "
                 "cmd=( ... ) of a zeroforge sbatch script)");
  }
  cmd = zf::parse_training_command("sbatch missing.sh");
  EXPECT_THROW(zf::load_launcher_files(cmd, dir.path()), zf::Error);
}

// The directives as sbatch's own reader takes them (SLURM's src/sbatch/opt.c, get_argument and
// _opt_batch_script): the magic word in the first column only, comments after a value (also
// inside a word), quotes and backslashes, the first component of a heterogeneous job.
TEST(SbatchScriptTest, ReadsTheDirectivesAsSbatchDoes) {
  struct Case {
    const char* name;
    const char* directives;
    long long nodes;
  };
  const Case cases[] = {
      {"an indented #SBATCH is a comment", "#SBATCH --nodes=2\n  #SBATCH --nodes=5\n", 2},
      {"a comment inside a word", "#SBATCH --nodes=3#x\n", 3},
      {"a comment after a value", "#SBATCH --nodes=3 # three\n", 3},
      {"a quoted value", "#SBATCH --nodes '4'\n", 4},
      {"an escaped character", "#SBATCH --nodes=\\5\n", 5},
      {"the old #SLURM", "#SLURM --nodes=6\n", 6},
      {"tabs", "#SBATCH\t--nodes\t7\n", 7},
      {"the first component of a heterogeneous job",
       "#SBATCH --nodes=2\n#SBATCH hetjob\n#SBATCH --nodes=8\n", 2},
      {"an empty word ends the line", "#SBATCH --nodes=2\n#SBATCH '' --nodes=9\n", 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    zf::test::TempDir dir;
    dir.write("job.sh", std::string("#!/bin/bash\n") + c.directives + "srun torchrun --nnodes " +
                            std::to_string(c.nodes) +
                            " --nproc_per_node 8 train.py --deepspeed ds.json\n");
    zf::TrainingCommand cmd = zf::parse_training_command("sbatch job.sh");
    zf::load_launcher_files(cmd, dir.path());
    EXPECT_EQ(cmd.slurm_nodes, c.nodes);
  }
}

// What sbatch refuses before it reads a directive (src/sbatch/sbatch.c), and the directives it
// stops at, are errors located where sbatch stops: exit 2 for validate --against-args.
TEST(SbatchScriptTest, RefusesWhatSbatchRefuses) {
  // A long path (past any small-string buffer) with spaces, as sites name their jobs.
  const std::string kLongScript = "batch jobs of the training team/zero-3 on eight nodes.sh";
  struct Case {
    const char* name;
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"empty", "", kLongScript + ": error: sbatch refuses this batch script: it is empty"},
      {"blank", " \n\n",
       kLongScript + ": error: sbatch refuses this batch script: it holds only whitespace"},
      {"no #!", "#SBATCH -N 2\nsrun true\n",
       kLongScript +
           ":1:1: error: sbatch refuses this batch script: its first line must start with #! "
           "and the path of an interpreter (#!/bin/bash)"},
      {"CRLF", "#!/bin/bash\r\n#SBATCH -N 2\r\nsrun true\r\n",
       kLongScript +
           ":1:12: error: sbatch refuses this batch script: it has DOS line breaks (\\r\\n) "
           "where sbatch expects \\n"},
      {"NUL", std::string("#!/bin/bash\n#SBATCH -N 2\nsrun\0 true\n", 34),
       kLongScript +
           ":3:5: error: sbatch refuses this batch script: it holds a NUL character, which the "
           "Slurm controller does not allow"},
      {"unmatched quote", "#!/bin/bash\n#SBATCH --job-name 'x\nsrun true\n",
       kLongScript + ":2: error: sbatch stops at an unmatched ' in an #SBATCH line"},
      {"a leading ':'", "#!/bin/bash\n#SBATCH :x\nsrun true\n",
       kLongScript + ":2:9: error: sbatch stops at an unexpected ':' in an #SBATCH line"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    zf::test::TempDir dir;
    dir.write(kLongScript, c.text);
    zf::TrainingCommand cmd = zf::parse_training_command("sbatch '" + kLongScript + "'");
    try {
      zf::load_launcher_files(cmd, dir.path());
      ADD_FAILURE() << "expected an error";
    } catch (const zf::Error& e) {
      EXPECT_EQ(e.kind(), zf::ErrorKind::Values);
      EXPECT_EQ(e.what(), c.expected);
    }
  }
}

}  // namespace
