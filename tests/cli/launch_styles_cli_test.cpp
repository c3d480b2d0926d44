// SPDX-License-Identifier: MIT
// launch.style through the real executable (docs/companions.md, "Launch styles"): for each
// style, a Python and a non-Python training script, one node and eight, every launcher and
// scheduler (the deepspeed and torchrun scripts, the SLURM job with torchrun and with
// accelerate on its nodes, the accelerate config's launch line, the Kubernetes job) passes the
// words and the environment the style says, run with stand-in launchers on PATH (PyYAML reads
// the Kubernetes job); `validate --against-args` reads each launch with 0 findings; what a fit
// assumed reaches each style; and the refusals, at their pointers.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

const fs::path kSource = ZF_SOURCE_DIR;

// A command's stdout; a failing command is a test failure.
std::string shell(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command << "\n" << out;
  return out;
}

// Stand-in launchers (deepspeed, torchrun, accelerate, srun) and scontrol: each prints the
// variables a style sets, DeepSpeed's environment file, and its arguments one per line.
fs::path stand_ins(const TempDir& dir) {
  const std::string body =
      "#!/bin/sh\n"
      "env | grep -e '^ZEROFORGE_' -e '^ACCELERATE_' | sort | sed 's/^/env /'\n"
      "if [ -n \"${DS_ENV_FILE:-}\" ]; then sed 's/^/ds_env /' \"$DS_ENV_FILE\"; fi\n"
      "for a in \"$@\"; do echo \"arg $a\"; done\n";
  for (const char* name : {"deepspeed", "torchrun", "accelerate", "srun"})
    ::chmod(dir.write(std::string("bin/") + name, body).c_str(), 0755);
  ::chmod(dir.write("bin/scontrol", "#!/bin/sh\necho node-0\n").c_str(), 0755);
  return dir.path() / "bin";
}

// What a launcher received: its words before the training script, the words after it, and
// the environment (DeepSpeed's environment file's variables win: its launcher exports them
// on every node).
struct Received {
  std::vector<std::string> before, after;
  std::map<std::string, std::string> env;
  bool script_seen = false;
};

Received parse_received(const std::string& output, const std::string& script) {
  Received r;
  std::map<std::string, std::string> ds_env;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    auto take = [&](const std::string& prefix, std::map<std::string, std::string>& into) {
      if (!line.starts_with(prefix)) return false;
      const std::string item = line.substr(prefix.size());
      into[item.substr(0, item.find('='))] = item.substr(item.find('=') + 1);
      return true;
    };
    if (take("env ", r.env) || take("ds_env ", ds_env) || !line.starts_with("arg ")) continue;
    const std::string arg = line.substr(4);
    if (!r.script_seen && arg == script) {
      r.script_seen = true;
    } else {
      (r.script_seen ? r.after : r.before).push_back(arg);
    }
  }
  for (const auto& [name, value] : ds_env) r.env[name] = value;
  return r;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The words after the training script each style passes (docs/companions.md); `config` is the
