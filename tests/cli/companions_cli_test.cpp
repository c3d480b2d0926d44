// SPDX-License-Identifier: MIT
// `zeroforge generate --companions` through the real executable: every companion of every
// shipped family passes `zeroforge validate --against-args` against its config, the accelerate
// YAML reads (here and under PyYAML) with exactly the keys accelerate takes, hostfiles have the
// right slots; golden files per kind (tests/golden/companions/); --check, the all-at-once
// write, a team's templates, and the errors with their exact text.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "support/cli_runner.hpp"
#include "validate/yaml_subset.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

const fs::path kSource = ZF_SOURCE_DIR;
const std::string kLaunchKinds = "deepspeed,torchrun,accelerate,hf-args";

// Runs a shell command; its stdout, or nullopt when it fails.
std::optional<std::string> shell(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  if (::pclose(pipe) != 0) return std::nullopt;
  return out;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command line a launch script runs, as bash expands it (ZEROFORGE_DRY_RUN).
std::string dry_run(const fs::path& script) {
  auto out = shell("ZEROFORGE_DRY_RUN=1 MASTER_ADDR=10.0.0.1 bash " + quoted(script.string()));
  EXPECT_TRUE(out.has_value()) << script;
  return out.value_or("");
}

// TrainingArguments JSON as command-line flags, as HfArgumentParser reads both.
std::string flags_of(const Json& args) {
  std::string out;
  for (const auto& [name, value] : args.items()) {
    if (value.is_boolean()) {
      if (value.get<bool>()) out += " --" + name;
    } else {
      out +=
          " --" + name + " " + quoted(value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  return out;
}

std::vector<std::string> shipped_families() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSource / "presets" / "families"))
    names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// accelerate's ClusterConfig fields (BaseConfig's and its own): what `accelerate launch`
// accepts at the top level of its config file, any other key is a ValueError. Copied from
// huggingface/accelerate src/accelerate/commands/config/config_args.py at 16cb6eb80dd9
// (1.15.0.dev0).
const std::set<std::string> kClusterConfigFields = {"compute_environment",
                                                    "distributed_type",
                                                    "mixed_precision",
                                                    "use_cpu",
                                                    "debug",
                                                    "num_processes",
                                                    "machine_rank",
                                                    "num_machines",
                                                    "gpu_ids",
                                                    "main_process_ip",
                                                    "main_process_port",
                                                    "rdzv_backend",
                                                    "same_network",
                                                    "main_training_function",
                                                    "enable_cpu_affinity",
                                                    "fp8_config",
                                                    "deepspeed_config",
                                                    "fsdp_config",
                                                    "parallelism_config",
                                                    "megatron_lm_config",
                                                    "mpirun_config",
                                                    "downcast_bf16",
                                                    "tpu_name",
                                                    "tpu_zone",
                                                    "tpu_use_cluster",
                                                    "tpu_use_sudo",
                                                    "command_file",
                                                    "commands",
                                                    "tpu_vm",
                                                    "tpu_env",
                                                    "dynamo_config"};
// The keys of its `deepspeed_config` that accelerate takes next to a deepspeed_config_file
// (the questions `accelerate config` asks then, commands/config/cluster.py; the others are
// refused by DeepSpeedPlugin._deepspeed_config_checks).
const std::set<std::string> kDeepSpeedConfigKeysWithAFile = {
    "deepspeed_config_file",        "zero3_init_flag",    "deepspeed_moe_layer_cls_names",
    "deepspeed_multinode_launcher", "deepspeed_hostfile", "deepspeed_exclusion_filter",
    "deepspeed_inclusion_filter"};

std::set<std::string> keys_of(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

std::string validate(const fs::path& config, const std::string& command, bool hf) {
  std::vector<std::string> args = {"validate", config.string(), "--against-args", command};
  if (hf) args.push_back("--hf");
  auto result = run_cli(args);
  EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.out << result.err;
  return result.out;
}

TEST(CompanionsCliTest, EveryCompanionOfEveryShippedFamilyPassesValidateAgainstArgs) {
  std::size_t checked = 0, multi_node = 0;
  std::vector<fs::path> yaml_files;
  TempDir dir;
  for (const auto& family : shipped_families()) {
    SCOPED_TRACE(family);
    fs::path out = dir.path() / family;
    auto result = run_cli({"generate", family, "-o", out.string(), "--companions", kLaunchKinds});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    Json manifest = Json::parse(read_file(out / "manifest.json"));
    for (const auto& entry : manifest.at("configs")) {
      const std::string path = entry.at("path");
      SCOPED_TRACE(path);
      const fs::path config = out / path;
      const Json& companions = entry.at("companions");
      const bool hf = entry.at("hf_auto");
      // The facts the companions must carry, re-read from the generated config's manifest
      // entry (world size, GPUs per node from the tier).
      const long long world = entry.at("world_size");
      const Json hf_args =
          Json::parse(read_file(out / companions.at("hf-args").get<std::string>()));
      const std::string flags = flags_of(hf_args);
      EXPECT_EQ(hf_args.at("per_device_train_batch_size"), entry.at("micro_batch_size"));
      EXPECT_EQ(hf_args.at("gradient_accumulation_steps"), entry.at("gradient_accumulation"));
      EXPECT_EQ(hf_args.at("bf16"), entry.at("precision") == "bf16");
      EXPECT_EQ(hf_args.at("fp16"), entry.at("precision") == "fp16");

      for (const char* script : {"deepspeed", "torchrun"}) {
        fs::path file = out / companions.at(script).get<std::string>();
        struct stat info {};
        ASSERT_EQ(::stat(file.c_str(), &info), 0);
        EXPECT_NE(info.st_mode & S_IXUSR, 0u) << file << " is executable";
        validate(config, dry_run(file), hf);
        ++checked;
      }
      // The YAML with the launch line its header gives (run from DIR, as the paths in it
      // are), and as accelerate launch reads it with the same arguments as flags.
      const fs::path yaml = out / companions.at("accelerate").get<std::string>();
      yaml_files.push_back(yaml);
      const std::string header = read_file(yaml);
      const auto line = header.find("\n# accelerate launch ");
      ASSERT_NE(line, std::string::npos) << header;
      const std::string launch = header.substr(line + 3, header.find('\n', line + 1) - line - 3);
      const std::string precision = entry.at("precision") == "fp32" ? "no" : entry.at("precision");
      EXPECT_NE(launch.find(" --mixed_precision " + precision + " "), std::string::npos) << launch;
      {
        std::vector<std::string> args = {"validate", path, "--against-args", launch};
        if (hf) args.push_back("--hf");
        auto result = run_cli(args, out);
        EXPECT_EQ(result.exit_code, 0) << launch << "\n" << result.out << result.err;
      }
      validate(config,
               "accelerate launch --config_file " + quoted(yaml.string()) + " --mixed_precision " +
                   precision + " train.py" + flags,
               hf);
      // The arguments file as flags, under a launcher of the config's world size.
      validate(config, "torchrun --nproc_per_node " + std::to_string(world) + " train.py" + flags,
               hf);
      checked += 3;

      Json accelerate = validate::parse_yaml_subset(read_file(yaml), yaml.string());
      std::set<std::string> expected_keys = {
          "compute_environment", "debug",         "deepspeed_config",
          "distributed_type",    "machine_rank",  "main_process_port",
          "num_machines",        "num_processes", "rdzv_backend",
          "same_network",        "use_cpu"};
      const long long nodes = accelerate.at("num_machines");
      if (nodes > 1) expected_keys.insert("main_process_ip");
      EXPECT_EQ(keys_of(accelerate), expected_keys);
      for (const auto& key : keys_of(accelerate))
        EXPECT_TRUE(kClusterConfigFields.count(key)) << key << " is no ClusterConfig field";
      for (const auto& key : keys_of(accelerate.at("deepspeed_config")))
        EXPECT_TRUE(kDeepSpeedConfigKeysWithAFile.count(key)) << key;
      EXPECT_EQ(accelerate.at("distributed_type"), "DEEPSPEED");
      EXPECT_EQ(accelerate.at("num_processes"), world);
      EXPECT_EQ(world % nodes, 0);

      // A hostfile for several nodes only: `host slots=GPUs per node`, one line per node, and a
      // DeepSpeed launch from it alone (its slots give the world) agrees with the config.
      EXPECT_EQ(companions.contains("hostfile"), nodes > 1);
      if (nodes > 1) {
        ++multi_node;
        const fs::path hostfile = out / companions.at("hostfile").get<std::string>();
        std::size_t hosts = 0;
        std::istringstream lines(read_file(hostfile));
        for (std::string line; std::getline(lines, line);) {
          if (line.empty() || line[0] == '#') continue;
          ++hosts;
          EXPECT_EQ(line.substr(line.find(' ')), " slots=" + std::to_string(world / nodes)) << line;
        }
        EXPECT_EQ(static_cast<long long>(hosts), nodes);
        validate(config, "deepspeed --hostfile " + quoted(hostfile.string()) + " train.py" + flags,
                 hf);
        ++checked;
      }
    }
  }
  EXPECT_GT(multi_node, 0u) << "the shipped families have multi-node tiers";
  EXPECT_EQ(checked, 5 * yaml_files.size() + multi_node)
      << "5 launches per config, 6 with a hostfile";

  // PyYAML reads every YAML as the C++ reader does (when Python has yaml).
  if (!shell("python3 -c 'import yaml' 2>/dev/null")) {
    std::cerr << "[  SKIPPED ] PyYAML comparison: python3 with yaml is not available\n";
    return;
  }
  std::string command =
      "python3 -c 'import json, sys, yaml; print(json.dumps([yaml.safe_load(open(f)) for f in "
      "sys.argv[1:]]))'";
  for (const auto& file : yaml_files) command += " " + quoted(file.string());
  auto python = shell(command);
  ASSERT_TRUE(python.has_value());
  Json loaded = Json::parse(*python);
  ASSERT_EQ(loaded.size(), yaml_files.size());
  for (std::size_t i = 0; i < yaml_files.size(); ++i) {
    EXPECT_EQ(loaded[i], validate::parse_yaml_subset(read_file(yaml_files[i]), "y"))
        << yaml_files[i];
  }
}

TEST(CompanionsCliTest, EverySlurmScriptOfEveryShippedFamilyPassesValidateAgainstSbatch) {
  // `validate --against-args "sbatch SCRIPT"` reads the script's directives and its launch, as
  // the job runs it from DIR, with torchrun and with accelerate on the nodes.
  TempDir dir;
  std::size_t checked = 0, refused = 0;
  for (const auto& family : shipped_families()) {
    for (const char* launcher : {"torchrun", "accelerate"}) {
      SCOPED_TRACE(family + " " + launcher);
      fs::path out = dir.path() / (family + "-" + launcher);
      auto result = run_cli({"generate", family, "-o", out.string(), "--companions", "slurm",
                             "--set", std::string("launch.slurm.launcher=") + launcher});
      ASSERT_EQ(result.exit_code, 0) << result.err;
      Json manifest = Json::parse(read_file(out / "manifest.json"));
      for (const auto& entry : manifest.at("configs")) {
        const std::string path = entry.at("path");
        const std::string script = entry.at("companions").at("slurm");
        std::vector<std::string> args = {"validate", path, "--against-args", "sbatch " + script};
        if (entry.at("hf_auto") == true) args.push_back("--hf");
        auto valid = run_cli(args, out);
        EXPECT_EQ(valid.exit_code, 0) << script << "\n" << valid.out << valid.err;
        ++checked;
        // sbatch -N on the command line wins over the script's --nodes: another world (99
        // nodes of any GPU count are no shipped tier's).
        args[3] = "sbatch -N 99 " + script;
        auto other = run_cli(args, out);
        EXPECT_EQ(other.exit_code, 1) << script << "\n" << other.out << other.err;
        EXPECT_NE(other.out.find("error [args-world-size]: sbatch " + script +
                                 " asks SLURM for 99 node(s)"),
                  std::string::npos)
            << other.out;
        ++refused;
      }
    }
  }
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(refused, checked);
}

// tests/golden/companions/CASE/family.json, generated, against CASE/expected/ (every file,
// the manifest too). ZF_UPDATE_GOLDEN=1 rewrites expected/ (review the diff).
TEST(CompanionsCliTest, MatchesTheGoldenFilesOfEachKind) {
  const fs::path golden = kSource / "tests" / "golden" / "companions";
  const bool update = std::getenv("ZF_UPDATE_GOLDEN") != nullptr;
  std::size_t cases = 0;
  std::set<std::string> kinds;
  for (const auto& entry : fs::directory_iterator(golden)) {
    const fs::path dir = entry.path();
    SCOPED_TRACE(dir.filename().string());
    ++cases;
    TempDir tmp;
    const fs::path out = tmp.path() / "out";
    auto result = run_cli({"generate", "family.json", "-o", out.string()}, dir);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const fs::path expected = dir / "expected";
    if (update) {
      fs::remove_all(expected);
      fs::copy(out, expected, fs::copy_options::recursive);
    }
    std::set<std::string> made, wanted;
    for (const auto& f : fs::recursive_directory_iterator(out))
      if (f.is_regular_file()) made.insert(f.path().lexically_relative(out).generic_string());
    for (const auto& f : fs::recursive_directory_iterator(expected))
      if (f.is_regular_file())
        wanted.insert(f.path().lexically_relative(expected).generic_string());
    EXPECT_EQ(made, wanted);
    for (const auto& path : wanted) {
      if (!made.count(path)) continue;
      const std::string got = read_file(out / path), want = read_file(expected / path);
      if (got == want) continue;
      std::istringstream a(got), b(want);
      std::string la, lb;
      for (int line = 1;; ++line) {
        bool more_a = static_cast<bool>(std::getline(a, la));
        bool more_b = static_cast<bool>(std::getline(b, lb));
        if (la != lb || more_a != more_b) {
          ADD_FAILURE() << path << ":" << line << ": got\n  " << la << "\nexpected\n  " << lb;
          break;
        }
      }
    }
    Json manifest = Json::parse(read_file(out / "manifest.json"));
    for (const auto& config : manifest.at("configs"))
      for (const auto& [kind, path] : config.at("companions").items()) kinds.insert(kind);
  }
  EXPECT_GE(cases, 2u);
  EXPECT_EQ(kinds, (std::set<std::string>{"deepspeed", "torchrun", "accelerate", "hf-args",
                                          "hostfile", "deepspeed-env", "slurm", "kubernetes"}))
      << "every kind has a golden file";
}

class CompanionsGenerateTest : public ::testing::Test {
 protected:
  fs::path out() const { return dir.path() / "out"; }
  std::string family(const std::string& text) const {
    return dir.write("family.json", text).string();
  }
  TempDir dir;
};

constexpr const char* kFamily = R"({
  "name": "c", "template": "deepspeed/config.json.j2",
  "values": {"global_batch_size": 512, "launch": {"args": ["--output_dir", "run 1"]}},
  "axes": {"stage": [2, 3]},
  "tiers": ["medium", "large"],
  "companions": ["deepspeed", "hf-args"]
})";

// Too few CPUs for a SLURM job's ranks is a warning, said once for all the configs that share
// the value, at the file that set it; the files are written all the same.
TEST_F(CompanionsGenerateTest, SlurmJobsWithFewerThanTwoCpusPerRankWarnOnceWhereTheValueIs) {
  const fs::path tier = dir.write("tiers/dgx.json", R"({"gpus_per_node": 8, "nodes": 1,
      "gpu_memory_gib": 79.64, "cpu_memory_gib": 2015.6, "cpu_cores": 8})");
  dir.write("tiers/bare.json", R"({"gpus_per_node": 8, "nodes": 1})");
  const std::string f = family(R"({"name": "c", "template": "deepspeed/config.json.j2",
      "axes": {"stage": [2, 3]}, "tiers": ["tiers/dgx.json", "tiers/bare.json"],
      "output": "{{ tier }}/{{ variant }}.json", "companions": ["slurm"]})");
  auto result = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err,
            tier.string() +
                ": /cpu_cores: warning: the slurm job gives its 8 GPU ranks per node 8 CPUs "
                "(cpu_cores=8): fewer than 2 per rank (one for the rank, one for its data "
                "loader); the ranks will wait on their input [companion.slurm-cpus]\n" +
                (dir.path() / "tiers/bare.json").string() +
                ": warning: the slurm job runs its 8 GPU ranks per node in one task of SLURM's "
                "default 1 CPU: tier 'bare' has no cpu_cores (CPUs per node) to ask for; add "
                "cpu_cores to the tier (zeroforge probe writes it) or set "
                "launch.slurm.cpus_per_task [companion.slurm-cpus]\n");
  EXPECT_NE(read_file(out() / "dgx/stage-2.sbatch").find("#SBATCH --cpus-per-task=8\n"),
            std::string::npos);
  EXPECT_EQ(read_file(out() / "bare/stage-2.sbatch").find("--cpus-per-task"), std::string::npos);
  // Where launch.slurm asks for enough, nothing is said; --set places a warning at itself.
  auto enough =
      run_cli({"generate", f, "-o", out().string(), "--set", "launch.slurm.cpus_per_task=16"});
  EXPECT_EQ(enough.exit_code, 0) << enough.err;
  EXPECT_EQ(enough.err, "");
  auto few =
      run_cli({"generate", f, "-o", out().string(), "--set", "launch.slurm.cpus_per_task=4"});
  EXPECT_EQ(few.exit_code, 0) << few.err;
  EXPECT_EQ(few.err,
            "--set launch.slurm.cpus_per_task=4: /launch/slurm/cpus_per_task: warning: the slurm "
            "job gives its 8 GPU ranks per node 4 CPUs (launch.slurm.cpus_per_task=4): fewer "
            "than 2 per rank (one for the rank, one for its data loader); the ranks will wait on "
            "their input [companion.slurm-cpus]\n");
}

