// SPDX-License-Identifier: MIT
// plan_companions (engine/src/generate/companion_plan.cpp): which companions a config gets,
// their paths, `job` (the launch facts and the TrainingArguments that agree with the config)
// and every refusal of the launch values, with its pointer and exact message.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "generate/companions.hpp"
#include "support/plan_subject.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kAll = {"deepspeed", "torchrun", "accelerate",
                                       "hf-args",   "hostfile", "deepspeed-env"};

// A ZeRO-3 bf16 config of 8 GPUs per node, as the built-in template writes one, and its facts.
struct Subject : test::PlanSubject {
  Subject() {
    config = Json::parse(R"({
      "train_batch_size": 256, "train_micro_batch_size_per_gpu": 4,
      "gradient_accumulation_steps": 8, "gradient_clipping": 0.5,
      "bf16": {"enabled": true},
      "optimizer": {"type": "AdamW", "params": {"lr": 0.0003, "betas": [0.9, 0.95], "eps": 1e-08,
                                                 "weight_decay": 0.1}},
      "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 0.0003,
                                                         "warmup_num_steps": 2000,
                                                         "total_num_steps": 250000}},
      "zero_optimization": {"stage": 3}})");
    values = Json::parse(R"({"gpus_per_node": 8, "nodes": 1, "world_size": null})");
    path = "medium/zero3-bf16.json";
    family.clear();
  }
};

std::vector<std::string> kinds_of(const CompanionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& [kind, path] : plan.files) out.push_back(kind);
  return out;
}

TEST(CompanionPlanTest, OneNodeGetsTheAskedKindsButNoHostfileOrEnvironmentFile) {
  Subject s;
  s.values["launch"] = {{"environment", {{"NCCL_DEBUG", "WARN"}}}};
  CompanionPlan plan = s.plan(kAll);
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  using Files = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(plan.files, (Files{{"deepspeed", "medium/zero3-bf16.deepspeed.sh"},
                               {"torchrun", "medium/zero3-bf16.torchrun.sh"},
                               {"accelerate", "medium/zero3-bf16.accelerate.yaml"},
                               {"hf-args", "medium/zero3-bf16.hf-args.json"}}));
  const Json& job = plan.job;
  EXPECT_EQ(job.at("config"), "zero3-bf16.json");
  EXPECT_EQ(job.at("config_path"), "medium/zero3-bf16.json");
  EXPECT_EQ(job.at("config_ref"), "medium/zero3-bf16.json");
  EXPECT_EQ(job.at("nodes"), 1);
  EXPECT_EQ(job.at("gpus_per_node"), 8);
  EXPECT_EQ(job.at("world_size"), 8);
  EXPECT_EQ(job.at("script"), "train.py") << "the default";
  EXPECT_EQ(job.at("args"), Json::array());
  EXPECT_EQ(job.at("master_port"), 29500) << "torch's and DeepSpeed's default port";
  EXPECT_EQ(job.at("hosts"), Json({"placeholder-node-0"}));
  EXPECT_EQ(job.at("placeholder_hosts"), true);
  EXPECT_EQ(job.at("companions"), Json({{"deepspeed", "zero3-bf16.deepspeed.sh"},
                                        {"torchrun", "zero3-bf16.torchrun.sh"},
                                        {"accelerate", "zero3-bf16.accelerate.yaml"},
                                        {"hf-args", "zero3-bf16.hf-args.json"}}));
}

TEST(CompanionPlanTest, TrainingArgumentsAreWhatTheTrainerComparesWithTheConfig) {
  // transformers HfTrainerDeepSpeedConfig.trainer_config_process / _finalize: each config key
  // and the argument it is filled from or compared with.
  Subject s;
  CompanionPlan plan = s.plan({"hf-args"});
  ASSERT_TRUE(plan.problems.empty());
  const Json& c = s.config;
  const Json& params = c["optimizer"]["params"];
  const Json& sched = c["scheduler"]["params"];
  Json expected = {{"deepspeed", s.path},
                   {"per_device_train_batch_size", c["train_micro_batch_size_per_gpu"]},
                   {"gradient_accumulation_steps", c["gradient_accumulation_steps"]},
                   {"bf16", true},
                   {"fp16", false},
                   {"gradient_checkpointing", false},
                   {"max_grad_norm", c["gradient_clipping"]},
                   {"learning_rate", params["lr"]},
                   {"adam_beta1", params["betas"][0]},
                   {"adam_beta2", params["betas"][1]},
                   {"adam_epsilon", params["eps"]},
                   {"weight_decay", params["weight_decay"]},
                   {"warmup_steps", sched["warmup_num_steps"]},
                   {"max_steps", sched["total_num_steps"]}};
  EXPECT_EQ(plan.job.at("hf_args"), expected) << plan.job.at("hf_args").dump(2);
  // Without optimizer and scheduler sections the Trainer makes its own: nothing to agree with.
  s.config.erase("optimizer");
  s.config.erase("scheduler");
  s.config["activation_checkpointing"] = {{"partition_activations", true}};
  Json hf = s.plan({"hf-args"}).job.at("hf_args");
  EXPECT_FALSE(hf.contains("learning_rate"));
  EXPECT_FALSE(hf.contains("warmup_steps"));
  EXPECT_EQ(hf.at("gradient_checkpointing"), true) << "activation checkpointing is on";
}