// config's path as that launch names it.
std::vector<std::string> style_words(const std::string& style, const std::string& config,
                                     const std::vector<std::string>& args) {
  std::vector<std::string> words;
  if (style == "deepspeed") words = {"--deepspeed", "--deepspeed_config", config};
  if (style == "plain") words = {"--deepspeed_config", config};
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

// The variables a style sets, `config` as above (the accelerate style's only where accelerate
// launch does not set them itself).
std::map<std::string, std::string> style_environment(const std::string& style,
                                                     const std::string& config,
                                                     bool accelerate_launch) {
  if (style == "plain") return {{"ZEROFORGE_DS_CONFIG", config}};
  if (style == "accelerate" && !accelerate_launch)
    return {{"ACCELERATE_DEEPSPEED_CONFIG_FILE", config},
            {"ACCELERATE_DEEPSPEED_ZERO3_INIT", "true"},
            {"ACCELERATE_MIXED_PRECISION", "bf16"},
            {"ACCELERATE_USE_DEEPSPEED", "true"}};
  return {};
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// One launch against its style: the words after the script (the config named by a path that is
// `config` once resolved from `cwd`), --no_python exactly for a script that is not Python, the
// variables (paths resolved the same way).
void expect_launch(const Received& r, const std::string& style, const std::string& script,
                   const std::vector<std::string>& args, const fs::path& config,
                   const fs::path& cwd, bool accelerate_launch, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(r.script_seen) << script;
  const bool no_python =
      std::find(r.before.begin(), r.before.end(), "--no_python") != r.before.end();
  EXPECT_EQ(no_python, !script.ends_with(".py"));
  if (style == "hf-trainer") {
    // The Trainer's arguments follow the script's own; --deepspeed names the config.
    ASSERT_GE(r.after.size(), args.size() + 2);
    EXPECT_EQ(std::vector<std::string>(r.after.begin(), r.after.begin() + args.size()), args);
    auto flag = std::find(r.after.begin(), r.after.end(), "--deepspeed");
    ASSERT_NE(flag, r.after.end());
    EXPECT_TRUE(same_file(cwd / *(flag + 1), config)) << *(flag + 1);
  } else {
    // The path is checked as a file; the words are compared with it in place.
    std::vector<std::string> got = r.after;
    auto option = std::find(got.begin(), got.end(), "--deepspeed_config");
    if (option != got.end() && option + 1 != got.end()) {
      EXPECT_TRUE(same_file(cwd / *(option + 1), config)) << *(option + 1);
      *(option + 1) = "CONFIG";
    }
    EXPECT_EQ(got, style_words(style, "CONFIG", args));
    EXPECT_EQ(std::find(got.begin(), got.end(), "--bf16"), got.end()) << "no Trainer flags";
  }
  const auto wanted = style_environment(style, "CONFIG", accelerate_launch);
  for (const auto& [name, value] : wanted) {
    ASSERT_TRUE(r.env.contains(name)) << name;
    if (value == "CONFIG") {
      EXPECT_TRUE(same_file(cwd / r.env.at(name), config)) << name << "=" << r.env.at(name);
    } else {
      EXPECT_EQ(r.env.at(name), value) << name;
    }
  }
  for (const auto& [name, value] : r.env) {
    if (!name.starts_with("ZEROFORGE_") || name == "ZEROFORGE_DS_CONFIG") {
      EXPECT_TRUE(wanted.contains(name)) << name << " is not the style's";
    }
  }
}

// The accelerate config's launch line (its header), as words, and the variables of its
// `# export` line as `env NAME=VALUE` lines.
std::vector<std::string> accelerate_line(const fs::path& yaml, std::string* exports) {
  std::istringstream lines(read_file(yaml));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# export ")) {
      std::istringstream in(line.substr(9));
      for (std::string entry; in >> entry;) *exports += "env " + entry + "\n";
    }
    if (!line.starts_with("# accelerate launch ")) continue;
    std::vector<std::string> words;
    std::istringstream in(line.substr(2));
    for (std::string word; in >> word;) words.push_back(word);
    return words;
  }
  ADD_FAILURE() << yaml << " has no launch line";
  return {};
}

// The Kubernetes job's training container, as PyYAML reads it: the command and the variables.
Received kubernetes_container(const fs::path& manifest, const std::string& script) {
  const std::string json = shell(
      "python3 -c 'import json, sys, yaml\n"
      "docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d[\"kind\"] == \"PyTorchJob\"]\n"
      "c = docs[0][\"spec\"][\"pytorchReplicaSpecs\"][\"Master\"][\"template\"][\"spec\"]"
      "[\"containers\"][0]\n"
      "print(json.dumps({\"command\": c[\"command\"], \"env\": c.get(\"env\", [])}))' " +
      quoted(manifest.string()));
  const Json container = Json::parse(json);
  std::string printed;
  for (const auto& variable : container.at("env"))
    printed += "env " + variable.at("name").get<std::string>() + "=" +
               variable.at("value").get<std::string>() + "\n";
  for (const auto& word : container.at("command"))
    printed += "arg " + word.get<std::string>() + "\n";
  return parse_received(printed, script);
}

const std::vector<std::string> kArgs = {"--output_dir", "/data/runs/r1"};

std::string family_text(const std::string& style, const std::string& script) {
  Json family = {{"name", "styles"},
                 {"template", "deepspeed/config.json.j2"},
                 {"values",
                  {{"stage", 3},
                   {"precision", "bf16"},
                   {"global_batch_size", 512},
                   {"launch",
                    {{"script", script},
                     {"args", kArgs},
                     {"style", style},
                     {"kubernetes", {{"image", "nvcr.io/nvidia/pytorch:24.05-py3"}}}}}}},
                 {"axes", {{"launch.slurm.launcher", {"torchrun", "accelerate"}}}},
                 {"tiers", {"medium", "large"}},
                 {"output", "{{ tier }}/zero3-{{ launch.slurm.launcher }}.json"},
                 {"companions", {"deepspeed", "torchrun", "accelerate", "slurm", "kubernetes"}}};
  return family.dump(2);
}