TEST_F(CompanionsGenerateTest, ListsCompanionsPerEntryAndWritesThemDeterministically) {
  std::string f = family(kFamily);
  auto result = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "zeroforge: wrote 4 configs and 10 companion files of family 'c' to " +
                            out().string() + " (index: " + (out() / "manifest.json").string() +
                            ")\n");
  Json manifest = Json::parse(read_file(out() / "manifest.json"));
  const Json& large = manifest.at("configs").at(0);
  EXPECT_EQ(large.at("path"), "large/stage-2.json");
  EXPECT_EQ(large.at("companions"), Json({{"deepspeed", "large/stage-2.deepspeed.sh"},
                                          {"hf-args", "large/stage-2.hf-args.json"},
                                          {"hostfile", "large/stage-2.hostfile"}}));
  EXPECT_EQ(manifest.at("configs").at(2).at("companions"),
            Json({{"deepspeed", "medium/stage-2.deepspeed.sh"},
                  {"hf-args", "medium/stage-2.hf-args.json"}}));
  auto again = run_cli({"generate", f, "-o", (dir.path() / "again").string()});
  ASSERT_EQ(again.exit_code, 0);
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(out())) {
    if (!entry.is_regular_file()) continue;
    ++files;
    auto relative = entry.path().lexically_relative(out());
    EXPECT_EQ(read_file(entry.path()), read_file(dir.path() / "again" / relative)) << relative;
    struct stat a {
    }, b{};
    ::stat(entry.path().c_str(), &a);
    ::stat((dir.path() / "again" / relative).c_str(), &b);
    EXPECT_EQ(a.st_mode, b.st_mode) << relative;
    EXPECT_EQ((a.st_mode & 0111) != 0, relative.string().ends_with(".sh")) << relative;
  }
  EXPECT_EQ(files, 15u);
  // --format json counts them.
  auto json = run_cli({"generate", f, "-o", out().string(), "--format", "json"});
  EXPECT_EQ(Json::parse(json.out).at("companions"), 10);
}