TEST(CompanionPlanTest, WhereTheConfigSaysAutoTheArgumentsCarryTheValuesItWasMadeFrom) {
  // HF mode: the Trainer fills each "auto" from TrainingArguments, so the arguments must hold
  // the family's values, or it would train with its own defaults (learning rate 5e-5, ...).
  Subject s;
  s.config = Json::parse(R"({
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
    "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                               "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": "auto",
                                                  "warmup_max_lr": "auto",
                                                  "warmup_num_steps": "auto"}}})");
  s.values["gradient_clipping"] = 0.7;
  s.values["optimizer"] = Json::parse(
      R"({"type": "AdamW", "lr": 0.0002, "betas": [0.9, 0.98], "eps": 1e-06, "weight_decay": 0})");
  s.values["scheduler"] =
      Json::parse(R"({"type": "WarmupLR", "warmup_min_lr": 0, "warmup_num_steps": 500})");
  s.facts.precision = "fp16";
  s.facts.hf_auto = true;
  CompanionPlan plan = s.plan({"hf-args"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  Json expected = {{"deepspeed", s.path},
                   {"per_device_train_batch_size", s.facts.micro_batch_size},
                   {"gradient_accumulation_steps", s.facts.gradient_accumulation},
                   {"bf16", false},
                   {"fp16", true},
                   {"gradient_checkpointing", false},
                   {"max_grad_norm", 0.7},
                   {"learning_rate", 0.0002},
                   {"adam_beta1", 0.9},
                   {"adam_beta2", 0.98},
                   {"adam_epsilon", 1e-06},
                   {"weight_decay", 0},
                   {"warmup_steps", 500}};
  EXPECT_EQ(plan.job.at("hf_args"), expected) << plan.job.at("hf_args").dump(2);
}

TEST(CompanionPlanTest, SeveralNodesGetAHostfileWithTheDeepSpeedLaunchAndTheEnvironmentFile) {
  Subject s;
  s.nodes(4);
  EXPECT_EQ(kinds_of(s.plan({"deepspeed"})), (std::vector<std::string>{"deepspeed", "hostfile"}));
  EXPECT_EQ(kinds_of(s.plan({"torchrun"})), std::vector<std::string>{"torchrun"});
  EXPECT_EQ(kinds_of(s.plan({"hostfile"})), std::vector<std::string>{"hostfile"});
  EXPECT_EQ(kinds_of(s.plan({"deepspeed-env"})), std::vector<std::string>{})
      << "no environment, no file";
  s.values["launch"] = Json::parse(R"({"hosts": ["n1", "n2", "n3", "n4", "n5"],
                                       "environment": {"NCCL_DEBUG": "WARN"},
                                       "config_dir": "/shared/configs/"})");
  CompanionPlan plan = s.plan({"deepspeed"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_EQ(kinds_of(plan), (std::vector<std::string>{"deepspeed", "hostfile", "deepspeed-env"}));
  EXPECT_EQ(plan.files[2].second, "medium/zero3-bf16.deepspeed_env");
  EXPECT_EQ(plan.job.at("hosts"), Json({"n1", "n2", "n3", "n4"})) << "the first `nodes` hosts";
  EXPECT_EQ(plan.job.at("placeholder_hosts"), false);
  EXPECT_EQ(plan.job.at("world_size"), 32);
  EXPECT_EQ(plan.job.at("config_ref"), "/shared/configs/medium/zero3-bf16.json");
  EXPECT_EQ(plan.job.at("hf_args").at("deepspeed"), "/shared/configs/medium/zero3-bf16.json");
  s.values["launch"].erase("hosts");
  EXPECT_EQ(s.plan({"hostfile"}).job.at("hosts"),
            Json({"placeholder-node-0", "placeholder-node-1", "placeholder-node-2",
                  "placeholder-node-3"}));
}

TEST(CompanionPlanTest, RefusesLaunchValuesItCannotMakeAConsistentLaunchFrom) {
  struct Case {
    const char* name;
    const char* launch;  // the `launch` value, JSON
    const char* pointer;
    const char* message;
  };
  const Case cases[] = {
      {"not an object", R"("train.py")", "/launch",
       "launch must be an object (script, args, master_port, config_dir, hosts, environment, "
       "style, "
       "slurm, kubernetes) or null, got \"train.py\""},
      {"unknown key", R"({"scipt": "t.py"})", "/launch/scipt",
       "unknown key 'scipt' in launch (expected script, args, master_port, config_dir, hosts, "
       "environment, style, slurm, kubernetes); did you mean 'script'?"},
      {"unknown key, no near one", R"({"python": "python3"})", "/launch/python",
       "unknown key 'python' in launch (expected script, args, master_port, config_dir, hosts, "
       "environment, style, slurm, kubernetes)"},
      {"empty script", R"({"script": ""})", "/launch/script",
       "launch.script must be a non-empty string (the training script), got \"\""},
      // The launchers take the first word after their options as the script: these would be
      // read as their options (another world size, a module) and launch.args[0] as the script.
      {"a launcher's option as the script", R"({"script": "--nproc-per-node=1"})", "/launch/script",
       "launch.script \"--nproc-per-node=1\" starts with '-', so each launcher would read it as "
       "one of its own options rather than as the training script; name the script's file "
       "(./--nproc-per-node=1 for a file whose name starts with '-'); the companions do not "
       "launch a Python module (-m)"},
      {"DeepSpeed's --num_gpus as the script", R"({"script": "--num_gpus=1"})", "/launch/script",
       "launch.script \"--num_gpus=1\" starts with '-', so each launcher would read it as one "
       "of its own options rather than as the training script; name the script's file "
       "(./--num_gpus=1 for a file whose name starts with '-'); the companions do not launch a "
       "Python module (-m)"},
      {"a module", R"({"script": "-m", "args": ["pkg.train"]})", "/launch/script",
       "launch.script \"-m\" starts with '-', so each launcher would read it as one of its own "
       "options rather than as the training script; name the script's file (./-m for a file "
       "whose name starts with '-'); the companions do not launch a Python module (-m)"},
      {"args not a list", R"({"args": "--x 1"})", "/launch/args",
       "launch.args must be a list of strings, got \"--x 1\""},
      {"a newline in args (it would end the accelerate config's comment line and start keys)",
       R"({"args": ["--note", "a\nnum_machines: 1"]})", "/launch/args/1",
       "launch.args: \"a\\nnum_machines: 1\" holds a control character or line break "
       "(U+000A); the companions write the launch on one line (a YAML comment, a shell "
       "command): pass such a value in a file"},
      {"a tab in the script", R"({"script": "train\t.py"})", "/launch/script",
       "launch.script \"train\\t.py\" holds a control character or line break (U+0009); the "
       "companions write the launch on one line"},
      {"a carriage return in config_dir", R"({"config_dir": "cfg\r"})", "/launch/config_dir",
       "launch.config_dir \"cfg\\r\" holds a control character or line break (U+000D); the "
       "companions write the launch on one line"},
      // YAML 1.1 (PyYAML, accelerate's reader) ends the config's comment line at NEL, LS and
      // PS as at a newline, and reads what follows as keys.
      {"NEL in args", R"({"args": ["--note", "a\u0085num_processes: 1"]})", "/launch/args/1",
       "launch.args: \"a\\u0085num_processes: 1\" holds a control character or line break "
       "(U+0085); the companions write the launch on one line (a YAML comment, a shell "
       "command): pass such a value in a file"},
      {"a line separator in the script", R"({"script": "train.py\u2028num_processes: 1"})",
       "/launch/script",
       "launch.script \"train.py\\u2028num_processes: 1\" holds a control character or line "
       "break (U+2028); the companions write the launch on one line"},
      {"a paragraph separator in config_dir",
       R"({"config_dir": "/shared/\u00e9t\u00e9\u2029num_machines: 1"})", "/launch/config_dir",
       "launch.config_dir \"/shared/\u00e9t\u00e9\\u2029num_machines: 1\" holds a control "
       "character or line break (U+2029); the companions write the launch on one line"},
      {"a C1 control (CSI) in args", R"({"args": ["\u009b31m"]})", "/launch/args/0",
       "launch.args: \"\\u009b31m\" holds a control character or line break (U+009B); the "
       "companions write the launch on one line (a YAML comment, a shell command): pass such a "
       "value in a file"},
      {"DEL in the script", R"({"script": "t\u007f.py"})", "/launch/script",
       "launch.script \"t\\u007f.py\" holds a control character or line break (U+007F); the "
       "companions write the launch on one line"},
      {"a number in args", R"({"args": ["--epochs", 3]})", "/launch/args/1",
       "launch.args must be a list of strings (write numbers as strings, \"3\"), got 3"},
      {"a derived flag in args", R"({"args": ["--output_dir", "o", "--bf16"]})", "/launch/args/2",
       "launch.args passes --bf16, which the companions derive from the config and pass "
       "themselves; remove it"},
      {"a derived flag with =", R"({"args": ["--learning_rate=1e-3"]})", "/launch/args/0",
       "launch.args passes --learning_rate, which the companions derive from the config and "
       "pass themselves; remove it"},
      {"port out of range", R"({"master_port": 70000})", "/launch/master_port",
       "launch.master_port must be a port number 1-65535, got 70000"},
      {"empty config_dir", R"({"config_dir": ""})", "/launch/config_dir",
       "launch.config_dir must be a non-empty path or null, got \"\""},
      {"bad host", R"({"hosts": ["n1", "n 2"]})", "/launch/hosts/1",
       "launch.hosts: \"n 2\" is not a host name (letters, digits, '.', '-' and '_', as a "
       "hostfile line and pdsh take it)"},
      // DeepSpeed refuses a hostfile that lists a host twice; host names do not differ by case.
      {"a host twice", R"({"hosts": ["gpu-001", "gpu-002", "gpu-001"]})", "/launch/hosts/2",
       "launch.hosts: \"gpu-001\" is listed twice (also entry 0): DeepSpeed refuses a hostfile "
       "that lists a host twice, and each node runs one launch"},
      {"a host twice in other cases", R"({"hosts": ["node-a.cluster", "n2", "Node-A.Cluster"]})",
       "/launch/hosts/2",
       "launch.hosts: \"Node-A.Cluster\" is listed twice (also entry 0, \"node-a.cluster\"; host "
       "names do not differ by case): DeepSpeed refuses a hostfile that lists a host twice, and "
       "each node runs one launch"},
      {"empty host list", R"({"hosts": []})", "/launch/hosts",
       "launch.hosts must be a non-empty list of host names or null, got []"},
      {"bad variable name", R"({"environment": {"1X": "a"}})", "/launch/environment/1X",
       "launch.environment: \"1X\" is not an environment variable name (letters, digits and "
       "'_', not starting with a digit)"},
      {"a name with a newline, shown escaped", R"({"environment": {"A\nB": "a"}})",
       "/launch/environment/A\nB",
       "launch.environment: \"A\\nB\" is not an environment variable name (letters, digits and "
       "'_', not starting with a digit)"},
      {"a value the remote shell would expand", R"({"environment": {"P": "$HOME/x"}})",
       "/launch/environment/P",
       "launch.environment.P = \"$HOME/x\": DeepSpeed's launcher strips the value and hands it to "
       "the other nodes' shell in double quotes, so it cannot hold '\"', '$', '`' or '\\', nor "
       "begin or end with a space"},
      // Each variable is one line of the scripts and of the environment file.
      {"NUL in a value", R"({"environment": {"NCCL_DEBUG": "WARN\u0000INFO"}})",
       "/launch/environment/NCCL_DEBUG",
       "launch.environment.NCCL_DEBUG = \"WARN\\u0000INFO\" holds a control character or line "
       "break (U+0000); each variable is written on one line (the scripts' export, the "
       "environment file DeepSpeed's launcher reads line by line)"},
      {"a tab in a value", R"({"environment": {"A": "x\ty"}})", "/launch/environment/A",
       "launch.environment.A = \"x\\ty\" holds a control character or line break (U+0009); "
       "each variable is written on one line (the scripts' export, the environment file "
       "DeepSpeed's launcher reads line by line)"},
      {"a carriage return in a value", R"({"environment": {"A": "x\r"}})", "/launch/environment/A",
       "launch.environment.A = \"x\\r\" holds a control character or line break (U+000D); "
       "each variable is written on one line (the scripts' export, the environment file "
       "DeepSpeed's launcher reads line by line)"},
      {"NEL in a value", R"({"environment": {"A": "x\u0085y"}})", "/launch/environment/A",
       "launch.environment.A = \"x\\u0085y\" holds a control character or line break (U+0085); "
       "each variable is written on one line (the scripts' export, the environment file "
       "DeepSpeed's launcher reads line by line)"},
      {"LS in a value", R"({"environment": {"A": "x\u2028"}})", "/launch/environment/A",
       "launch.environment.A = \"x\\u2028\" holds a control character or line break (U+2028); "
       "each variable is written on one line (the scripts' export, the environment file "
       "DeepSpeed's launcher reads line by line)"},
      // bash 5's read-only variables: `export UID=...` stops the script under set -e.
      {"UID", R"({"environment": {"UID": "1000"}})", "/launch/environment/UID",
       "launch.environment: UID is read-only in bash, so the launch scripts would stop at its "
       "export before launching anything; leave it out"},
      {"EUID", R"({"environment": {"EUID": "0"}})", "/launch/environment/EUID",
       "launch.environment: EUID is read-only in bash, so the launch scripts would stop at its "
       "export before launching anything; leave it out"},
      {"PPID", R"({"environment": {"PPID": "1"}})", "/launch/environment/PPID",
       "launch.environment: PPID is read-only in bash, so the launch scripts would stop at its "
       "export before launching anything; leave it out"},
      {"SHELLOPTS", R"({"environment": {"SHELLOPTS": "posix"}})", "/launch/environment/SHELLOPTS",
       "launch.environment: SHELLOPTS is read-only in bash, so the launch scripts would stop at "
       "its export before launching anything; leave it out"},
      {"BASHOPTS", R"({"environment": {"BASHOPTS": "extglob"}})", "/launch/environment/BASHOPTS",
       "launch.environment: BASHOPTS is read-only in bash, so the launch scripts would stop at "
       "its export before launching anything; leave it out"},
      {"BASH_VERSINFO", R"({"environment": {"BASH_VERSINFO": "5"}})",
       "/launch/environment/BASH_VERSINFO",
       "launch.environment: BASH_VERSINFO is read-only in bash, so the launch scripts would stop "
       "at its export before launching anything; leave it out"},
      {"RANDOM", R"({"environment": {"RANDOM": "seed"}})", "/launch/environment/RANDOM",
       "launch.environment: RANDOM is a variable bash computes itself, so the launch scripts "
       "cannot pass a value of it on; leave it out"},
      {"SECONDS", R"({"environment": {"SECONDS": "10"}})", "/launch/environment/SECONDS",
       "launch.environment: SECONDS is a variable bash computes itself, so the launch scripts "
       "cannot pass a value of it on; leave it out"},
      {"the scripts' own here", R"({"environment": {"here": "/tmp"}})", "/launch/environment/here",
       "launch.environment: here is a variable of the launch scripts themselves (here, cmd, "
       "master_addr, rdzv_id, ZEROFORGE_DRY_RUN): set from the environment it would change the "
       "launch; choose another name"},
      {"a list as value", R"({"environment": {"N": [1]}})", "/launch/environment/N",
       "launch.environment.N must be a string, a number or a boolean, got [1]"},
      {"null as value", R"({"environment": {"N": null}})", "/launch/environment/N",
       "launch.environment.N must be a string, a number or a boolean, got null"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.values["launch"] = Json::parse(c.launch);
    CompanionPlan plan = s.plan(kAll);
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

// Numbers and booleans are written as their JSON text (issue #40 §4): what every launcher,
// the environment file and the job objects then carry is that string.
TEST(CompanionPlanTest, EnvironmentNumbersAndBooleansAreTheirJsonText) {
  Subject s;
  s.nodes(2);
  s.values["launch"] = Json::parse(R"({"environment": {"NCCL_DEBUG": "WARN", "NCCL_NTHREADS": 4,
      "TORCH_NCCL_ASYNC_ERROR_HANDLING": true, "RATIO": 0.5, "BIG": 1e-5, "ONE": 1.0}})");
  CompanionPlan plan = s.plan({"deepspeed"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_EQ(plan.job.at("environment"), Json::parse(R"({"NCCL_DEBUG": "WARN", "NCCL_NTHREADS": "4",
                "TORCH_NCCL_ASYNC_ERROR_HANDLING": "true", "RATIO": "0.5", "BIG": "1e-5",
                "ONE": "1.0"})"));
}

TEST(CompanionPlanTest, RefusesEveryVariableTheLaunchScriptsBashHoldsReadOnly) {
  // What this machine's bash holds read-only in a new shell (`declare -r NAME=...`, also -ar,
  // -ir): exporting any of them stops a launch script (set -e) before it launches.
  FILE* pipe = ::popen("env -i bash -c 'readonly -p' 2>/dev/null", "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  if (::pclose(pipe) != 0 || out.empty()) GTEST_SKIP() << "bash is not available";
  std::vector<std::string> names;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string declare, flags, assignment;
    words >> declare >> flags >> assignment;
    if (declare != "declare" || flags.find('r') == std::string::npos) continue;
    names.push_back(assignment.substr(0, assignment.find('=')));
  }
  EXPECT_GE(names.size(), 6u) << out;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    Subject s;
    s.values["launch"] = {{"environment", {{name, "1"}}}};
    CompanionPlan plan = s.plan(kAll);
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, "/launch/environment/" + name);
    EXPECT_EQ(plan.problems[0].message,
              "launch.environment: " + name +
                  " is read-only in bash, so the launch scripts would stop at its export before "
                  "launching anything; leave it out");
  }
}

TEST(CompanionPlanTest, RefusesWhatNoLauncherCanRunAsTheConfigSays) {
  Subject s;
  s.nodes(2);
  s.values["launch"] = {{"hosts", {"only-one"}}};
  CompanionPlan plan = s.plan({"hostfile"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/launch/hosts");
  EXPECT_EQ(plan.problems[0].message,
            "launch.hosts lists 1 host(s), but nodes=2: list at least 2 (the first nodes are "
            "used)");

  Subject dp;  // 8 GPUs, 4 data-parallel ranks
  dp.values["world_size"] = 4;
  dp.facts.world_size = 4;
  plan = dp.plan({"deepspeed"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/world_size");
  EXPECT_EQ(plan.problems[0].message,
            "companions launch one data-parallel process per GPU, gpus_per_node x nodes = 8, but "
            "world_size=4; the launchers cannot start that world (leave world_size out)");

  // A node count beyond any cluster: one placeholder host per node would never end (found by
  // companion_fuzz, tests/fuzz/corpus/companion/regress-nodes-beyond-any-cluster.json).
  Subject many;
  many.values["nodes"] = 3333333333333337;
  many.facts.world_size = 8 * 3333333333333337;
  plan = many.plan(kAll);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/nodes");
  EXPECT_EQ(plan.problems[0].message,
            "companions launch at most 65536 nodes (one hostfile line and one launch each), got "
            "nodes=3333333333333337");
  many.values["nodes"] = 65536;  // the most: planned
  many.facts.world_size = 8 * 65536;
  plan = many.plan({"hostfile"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_EQ(plan.job.at("hosts").size(), 65536u);
  EXPECT_EQ(plan.job.at("hosts").back(), "placeholder-node-65535");
  // A product no 64-bit count holds is refused, not wrapped.
  Subject wide;
  wide.values["gpus_per_node"] = 4611686018427387904;  // 2^62
  wide.values["nodes"] = 4;
  plan = wide.plan({"deepspeed"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/gpus_per_node");
  EXPECT_EQ(plan.problems[0].message,
            "gpus_per_node 4611686018427387904 x nodes 4 is more processes than a launcher can "
            "count");

  Subject lr;  // the Trainer has one --learning_rate for both
  lr.config["scheduler"]["params"]["warmup_max_lr"] = 0.001;
  plan = lr.plan({"torchrun"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/scheduler/warmup_max_lr");
  EXPECT_EQ(plan.problems[0].message,
            "the HF Trainer takes one learning rate (--learning_rate) for optimizer.lr 0.0003 and "
            "scheduler.warmup_max_lr 0.001, and refuses a config where they differ; leave "
            "scheduler.warmup_max_lr out (it follows optimizer.lr) or make them equal");
  EXPECT_TRUE(lr.plan({"hostfile"}).problems.empty()) << "a hostfile has no training arguments";
}

// A fit assumptions record as read_fit_assumptions returns it (the memory plugin's).
FitAssumptions fit_record(const char* checkpointing, const char* loss) {
  return {"memory", checkpointing, "sdpa", loss, 4096};
}

TEST(CompanionPlanTest, AutoFitsAssumptionsJoinTheTrainingArgumentsAndTheEnvironment) {
  Subject s;
  s.fit = fit_record("full", "fused");
  s.values["launch"] = {{"environment", {{"NCCL_DEBUG", "WARN"}}}};
  CompanionPlan plan = s.plan(kAll);
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  const Json& hf = plan.job.at("hf_args");
  EXPECT_EQ(hf.at("gradient_checkpointing"), true) << "the config has no checkpointing section";
  EXPECT_EQ(hf.at("use_liger_kernel"), true);
  EXPECT_EQ(plan.job.at("environment"), Json({{"NCCL_DEBUG", "WARN"},
                                              {"ZEROFORGE_SEQ_LEN", "4096"},
                                              {"ZEROFORGE_ATTN_IMPLEMENTATION", "sdpa"}}))
      << "the user's first, then the fit's";
  // Several nodes: the fit's variables need the environment file DeepSpeed exports.
  s.nodes(2);
  s.values.erase("launch");
  EXPECT_EQ(kinds_of(s.plan({"deepspeed"})),
            (std::vector<std::string>{"deepspeed", "hostfile", "deepspeed-env"}));
  // Without a fit nothing changes.
  Subject plain;
  const Json hf_plain = plain.plan({"hf-args"}).job.at("hf_args");
  EXPECT_EQ(hf_plain.at("gradient_checkpointing"), false);
  EXPECT_FALSE(hf_plain.contains("use_liger_kernel"));
  EXPECT_EQ(plain.plan({"hf-args"}).job.at("environment"), Json::object());
}

TEST(CompanionPlanTest, LaunchValuesThatContradictTheFitAreRefused) {
  struct Case {
    const char* name;
    const char* launch;
    const char* checkpointing;
    const char* pointer;
    const char* message;
  };
  const Case cases[] = {
      {"gradient checkpointing in the script's arguments",
       R"({"args": ["--output_dir", "out", "--gradient_checkpointing"]})", "none", "/launch/args/2",
       "launch.args passes --gradient_checkpointing, which the companions derive from "
       "auto-fit's record and pass themselves (the fit sized the micro batch for it); remove it "
       "and set auto_fit.activation_checkpointing instead"},
      {"liger in the script's arguments", R"({"args": ["--use_liger_kernel=true"]})", "full",
       "/launch/args/0",
       "launch.args passes --use_liger_kernel, which the companions derive from auto-fit's "
       "record and pass themselves (the fit sized the micro batch for it); remove it and set "
       "auto_fit.loss instead"},
      {"a sequence length of the user's", R"({"environment": {"ZEROFORGE_SEQ_LEN": "8192"}})",
       "full", "/launch/environment/ZEROFORGE_SEQ_LEN",
       "launch.environment.ZEROFORGE_SEQ_LEN is written from auto-fit's record, so the launch "
       "runs what the fit sized; leave it out (auto_fit.seq_len sets it)"},
      {"an attention kernel of the user's",
       R"({"environment": {"ZEROFORGE_ATTN_IMPLEMENTATION": "eager"}})", "full",
       "/launch/environment/ZEROFORGE_ATTN_IMPLEMENTATION",
       "launch.environment.ZEROFORGE_ATTN_IMPLEMENTATION is written from auto-fit's record, so "
       "the launch runs what the fit sized; leave it out (auto_fit.attention sets it)"},
      {"selective checkpointing", "null", "selective", "/auto_fit/activation_checkpointing",
       "auto-fit sized this config for selective activation checkpointing (only the attention "
       "core recomputed), which the Hugging Face Trainer cannot do: its gradient_checkpointing "
       "recomputes whole layers (full), and without it every layer's activations stay; choose "
       "full or none, or write only companions without training arguments (hostfile, "
       "deepspeed-env)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.fit = fit_record(c.checkpointing, "hf");
    s.values["launch"] = Json::parse(c.launch);
    CompanionPlan plan = s.plan({"torchrun"});
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

TEST(CompanionPlanTest, SlurmJobHasTheSiteValuesAndTheTiersCpusAndAllMemoryByDefault) {
  Subject s;
  s.values["cpu_memory_gib"] = 1007.6;
  s.values["cpu_cores"] = 224;
  s.family = "llama-7b";
  CompanionPlan plan = s.plan({"slurm"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings[0].message;
  EXPECT_EQ(kinds_of(plan), std::vector<std::string>{"slurm"});
  EXPECT_EQ(plan.files[0].second, "medium/zero3-bf16.sbatch");
  EXPECT_EQ(plan.job.at("slurm"), Json::parse(R"({
    "launcher": "torchrun", "job_name": "llama-7b-medium-zero3-bf16", "partition": null,
    "account": null, "qos": null, "time": null, "constraint": null, "reservation": null,
    "exclusive": false, "cpus_per_task": 224, "memory": "0", "output": null})"))
      << "the one task per node asks for the node's CPUs and all of its memory (--mem=0), "
         "never the tier's MemTotal, which is more than a node's RealMemory";
  s.values.erase("cpu_cores");
  EXPECT_EQ(s.plan({"slurm"}).job.at("slurm").at("cpus_per_task"), nullptr)
      << "without the tier's CPUs, SLURM's default";
  s.values["launch"] = Json::parse(R"({"slurm": {"cpus_per_task": null, "memory": null}})");
  s.values["cpu_cores"] = 224;
  plan = s.plan({"slurm"});
  EXPECT_EQ(plan.job.at("slurm").at("cpus_per_task"), nullptr) << "null leaves it out";
  EXPECT_EQ(plan.job.at("slurm").at("memory"), nullptr) << "null leaves it out";
  s.values.erase("launch");
  EXPECT_FALSE(plan.job.at("hf_args").empty()) << "the sbatch script passes them";
  EXPECT_FALSE(s.plan({"torchrun"}).job.contains("slurm")) << "only for the slurm companion";

  s.values["launch"] = Json::parse(R"({"slurm": {
    "launcher": "accelerate", "job_name": "ft", "partition": "gpu,gpu-spot", "account": "ml",
    "qos": "high", "time": "2-00:00:00", "constraint": "a100&ib", "reservation": "maint",
    "exclusive": true, "cpus_per_task": 96, "memory": 0, "output": "logs/%x-%j.out"}})");
  plan = s.plan({"slurm"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_EQ(kinds_of(plan), (std::vector<std::string>{"accelerate", "slurm"}))
      << "accelerate on each node reads the accelerate config";
  Json expected = s.values["launch"]["slurm"];
  expected["memory"] = "0";
  for (const auto& [key, value] : expected.items()) EXPECT_EQ(plan.job["slurm"][key], value) << key;
}

// A word of launch.args that a launcher's argparse takes for an abbreviation of several of its
// options stops that launcher, though it comes after the script: refused where it is written,
// naming the launchers it stops and the options it could match.
TEST(CompanionPlanTest, RefusesArgumentsALaunchersArgparseReadsAsAmbiguous) {
  struct Case {
    const char* name;
    const char* args;  // launch.args, JSON
    std::vector<std::string> kinds;
    const char* pointer;  // "" for none
    const char* found;    // the launchers and options the message names
  };
  const Case cases[] = {
      {"torchrun, both releases",
       R"(["--rdzv", "x"])",
       {"torchrun"},
       "/launch/args/0",
       "torchrun (torch 1.13) could match --rdzv_backend, --rdzv_endpoint, --rdzv_id, "
       "--rdzv_conf; torchrun (torch 2.x) could match --rdzv-backend, --rdzv_backend, "
       "--rdzv-endpoint, --rdzv_endpoint, --rdzv-id, --rdzv_id, --rdzv-conf, --rdzv_conf"},
      {"torchrun 2.x only",
       R"(["--output_dir", "o", "--node=1"])",
       {"kubernetes"},
       "/launch/args/2",
       "torchrun (torch 2.x) could match --node-rank, --node_rank"},
      {"the SLURM job's torchrun",
       R"(["--max"])",
       {"slurm"},
       "/launch/args/0",
       "torchrun (torch 2.x) could match --max-restarts, --max_restarts"},
      {"deepspeed's runner",
       R"(["--num", "3"])",
       {"deepspeed"},
       "/launch/args/0",
       "deepspeed (DeepSpeed 0.19.6's runner) could match --num_nodes, --num_gpus, "
       "--num_accelerators"},
      {"deepspeed and torchrun",
       R"(["--master=a"])",
       {"deepspeed", "torchrun"},
       "/launch/args/0",
       "torchrun (torch 1.13) could match --master_addr, --master_port; torchrun (torch 2.x) "
       "could match --master-addr, --master_addr, --master-port, --master_port; deepspeed "
       "(DeepSpeed 0.19.6's runner) could match --master_port, --master_addr"},
      {"a -- first: torchrun and the runner leave the rest alone, launch.py does not",
       R"(["--", "--no"])",
       {"torchrun", "deepspeed"},
       "/launch/args/1",
       "deepspeed (DeepSpeed 0.19.6's launch.py on each node) could match --node_rank, "
       "--no_python, --no_local_rank"},
      {"a -- later guards the rest from every launcher",
       R"(["x", "--", "--no"])",
       {"torchrun", "deepspeed"},
       "",
       ""},
      {"accelerate reads no abbreviation", R"(["--n"])", {"accelerate", "hf-args"}, "", ""},
      {"an empty first argument only stops accelerate",
       R"(["", "x"])",
       {"torchrun", "deepspeed", "kubernetes", "hf-args"},
       "",
       ""},
      {"SLURM's accelerate neither", R"(["--n"])", {"slurm"}, "", ""},
      {"full names and unique abbreviations reach the script",
       R"(["--nnodes", "--nn", "--num_nodes=2", "--rdzv x"])",
       {"torchrun", "deepspeed", "kubernetes"},
       "",
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.values["launch"] = {{"args", Json::parse(c.args)},
                          {"kubernetes", {{"image", "pytorch/pytorch"}}}};
    if (std::string(c.name).starts_with("SLURM's accelerate"))
      s.values["launch"]["slurm"] = {{"launcher", "accelerate"}};
    s.values["cpu_cores"] = 64;
    CompanionPlan plan = s.plan(c.kinds);
    if (*c.pointer == '\0') {
      EXPECT_TRUE(plan.problems.empty()) << plan.problems[0].message;
      continue;
    }
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    const std::string word = Json::parse(c.args)[std::stoi(std::string(c.pointer).substr(13))];
    EXPECT_EQ(plan.problems[0].message,
              "launch.args passes " + Json(word).dump() +
                  ", which a launcher's argparse reads as an abbreviation of several of its own "
                  "options, even after the training script, and stops at (\"ambiguous option\") "
                  "before the script starts: " +
                  c.found + "; write the argument in full, as the training script names it");
  }
  // accelerate launch cannot start a script whose first argument is "" or "-".
  for (const char* first : {"", "-"}) {
    for (const std::vector<std::string>& kinds :
         {std::vector<std::string>{"accelerate"}, std::vector<std::string>{"slurm"}}) {
      SCOPED_TRACE(std::string(first) + " " + kinds[0]);
      Subject s;
      s.values["cpu_cores"] = 64;
      s.values["launch"] = {{"args", Json::array({first, "--seed", "1"})},
                            {"slurm", {{"launcher", "accelerate"}}}};
      CompanionPlan plan = s.plan(kinds);
      ASSERT_EQ(plan.problems.size(), 1u);
      EXPECT_EQ(plan.problems[0].pointer, "/launch/args/0");
      EXPECT_EQ(plan.problems[0].message,
                "launch.args starts with " + Json(first).dump() +
                    ", which accelerate launch cannot start a script with: it hands the script's "
                    "arguments to torch's parser as one list (accelerate's _filter_args), and a "
                    "list whose first word is \"\" or \"-\" makes argparse fail (TypeError: "
                    "unhashable type: 'list'); put another argument first");
      s.values["launch"]["args"] = Json::array({"--seed", first});
      EXPECT_TRUE(s.plan(kinds).problems.empty()) << "anywhere but first";
    }
  }

  // The Trainer's arguments the companions pass abbreviate no launcher's options.
  Subject s;
  s.values["cpu_cores"] = 64;
  Json args = Json::array();
  const CompanionPlan hf = s.plan({"hf-args"});  // kept: the loop reads into it
  for (const auto& [key, value] : hf.job.at("hf_args").items()) args.push_back("--" + key);
  for (const char* more : {"--gradient_checkpointing", "--use_liger_kernel"}) args.push_back(more);
  s.values["launch"] = {{"args", args}, {"kubernetes", {{"image", "pytorch/pytorch"}}}};
  CompanionPlan plan = s.plan({"torchrun", "deepspeed", "accelerate", "slurm", "kubernetes"});
  for (const auto& problem : plan.problems)
    EXPECT_EQ(problem.message.find("ambiguous"), std::string::npos) << problem.message;
}

TEST(CompanionPlanTest, WarnsWhereTheSlurmJobGivesItsRanksFewerThanTwoCpusEach) {
  struct Case {
    const char* name;
    const char* values;  // merged into the subject's values (8 GPUs per node)
    const char* pointer;
    const char* message;  // "" for no warning
  };
  const Case cases[] = {
      {"the tier's CPUs, 2 per rank", R"({"cpu_cores": 16})", "", ""},
      {"the tier's CPUs, fewer", R"({"cpu_cores": 12})", "/cpu_cores",
       "the slurm job gives its 8 GPU ranks per node 12 CPUs (cpu_cores=12): fewer than 2 per "
       "rank (one for the rank, one for its data loader); the ranks will wait on their input"},
      {"the site's CPUs win over the tier's", R"({"cpu_cores": 12, "launch": {"slurm":
         {"cpus_per_task": 64}}})",
       "", ""},
      {"the site's CPUs, fewer", R"({"cpu_cores": 224, "launch": {"slurm":
         {"cpus_per_task": 1}}})",
       "/launch/slurm/cpus_per_task",
       "the slurm job gives its 8 GPU ranks per node 1 CPU (launch.slurm.cpus_per_task=1): "
       "fewer than 2 per rank (one for the rank, one for its data loader); the ranks will wait "
       "on their input"},
      {"no CPUs anywhere", R"({})", "",
       "the slurm job runs its 8 GPU ranks per node in one task of SLURM's default 1 CPU: tier "
       "'medium' has no cpu_cores (CPUs per node) to ask for; add cpu_cores to the tier "
       "(zeroforge probe writes it) or set launch.slurm.cpus_per_task"},
      {"no CPUs, but the whole node", R"({"launch": {"slurm": {"exclusive": true}}})", "", ""},
      {"CPUs left out on purpose", R"({"cpu_cores": 224, "launch": {"slurm":
         {"cpus_per_task": null}}})",
       "/launch/slurm/cpus_per_task",
       "the slurm job runs its 8 GPU ranks per node in one task of SLURM's default 1 CPU "
       "(launch.slurm.cpus_per_task is null): fewer than 2 CPUs per rank (one for the rank, one "
       "for its data loader)"},
  };
  const Tier tier{"medium", "tiers/medium.json", Json::parse(R"({"gpus_per_node": 8})")};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.tier = &tier;
    s.values.update(Json::parse(c.values));
    EXPECT_TRUE(s.plan({"torchrun"}).warnings.empty()) << "only where the sbatch is written";
    CompanionPlan plan = s.plan({"slurm"});
    ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
    if (*c.message == '\0') {
      EXPECT_TRUE(plan.warnings.empty()) << plan.warnings[0].message;
      continue;
    }
    ASSERT_EQ(plan.warnings.size(), 1u);
    EXPECT_EQ(plan.warnings[0].pointer, c.pointer);
    EXPECT_EQ(plan.warnings[0].message, c.message);
  }
}

TEST(CompanionPlanTest, RefusesSlurmValuesSbatchWouldMisreadOrTheTierCannotGive) {
  struct Case {
    const char* name;
    const char* slurm;  // the `launch.slurm` value, JSON
    const char* pointer;
    const char* message;
  };
  const Case cases[] = {
      {"not an object", R"("debug")", "/launch/slurm",
       "launch.slurm must be an object (launcher, job_name, partition, account, qos, time, "
       "constraint, reservation, exclusive, cpus_per_task, memory, output) or null, got "
       "\"debug\""},
      {"unknown key", R"({"partiton": "gpu"})", "/launch/slurm/partiton",
       "unknown key 'partiton' in launch.slurm (expected launcher, job_name, partition, account, "
       "qos, time, constraint, reservation, exclusive, cpus_per_task, memory, output); did you "
       "mean 'partition'?"},
      {"launcher", R"({"launcher": "deepspeed"})", "/launch/slurm/launcher",
       "launch.slurm.launcher must be \"torchrun\" or \"accelerate\", got \"deepspeed\""},
      {"partition not a name", R"({"partition": "gpu --exclusive"})", "/launch/slurm/partition",
       "launch.slurm.partition: \"gpu --exclusive\" is not a SLURM name (letters, digits, '_', "
       "'-' and '.', not starting with '-')"},
      {"one of the partitions not a name", R"({"partition": "gpu,a b"})", "/launch/slurm/partition",
       "launch.slurm.partition: \"a b\" is not a SLURM name (letters, digits, '_', '-' and '.', "
       "not starting with '-'), in the list \"gpu,a b\""},
      {"time SLURM cannot parse", R"({"time": "48h"})", "/launch/slurm/time",
       "launch.slurm.time: \"48h\" is not a time limit SLURM reads (minutes, minutes:seconds, "
       "hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or "
       "UNLIMITED)"},
      {"time as a number", R"({"time": 90})", "/launch/slurm/time",
       "launch.slurm.time must be a string or null, got 90"},
      {"output with a space", R"({"output": "my logs/%j.out"})", "/launch/slurm/output",
       "launch.slurm.output: \"my logs/%j.out\" cannot be written as one #SBATCH value (sbatch "
       "splits the line at white space and reads quotes, '\\' and '#' itself): printable ASCII "
       "without them"},
      {"account with a line break", R"({"account": "ml\n#SBATCH --qos=high"})",
       "/launch/slurm/account",
       "launch.slurm.account: \"ml\\n#SBATCH --qos=high\" is not a SLURM name (letters, digits, "
       "'_', '-' and '.', not starting with '-')"},
      {"job name null", R"({"job_name": null})", "/launch/slurm/job_name",
       "launch.slurm.job_name must be a string, got null"},
      {"exclusive", R"({"exclusive": "yes"})", "/launch/slurm/exclusive",
       "launch.slurm.exclusive must be true or false, got \"yes\""},
      {"cpus", R"({"cpus_per_task": 0})", "/launch/slurm/cpus_per_task",
       "launch.slurm.cpus_per_task must be a whole number of CPUs > 0 or null, got 0"},
      {"memory", R"({"memory": "1.5T"})", "/launch/slurm/memory",
       "launch.slurm.memory must be a memory size sbatch's --mem reads (a whole number of MiB, or "
       "with a unit K, M, G or T: \"512G\"; \"0\" is all of a node's memory) or null, got "
       "\"1.5T\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.values["launch"] = {{"slurm", Json::parse(c.slurm)}};
    CompanionPlan plan = s.plan({"torchrun"});
    ASSERT_EQ(plan.problems.size(), 1u) << "checked whichever companions are written";
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }

  // More GPUs per node than the tier's nodes have: SLURM would refuse the job or hold it.
  Subject s;
  s.values["gpus_per_node"] = 16;
  s.facts.world_size = 16;
  Tier tier{"medium", "/opt/zeroforge/share/presets/tiers/medium.json",
            Json::parse(R"({"gpus_per_node": 8, "nodes": 1})")};
  s.tier = &tier;
  EXPECT_TRUE(s.plan({"torchrun"}).problems.empty()) << "a request of SLURM's only";
  CompanionPlan plan = s.plan({"slurm"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/gpus_per_node");
  EXPECT_EQ(plan.problems[0].message,
            "the slurm companion asks each node for gpus_per_node=16 GPUs (--gres=gpu:16), but the "
            "nodes of tier 'medium' have 8 (/opt/zeroforge/share/presets/tiers/medium.json); SLURM "
            "would refuse the job or hold it for ever");
}

// A launch whose strings execve refuses fails with "Argument list too long" on every node
// (issue #36): one string over MAX_ARG_STRLEN, or the launch's words together over the share
// of ARG_MAX the companions take, is refused at the value that is or crosses the limit.
TEST(CompanionPlanTest, RefusesLaunchValuesOverTheSystemsArgumentLimits) {
  const std::string too_long =
      "bytes; Linux starts no program with an argument or environment entry over 131071 bytes "
      "(MAX_ARG_STRLEN, 131072 with its NUL): every launch would fail with \"Argument list too "
      "long\"; pass such a value in a file";
  const std::string total =
      "the launch's script, arguments and environment come to more than 1048576 bytes of the "
      "command line here (each string with its NUL and pointer, as execve counts them): Linux "
      "allows about 2 MiB (ARG_MAX) for them, the launcher's words and the inherited environment "
      "together, so the launch would fail with \"Argument list too long\"; pass the large values "
      "in a file";
  // Nine arguments of 115,000 bytes and the script: each string costs its bytes + 9.
  Json near = Json::array();
  for (int i = 0; i < 9; ++i) near.push_back(std::string(115000, 'a'));
  Json over = near;
  over.push_back(std::string(50000, 'b'));
  struct Case {
    const char* name;
    Json launch;
    std::string pointer;
    std::string message;  // empty: accepted
  };
  const std::vector<Case> cases = {
      {"the longest argument", {{"args", {"--x", std::string(131071, 'a')}}}, "", ""},
      {"one byte more",
       {{"args", {"--x", std::string(131072, 'a')}}},
       "/launch/args/1",
       "launch.args: a string of 131072 " + too_long},
      {"a long script",
       {{"script", std::string(131072, 's')}},
       "/launch/script",
       "launch.script is a string of 131072 " + too_long},
      {"the longest entry", {{"environment", {{"DATA", std::string(131066, 'v')}}}}, "", ""},
      {"an environment entry NAME=VALUE",
       {{"environment", {{"DATA", std::string(131067, 'v')}}}},
       "/launch/environment/DATA",
       "launch.environment.DATA: the entry DATA=VALUE is a string of 131072 " + too_long},
      {"many arguments within the limit", {{"args", near}}, "", ""},
      {"the argument that crosses it", {{"args", over}}, "/launch/args/9", total},
      {"an environment entry that crosses it",
       {{"args", near}, {"environment", {{"A", "1"}, {"BIG", std::string(60000, 'v')}}}},
       "/launch/environment/BIG",
       total},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.values["launch"] = c.launch;
    CompanionPlan plan = s.plan({"torchrun"});
    if (c.message.empty()) {
      EXPECT_TRUE(plan.problems.empty()) << plan.problems[0].message;
      continue;
    }
    ASSERT_EQ(plan.problems.size(), 1u) << plan.problems[1].message;
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

TEST(CompanionPlanTest, PathsSitBesideTheConfig) {
  EXPECT_EQ(companion_path("deepspeed", "a/b.json"), "a/b.deepspeed.sh");
  EXPECT_EQ(companion_path("torchrun", "b.json"), "b.torchrun.sh");
  EXPECT_EQ(companion_path("accelerate", "a/b"), "a/b.accelerate.yaml");
  EXPECT_EQ(companion_path("hf-args", "a/b.cfg.json"), "a/b.cfg.hf-args.json");
  EXPECT_EQ(companion_path("hostfile", "x/.json"), "x/.json.hostfile");
  EXPECT_EQ(companion_path("deepspeed-env", "b.json"), "b.deepspeed_env");
  EXPECT_EQ(companion_path("slurm", "a/b.json"), "a/b.sbatch");
  EXPECT_EQ(companion_template("slurm"), "companions/slurm.sbatch.j2");
  EXPECT_TRUE(companion_is_executable("slurm"));
  EXPECT_EQ(companion_template("accelerate"), "companions/accelerate.yaml.j2");
  EXPECT_TRUE(companion_is_executable("torchrun"));
  EXPECT_FALSE(companion_is_executable("hf-args"));
}

}  // namespace
}  // namespace zf::pipeline