TEST(LaunchStylesCliTest, EveryLauncherAndSchedulerPassesEachStyleAndValidateReadsIt) {
  TempDir dir;
  const fs::path bin = stand_ins(dir);
  std::size_t launches = 0, validated = 0;
  for (const std::string style : {"hf-trainer", "deepspeed", "accelerate", "plain"}) {
    for (const std::string script : {"train.py", "bin/train.sh"}) {
      SCOPED_TRACE(style + " " + script);
      const fs::path root = dir.path() / (style + "-" + fs::path(script).stem().string() +
                                          (script.ends_with(".py") ? "" : "-sh"));
      const fs::path family = root / "family.json";
      fs::create_directories(root);
      write_file_atomically(family, family_text(style, script));
      const fs::path out = root / "out";
      auto generated = run_cli({"generate", family.string(), "-o", out.string()});
      ASSERT_EQ(generated.exit_code, 0) << generated.err;
      const Json manifest = Json::parse(read_file(out / "manifest.json"));
      for (const Json& entry : manifest.at("configs")) {
        const std::string path = entry.at("path");
        SCOPED_TRACE(path);
        const fs::path config = out / path;
        const Json& companions = entry.at("companions");
        const bool slurm_accelerate = entry.at("launch").at("slurm") == "accelerate";
        if (style != "hf-trainer") {
          EXPECT_EQ(entry.at("launch").at("style"), style);
        } else {
          EXPECT_FALSE(entry.at("launch").contains("style")) << "the default is not recorded";
        }
        auto validate = [&](const std::string& command) {
          auto r = run_cli({"validate", path, "--against-args", command}, out);
          EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
          EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
          ++validated;
        };
        const std::string env = "cd " + quoted(out.string()) + " && PATH=" + quoted(bin.string()) +
                                ":\"$PATH\" MASTER_ADDR=10.0.0.1 ";
        if (!slurm_accelerate) {
          // The launch scripts, once per config (the two SLURM variants write the same).
          for (const char* kind : {"deepspeed", "torchrun"}) {
            const fs::path file = out / companions.at(kind).get<std::string>();
            expect_launch(parse_received(shell(env + "bash " + quoted(file.string())), script),
                          style, script, kArgs, config, out, false, kind);
            validate(shell(env + "ZEROFORGE_DRY_RUN=1 bash " + quoted(file.string())));
            launches += 1;
          }
          const fs::path k8s = out / companions.at("kubernetes").get<std::string>();
          const std::string mount = "/zeroforge/" + path;
          Received pod = kubernetes_container(k8s, script);
          // In the pod the config is the ConfigMap's, mounted at its path: compare names.
          std::replace(pod.after.begin(), pod.after.end(), mount, config.string());
          for (auto& [name, value] : pod.env)
            if (value == mount) value = config.string();
          expect_launch(pod, style, script, kArgs, config, out, false, "kubernetes");
          ++launches;
        }
        // The SLURM job in a stand-in allocation of the config's shape.
        const fs::path sbatch = out / companions.at("slurm").get<std::string>();
        const long long nodes = entry.at("launch").at("nodes");
        const std::string allocation =
            "SLURM_JOB_ID=7 SLURM_JOB_NUM_NODES=" + std::to_string(nodes) +
            " SLURM_GPUS_ON_NODE=8 SLURM_JOB_NODELIST=node-0 ";
        expect_launch(
            parse_received(shell(env + allocation + "bash " + quoted(sbatch.string())), script),
            style, script, kArgs, config, out, slurm_accelerate, "slurm");
        validate("sbatch " + companions.at("slurm").get<std::string>());
        ++launches;
        if (slurm_accelerate) {
          // The accelerate config's launch line, as its header gives it (run from DIR).
          std::string printed, command;
          const std::vector<std::string> line =
              accelerate_line(out / companions.at("accelerate").get<std::string>(), &printed);
          for (const auto& word : line) {
            printed += "arg " + word + "\n";
            command += (command.empty() ? "" : " ") + word;
          }
          expect_launch(parse_received(printed, script), style, script, kArgs, config, out, true,
                        "accelerate");
          validate(command);
          ++launches;
        }
      }
    }
  }
  // 4 styles x 2 scripts x 2 tiers: 3 launches of the torchrun variant and 2 of the other.
  EXPECT_EQ(launches, 4u * 2 * 2 * (4 + 2));
  EXPECT_EQ(validated, 4u * 2 * 2 * (3 + 2));
}