TEST_F(CompanionsGenerateTest, CheckReportsMissingChangedAndNonExecutableCompanions) {
  std::string f = family(kFamily);
  ASSERT_EQ(run_cli({"generate", f, "-o", out().string()}).exit_code, 0);
  auto clean = run_cli({"generate", f, "-o", out().string(), "--check"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_EQ(clean.out, "zeroforge: " + out().string() +
                           " is up to date (4 configs and 10 companion files of family 'c')\n");
  fs::remove(out() / "medium/stage-3.hf-args.json");
  {
    std::ofstream append(out() / "large/stage-2.hostfile", std::ios::app);
    append << "extra-node slots=8\n";
  }
  fs::permissions(out() / "medium/stage-2.deepspeed.sh",
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::remove);
  auto drift = run_cli({"generate", f, "-o", out().string(), "--check"});
  EXPECT_EQ(drift.exit_code, 1);
  EXPECT_EQ(drift.out, out().string() + "/medium/stage-3.hf-args.json: missing\n" + out().string() +
                           "/large/stage-2.hostfile: changed\n" + out().string() +
                           "/medium/stage-2.deepspeed.sh: changed\n");
  // Regenerating repairs all three, the execute bit included.
  ASSERT_EQ(run_cli({"generate", f, "-o", out().string()}).exit_code, 0);
  EXPECT_EQ(run_cli({"generate", f, "-o", out().string(), "--check"}).exit_code, 0);
  // Without companions, those of the previous run are the old manifest's and go.
  auto none = run_cli({"generate", f, "-o", out().string(), "--companions", "none"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(out()))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 5u) << "4 configs and the manifest";
  auto extra =
      run_cli({"generate", f, "-o", out().string(), "--check", "--companions", "torchrun"});
  EXPECT_EQ(extra.exit_code, 1);
  EXPECT_NE(extra.out.find("/large/stage-2.torchrun.sh: missing"), std::string::npos);
}

TEST_F(CompanionsGenerateTest, ACompanionThatFailsLeavesTheDirectoryAsItWas) {
  std::string f = family(kFamily);
  ASSERT_EQ(run_cli({"generate", f, "-o", out().string()}).exit_code, 0);
  const std::string before = read_file(out() / "manifest.json");
  dir.write("team/companions/hostfile.j2", "{{ job.no_such_fact }}\n");
  auto result = run_cli({"generate", f, "-o", out().string(), "--template-dir",
                         (dir.path() / "team").string(), "--companions", "deepspeed,torchrun"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("'dict object' has no attribute 'no_such_fact'"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("while rendering the companions of variant 'large stage=2'"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(read_file(out() / "manifest.json"), before);
  EXPECT_FALSE(fs::exists(out() / "medium/stage-2.torchrun.sh")) << "no half-set";
}

TEST_F(CompanionsGenerateTest, ATeamOverridesAPartialFromItsTemplateDir) {
  std::string f = family(kFamily);
  // The team's script head: the built-in one, plus its module line.
  std::string head = read_file(kSource / "templates/companions/partials/script_head.sh.j2");
  dir.write("team/companions/partials/script_head.sh.j2", head + "\nmodule load cuda/12.4");
  auto result = run_cli({"generate", f, "-o", out().string(), "--template-dir",
                         (dir.path() / "team").string(), "--companions", "deepspeed,torchrun"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* script : {"medium/stage-3.deepspeed.sh", "large/stage-3.torchrun.sh"}) {
    std::string text = read_file(out() / script);
    EXPECT_NE(text.find("\nmodule load cuda/12.4\n"), std::string::npos) << script;
  }
}

TEST_F(CompanionsGenerateTest, SiteProfileHostsAndEnvironmentReachTheLaunch) {
  dir.write("site.json", R"({"hosts": ["gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f",
                                        "gpu-g", "gpu-h"],
                             "environment": {"NCCL_SOCKET_IFNAME": "ib0", "NCCL_DEBUG": "WARN"}})");
  std::string f = family(R"({
    "name": "s", "template": "deepspeed/config.json.j2", "values": {"global_batch_size": 512},
    "tiers": ["large"], "plugins": [{"name": "site_fields", "options": {"profile": "site.json"}}],
    "companions": ["deepspeed", "torchrun"]})");
  auto result = run_cli({"generate", "family.json", "-o", out().string()}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_file(out() / "large/config.deepspeed_env"),
            "NCCL_SOCKET_IFNAME=ib0\nNCCL_DEBUG=WARN\n");
  std::string hostfile = read_file(out() / "large/config.hostfile");
  EXPECT_NE(hostfile.find("\ngpu-a slots=8\ngpu-b slots=8\n"), std::string::npos) << hostfile;
  EXPECT_EQ(hostfile.find("placeholder"), std::string::npos);
  std::string deepspeed = read_file(out() / "large/config.deepspeed.sh");
  EXPECT_NE(deepspeed.find("\nexport DS_ENV_FILE=\"$here\"/config.deepspeed_env\n"),
            std::string::npos);
  EXPECT_NE(deepspeed.find("\nexport NCCL_SOCKET_IFNAME=ib0\n"), std::string::npos);
  std::string torchrun = read_file(out() / "large/config.torchrun.sh");
  EXPECT_NE(torchrun.find("master_addr=\"${MASTER_ADDR:-gpu-a}\""), std::string::npos) << torchrun;
  // torchrun without MASTER_ADDR: the first host.
  auto command =
      shell("ZEROFORGE_DRY_RUN=1 bash " + quoted((out() / "large/config.torchrun.sh").string()));
  ASSERT_TRUE(command.has_value());
  EXPECT_NE(command->find("--rdzv_endpoint gpu-a:29500"), std::string::npos) << *command;
}

// The words a launch script runs: its dry run (printf %q), read back by bash.
std::vector<std::string> dry_run_words(const fs::path& script, const std::vector<std::string>& args,
                                       const fs::path& cwd) {
  std::string command = "cd " + quoted(cwd.string()) +
                        " && MASTER_ADDR=10.0.0.1 bash -c 'out=$(ZEROFORGE_DRY_RUN=1 bash \"$0\" "
                        "\"$@\") || exit $?; eval \"words=($out)\"; printf \"%s\\0\" "
                        "\"${words[@]}\"' " +
                        quoted(script.string());
  for (const auto& arg : args) command += " " + quoted(arg);
  auto out = shell(command);
  EXPECT_TRUE(out.has_value()) << script;
  std::vector<std::string> words;
  std::string text = out.value_or("");
  for (std::size_t start = 0, end; (end = text.find('\0', start)) != std::string::npos;
       start = end + 1)
    words.push_back(text.substr(start, end - start));
  return words;
}

// What DeepSpeed 0.19.6 does to a training argument before pdsh (multinode_runner.py,
// PDSHRunner.parse_user_args): one with a space is put in double quotes, '"' escaped.
std::string deepspeed_user_arg(const std::string& arg) {
  if (arg.find(' ') == std::string::npos) return arg;
  std::string out = "\"";
  for (char c : arg) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out + "\"";
}

// What pdsh's ssh module does to each word (chaos/pdsh src/common/pipecmd.c,
// pipecmd_format_arg): %h is the host, %u the user, %n the node's rank, %% a '%'.
std::string pdsh_word(const std::string& word, const std::string& host, int rank) {
  std::string out;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '%' || i + 1 == word.size()) {
      out += word[i];
      continue;
    }
    char c = word[++i];
    out += c == 'h'   ? host
           : c == 'u' ? "zf"
           : c == 'n' ? std::to_string(rank)
           : c == '%' ? "%"
                      : std::string("%") + c;
  }
  return out;
}

TEST_F(CompanionsGenerateTest, ArgumentsReachTheTrainingScriptAsWrittenThroughEveryLauncher) {
  // Text a shell, pdsh or DeepSpeed's quoting would change: the family's launch.args and the
  // script's own arguments must both arrive as written, on one node and on several.
  const std::vector<std::string> hostile = {
      "it's",        "$HOME", "`id`", "$(id) x", "a \"b\" c", "back\\slash", "\\\" q",
      "100%n %h %%", "%u",    "*",    "~",       "",          "a;b|c&d>e<f", " "};
  Json launch_args = Json::array();
  for (const auto& arg : hostile) launch_args.push_back(arg);
  Json values = {
      {"global_batch_size", 512},
      {"launch",
       {{"script", "scripts/my train.py"},
        {"args", launch_args},
        {"hosts", {"gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f", "gpu-g", "gpu-h"}},
        {"environment", {{"ZF_NOTE", "a b,c=d%n"}}}}}};
  Json family_json = {{"name", "h"},
                      {"template", "deepspeed/config.json.j2"},
                      {"values", values},
                      {"tiers", {"medium", "large"}},
                      {"companions", {"deepspeed", "torchrun"}}};
  std::string f = family(family_json.dump());
  ASSERT_EQ(run_cli({"generate", f, "-o", out().string()}).exit_code, 0);
  const fs::path cwd = dir.path() / "run";
  fs::create_directories(cwd);
  const std::vector<std::string> script_args = {"--run_name", "it's $HOME", "%n", "", "*"};

  // torchrun and the one-node deepspeed script exec the launcher: no shell reads the words.
  std::vector<std::string> wanted;
  for (const char* script :
       {"large/config.torchrun.sh", "medium/config.torchrun.sh", "medium/config.deepspeed.sh"}) {
    SCOPED_TRACE(script);
    std::vector<std::string> words = dry_run_words(out() / script, script_args, cwd);
    auto at = std::find(words.begin(), words.end(), "scripts/my train.py");
    ASSERT_NE(at, words.end());
    std::vector<std::string> training(at, words.end());
    ASSERT_GE(training.size(), 1 + hostile.size() + script_args.size());
    EXPECT_EQ(std::vector<std::string>(training.begin() + 1, training.begin() + 1 + hostile.size()),
              hostile);
    EXPECT_EQ(std::vector<std::string>(training.end() - script_args.size(), training.end()),
              script_args);
    if (std::string(script).starts_with("large/")) wanted = training;
  }

  // Several nodes: deepspeed hands the words to pdsh, which runs them on each node's shell as one
  // line. That step, done here as DeepSpeed and pdsh do it, with bash as the remote shell.
  std::vector<std::string> words =
      dry_run_words(out() / "large/config.deepspeed.sh", script_args, cwd);
  ASSERT_GT(words.size(), 9u);
  EXPECT_EQ(std::vector<std::string>(words.begin(), words.begin() + 9),
            (std::vector<std::string>{"deepspeed", "--num_nodes", "8", "--num_gpus", "8",
                                      "--hostfile", (out() / "large/config.hostfile").string(),
                                      "--master_port", "29500"}));
  std::string exports;
  {
    std::string env = read_file(out() / "large/config.deepspeed_env");
    EXPECT_EQ(env, "ZF_NOTE=a b,c=d%%n\n");
    // runner.py add_export: stripped, and double-quoted as it holds a space.
    exports = "export ZF_NOTE=\"" + env.substr(8, env.size() - 9) + "\";";
  }
  for (int rank : {0, 5}) {
    const std::string host = "gpu-" + std::string(1, static_cast<char>('a' + rank));
    std::string line = pdsh_word(exports, host, rank) + " printf '%s\\0' \"$ZF_NOTE\"";
    line += " " + pdsh_word(words[9], host, rank);  // the script: DeepSpeed passes it as it is
    for (std::size_t i = 10; i < words.size(); ++i)
      line += " " + pdsh_word(deepspeed_user_arg(words[i]), host, rank);
    auto arrived =
        shell("cd " + quoted(cwd.string()) +
              " && env -i PATH=\"$PATH\" HOME=/nonexistent bash -c " + quoted(std::as_const(line)));
    ASSERT_TRUE(arrived.has_value()) << line;
    std::vector<std::string> got;
    for (std::size_t start = 0, end; (end = arrived->find('\0', start)) != std::string::npos;
         start = end + 1)
      got.push_back(arrived->substr(start, end - start));
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.front(), "a b,c=d%n") << "the environment, on node " << rank;
    EXPECT_EQ(std::vector<std::string>(got.begin() + 1, got.end()), wanted)
        << "on node " << rank << ", the line " << line;
  }

  // The one thing it cannot quote: DeepSpeed writes `cd $PWD` into that line as it is.
  const fs::path odd = dir.path() / "a dir";
  fs::create_directories(odd);
  auto refused =
      shell("cd " + quoted(odd.string()) + " && PATH=/nonexistent /bin/bash " +
            quoted((out() / "large/config.deepspeed.sh").string()) + " 2>&1; echo \" exit $?\"");
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->find("DeepSpeed's launcher writes 'cd " + odd.string() +
                          "' unquoted into the command each node's shell runs"),
            std::string::npos)
      << *refused;
  EXPECT_TRUE(refused->ends_with(" exit 2\n")) << *refused;
}