// What a fit assumed reaches a script of every style: the Trainer's flags for hf-trainer, the
// environment for the others, selective checkpointing included (which only the Trainer cannot
// do, so only hf-trainer refuses it).
TEST(LaunchStylesCliTest, WhatTheFitAssumedReachesEveryStyle) {
  TempDir dir;
  const fs::path bin = stand_ins(dir);
  struct Case {
    const char* style;
    const char* checkpointing;
    int exit_code;
  };
  const Case cases[] = {{"hf-trainer", "full", 0},     {"deepspeed", "full", 0},
                        {"accelerate", "full", 0},     {"plain", "selective", 0},
                        {"deepspeed", "selective", 0}, {"hf-trainer", "selective", 2}};
  int index = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.style) + " " + c.checkpointing);
    const fs::path out = dir.path() / ("out-" + std::to_string(index++));
    auto r = run_cli({"generate", "llama-2-7b-autofit", "-o", out.string(), "--companions",
                      "deepspeed,torchrun", "--set", std::string("launch.style=") + c.style,
                      "--set", std::string("auto_fit.activation_checkpointing=") + c.checkpointing,
                      "--set", "auto_fit.loss=fused", "--set", "auto_fit.seq_len=2048"});
    ASSERT_EQ(r.exit_code, c.exit_code) << r.err;
    if (c.exit_code != 0) {
      EXPECT_NE(r.err.find("/auto_fit/activation_checkpointing: error:"), std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("selective activation checkpointing"), std::string::npos) << r.err;
      continue;
    }
    const Json manifest = Json::parse(read_file(out / "manifest.json"));
    for (const Json& entry : manifest.at("configs")) {
      const Json& record = entry.at("plugins").at("memory").at("fit_assumptions");
      ASSERT_EQ(record.at("activation_checkpointing"), c.checkpointing);
      for (const char* kind : {"deepspeed", "torchrun"}) {
        SCOPED_TRACE(kind);
        const fs::path file = out / entry.at("companions").at(kind).get<std::string>();
        const Received got =
            parse_received(shell("cd " + quoted(out.string()) + " && PATH=" + quoted(bin.string()) +
                                 ":\"$PATH\" MASTER_ADDR=10.0.0.1 bash " + quoted(file.string())),
                           "train.py");
        EXPECT_EQ(got.env.at("ZEROFORGE_SEQ_LEN"),
                  std::to_string(record.at("seq_len").get<std::int64_t>()));
        const bool trainer = std::string(c.style) == "hf-trainer";
        const bool flag = std::find(got.after.begin(), got.after.end(),
                                    "--gradient_checkpointing") != got.after.end();
        EXPECT_EQ(flag, trainer && record.at("activation_checkpointing") == "full");
        EXPECT_EQ(
            std::find(got.after.begin(), got.after.end(), "--use_liger_kernel") != got.after.end(),
            trainer);
        if (trainer) {
          EXPECT_FALSE(got.env.contains("ZEROFORGE_ACTIVATION_CHECKPOINTING"));
          EXPECT_FALSE(got.env.contains("ZEROFORGE_LOSS"));
        } else {
          EXPECT_EQ(got.env.at("ZEROFORGE_ACTIVATION_CHECKPOINTING"),
                    record.at("activation_checkpointing"));
          EXPECT_EQ(got.env.at("ZEROFORGE_LOSS"), record.at("loss"));
        }
      }
    }
  }
}

// Each refusal of launch.style and of what it passes itself: exit 2, at the value's pointer,
// nothing written.
TEST(LaunchStylesCliTest, RefusesAnUnknownStyleAndWhatTheStylePassesItself) {
  struct Case {
    std::vector<std::string> sets;
    std::string located;  // the start of the error line
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"launch.style=hf_trainer"},
       "--set launch.style=hf_trainer: /launch/style: error:",
       "unknown launch.style \"hf_trainer\" (expected hf-trainer, deepspeed, accelerate, plain); "
       "did you mean 'hf-trainer'?"},
      {{"launch.style=torch"},
       "--set launch.style=torch: /launch/style: error:",
       "unknown launch.style \"torch\" (expected hf-trainer, deepspeed, accelerate, plain)"},
      {{"launch.style=3"},
       "--set launch.style=3: /launch/style: error:",
       "launch.style must be one of hf-trainer, deepspeed, accelerate, plain, got 3"},
      {{"launch.style=deepspeed", "launch.args=[\"--deepspeed_config\",\"x.json\"]"},
       "--set launch.args=[\"--deepspeed_config\",\"x.json\"]: /launch/args/0: error:",
       "launch.args passes --deepspeed_config, which the companions pass themselves for "
       "launch.style deepspeed (the config's file); remove it"},
      {{"launch.style=plain", "launch.environment.ZEROFORGE_DS_CONFIG=x.json"},
       "--set launch.environment.ZEROFORGE_DS_CONFIG=x.json: "
       "/launch/environment/ZEROFORGE_DS_CONFIG: error:",
       "launch.environment.ZEROFORGE_DS_CONFIG is set by the companions for launch.style plain "
       "(from the config); leave it out"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.sets.back());
    TempDir dir;
    std::vector<std::string> args = {"generate",     "example",
                                     "-o",           (dir.path() / "out").string(),
                                     "--companions", "deepspeed,torchrun"};
    for (const auto& set : c.sets) {
      args.push_back("--set");
      args.push_back(set);
    }
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.located), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }
}

}  // namespace
}  // namespace zf