TEST_F(CompanionsGenerateTest, YamlLineBreaksInLaunchValuesOrThePathAreRefusedWithTheirPlace) {
  // U+2028 (or NEL, PS) would end the accelerate config's header comment for PyYAML, which
  // would then read `mixed_precision: fp16` as a key (issue 22).
  std::string args = family(R"({
    "name": "c", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 512,
               "launch": {"args": ["--note", "x\u2028mixed_precision: fp16\u2028#"]}},
    "tiers": ["medium"], "companions": ["accelerate"]})");
  auto refused = run_cli({"generate", args, "-o", out().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            args +
                ": /values/launch/args/1: error: variant 'medium': launch.args: "
                "\"x\\u2028mixed_precision: fp16\\u2028#\" holds a control character or line "
                "break (U+2028); the companions write the launch on one line (a YAML comment, a "
                "shell command): pass such a value in a file [companion.values]\n"
                "zeroforge: error: family 'c' not generated; nothing was written "
                "[generate.not-generated]\n");
  std::string path = family(R"({
    "name": "c", "template": "deepspeed/config.json.j2", "values": {"global_batch_size": 512},
    "output": "{{ tier }}/z3\u0085num_processes: 1.json",
    "tiers": ["medium"], "companions": ["accelerate"]})");
  refused = run_cli({"generate", path, "-o", out().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, path +
                             ": /output: error: variant 'medium': output path "
                             "\"medium/z3\\u0085num_processes: 1.json\" contains a control "
                             "character or line break (U+0085) [output.path]\n"
                             "zeroforge: error: family 'c' not generated; nothing was written "
                             "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(CompanionsGenerateTest, SiteProfileHostsListedTwiceAreRefusedAtTheirEntry) {
  // The profile's hosts become launch.hosts (a plugin layer): a host listed twice, here in
  // another case, would be written twice to the hostfile, which DeepSpeed refuses.
  dir.write("site.json", R"({"hosts": ["gpu-a", "gpu-b", "GPU-A", "gpu-d"]})");
  family(R"({
    "name": "s", "template": "deepspeed/config.json.j2", "values": {"global_batch_size": 512},
    "tiers": ["large"], "plugins": [{"name": "site_fields", "options": {"profile": "site.json"}}],
    "companions": ["deepspeed"]})");
  auto result = run_cli({"generate", "family.json", "-o", out().string()}, dir.path());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(
      result.err,
      "plugin site_fields: /launch/hosts/2: error: variant 'large': launch.hosts: \"GPU-A\" "
      "is listed twice (also entry 0, \"gpu-a\"; host names do not differ by case): "
      "DeepSpeed refuses a hostfile that lists a host twice, and each node runs one launch "
      "[companion.values]\n"
      "zeroforge: error: family 's' not generated; nothing was written [generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(CompanionsGenerateTest, SlurmValuesAndRequestsTheTierCannotGiveAreRefusedAtTheirPlace) {
  std::string f = family(R"({
    "name": "s", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 512,
               "launch": {"slurm": {"partition": "gpu;rm -rf /", "time": "12:00:00"}}},
    "tiers": ["medium"], "companions": ["slurm"]})");
  auto partition = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(partition.exit_code, 2);
  EXPECT_EQ(partition.err,
            f + ": /values/launch/slurm/partition: error: variant 'medium': "
                "launch.slurm.partition: \"gpu;rm -rf /\" is not a SLURM name (letters, digits, "
                "'_', '-' and '.', not starting with '-') [companion.values]\n"
                "zeroforge: error: family 's' not generated; nothing was written "
                "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));

  // The site profile's SLURM values reach every config; a bad one names the plugin.
  dir.write("site.json", R"({"slurm": {"partition": "gpu", "time": "1 day"}})");
  family(R"({"name": "s", "template": "deepspeed/config.json.j2",
             "values": {"global_batch_size": 512}, "tiers": ["medium"],
             "plugins": [{"name": "site_fields", "options": {"profile": "site.json"}}],
             "companions": ["slurm"]})");
  auto site = run_cli({"generate", "family.json", "-o", "out"}, dir.path());
  EXPECT_EQ(site.exit_code, 2);
  EXPECT_EQ(
      site.err,
      "plugin site_fields: /launch/slurm/time: error: variant 'medium': launch.slurm.time: "
      "\"1 day\" is not a time limit SLURM reads (minutes, minutes:seconds, "
      "hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or "
      "UNLIMITED) [companion.values]\n"
      "zeroforge: error: family 's' not generated; nothing was written [generate.not-generated]\n");
  dir.write("site.json", R"({"slurm": {"partition": "gpu", "time": "1-00:00"}})");
  ASSERT_EQ(run_cli({"generate", "family.json", "-o", "out"}, dir.path()).exit_code, 0);
  const std::string script = read_file(out() / "medium/config.sbatch");
  EXPECT_NE(script.find("\n#SBATCH --partition=gpu\n#SBATCH --time=1-00:00\n"), std::string::npos)
      << script;
  fs::remove_all(out());
  // Where the config is named from: its directory under DIR, or launch.config_dir's, "/" too.
  for (const auto& [config_dir, here] : std::vector<std::pair<std::string, std::string>>{
           {"null", "medium"},
           {"\"/shared/llama/\"", "/shared/llama/medium"},
           {"\"/\"", "/medium"}}) {
    ASSERT_EQ(run_cli({"generate", "family.json", "-o", "out", "--set",
                       "launch.config_dir=" + config_dir},
                      dir.path())
                  .exit_code,
              0);
    EXPECT_NE(read_file(out() / "medium/config.sbatch").find("\nhere=" + here + "\n"),
              std::string::npos)
        << config_dir;
  }
  dir.write("flat.json", R"({"name": "s", "template": "deepspeed/config.json.j2",
             "values": {"global_batch_size": 512}, "tiers": ["medium"], "output": "z3.json",
             "companions": ["slurm"]})");
  for (const auto& [config_dir, here] :
       std::vector<std::pair<std::string, std::string>>{{"null", "."}, {"\"/\"", "/"}}) {
    ASSERT_EQ(
        run_cli({"generate", "flat.json", "-o", "flat", "--set", "launch.config_dir=" + config_dir},
                dir.path())
            .exit_code,
        0);
    EXPECT_NE(read_file(dir.path() / "flat/z3.sbatch").find("\nhere=" + here + "\n"),
              std::string::npos)
        << config_dir;
  }
  fs::remove_all(out());

  // 16 GPUs per node on a tier whose nodes have 8: sbatch would refuse the job, or SLURM
  // would hold it for ever; zeroforge refuses it where the value was set.
  dir.write("tiers/gpu8.json", R"({"gpus_per_node": 8, "nodes": 1, "cpu_memory_gib": 512})");
  family(R"({"name": "s", "template": "deepspeed/config.json.j2",
             "values": {"global_batch_size": 512}, "tiers": ["tiers/gpu8.json"],
             "companions": ["slurm"]})");
  auto gpus =
      run_cli({"generate", "family.json", "-o", "out", "--set", "gpus_per_node=16"}, dir.path());
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_EQ(
      gpus.err,
      "--set gpus_per_node=16: /gpus_per_node: error: variant 'gpu8': the slurm companion "
      "asks each node for gpus_per_node=16 GPUs (--gres=gpu:16), but the nodes of tier "
      "'gpu8' have 8 (tiers/gpu8.json); SLURM would refuse the job or hold it for ever "
      "[companion.values]\n"
      "zeroforge: error: family 's' not generated; nothing was written [generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_EQ(run_cli({"generate", "family.json", "-o", "out", "--set", "gpus_per_node=16",
                     "--companions", "torchrun"},
                    dir.path())
                .exit_code,
            0)
      << "only a SLURM request is the tier's to refuse";
}

TEST_F(CompanionsGenerateTest, ReportsBadRequestsAndValuesWithTheirPlace) {
  std::string f = family(kFamily);
  auto unknown =
      run_cli({"generate", f, "-o", out().string(), "--companions", "deepspeed,acelerate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "zeroforge: error: generate: unknown companion 'acelerate' (expected deepspeed, "
            "torchrun, accelerate, hf-args, hostfile, deepspeed-env, slurm, kubernetes) "
            "[usage.invalid]\n");
  auto empty = run_cli({"generate", f, "-o", out().string(), "--companions", "deepspeed,"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err,
            "zeroforge: error: generate: --companions takes a comma-separated list of companion "
            "kinds (or none), got 'deepspeed,' [usage.invalid]\n");

  std::string bad = family(R"({
    "name": "c", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 512, "launch": {"args": ["--num_train_epochs", 3]}},
    "tiers": ["medium"], "companions": ["torchrun"]})");
  auto values = run_cli({"generate", bad, "-o", out().string()});
  EXPECT_EQ(values.exit_code, 2);
  EXPECT_EQ(values.err,
            bad +
                ": /values/launch/args/1: error: variant 'medium': launch.args must be a list "
                "of strings (write numbers as strings, \"3\"), got 3 [companion.values]\n"
                "zeroforge: error: family 'c' not generated; nothing was written "
                "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));

  std::string plain = family(R"({"name": "p", "template": "plain.txt.j2",
                                 "companions": ["hf-args"]})");
  dir.write("tpl/plain.txt.j2", "x");
  auto no_contract = run_cli(
      {"generate", plain, "-o", out().string(), "--template-dir", (dir.path() / "tpl").string()});
  EXPECT_EQ(no_contract.exit_code, 2);
  EXPECT_EQ(no_contract.err,
            plain +
                ": /companions: error: companions need a template under the DeepSpeed values "
                "contract (their batch, precision and world size come from it), and "
                "'plain.txt.j2' has none [companion.no-contract]\n");
}

}  // namespace
}  // namespace zf
