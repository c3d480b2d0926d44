// SPDX-License-Identifier: MIT
// The fit and the launch agree: for every shipped auto-fit family, every tier and the
// assumptions auto-fit can make, each companion's training arguments and environment are
// derived here from the fit's record in the manifest (plugins.memory) and compared with what
// the companions say and what their launchers receive (stand-in launchers on PATH).
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

// The shipped families whose members auto-fit fits: the memory plugin and an auto_fit value.
std::vector<std::string> shipped_auto_fit_families() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSource / "presets" / "families")) {
    const Json family = Json::parse(read_file(entry.path()));
    bool memory = false;
    for (const auto& plugin : family.value("plugins", Json::array())) {
      memory = memory || plugin == "memory" || (plugin.is_object() && plugin["name"] == "memory");
    }
    const Json values = family.value("values", Json::object());
    if (memory && values.contains("auto_fit") && values["auto_fit"].is_object())
      names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// What the launch must say, derived from the fit's record alone (docs/companions.md, "What
// auto-fit assumed"): the record is the one source, the companions must agree with it.
struct Expected {
  std::map<std::string, Json> arguments;           // TrainingArguments
  std::map<std::string, std::string> environment;  // variables the script reads
  std::int64_t world_size = 0;
};

Expected expected_from(const Json& memory) {
  const Json& fit = memory.at("auto_fit");
  const Json& model = fit.at("model");
  const Json& inputs = memory.at("estimate").at("inputs");
  Expected e;
  e.arguments["per_device_train_batch_size"] = fit.at("micro_batch_size");
  e.arguments["gradient_accumulation_steps"] = fit.at("gradient_accumulation");
  e.arguments["gradient_checkpointing"] = model.at("activation_checkpointing") == "full";
  e.arguments["use_liger_kernel"] = model.at("loss") == "fused";
  e.arguments["bf16"] = inputs.at("precision") == "bf16";
  e.arguments["fp16"] = inputs.at("precision") == "fp16";
  const std::map<std::string, std::string> attention = {
      {"eager", "eager"}, {"sdpa", "sdpa"}, {"flash", "flash_attention_2"}};
  e.environment["ZEROFORGE_SEQ_LEN"] = std::to_string(model.at("seq_len").get<std::int64_t>());
  e.environment["ZEROFORGE_ATTN_IMPLEMENTATION"] =
      attention.at(model.at("attention").get<std::string>());
  e.world_size = fit.at("world_size");
  return e;
}

// Stand-in launchers: print the environment the fit sets, DeepSpeed's environment file, and
// their arguments one per line.
fs::path stand_in_launchers(const TempDir& dir) {
  const std::string body =
      "#!/bin/sh\n"
      "env | grep '^ZEROFORGE_' | sort | sed 's/^/env /'\n"
      "if [ -n \"${DS_ENV_FILE:-}\" ]; then sed 's/^/ds_env /' \"$DS_ENV_FILE\"; fi\n"
      "for a in \"$@\"; do echo \"arg $a\"; done\n";
  for (const char* name : {"deepspeed", "torchrun"}) {
    fs::path p = dir.write(std::string("bin/") + name, body);
    ::chmod(p.c_str(), 0755);
  }
  return dir.path() / "bin";
}

std::string run_script(const fs::path& script, const fs::path& bin, const fs::path& cwd) {
  const std::string command = "cd '" + cwd.string() + "' && PATH='" + bin.string() +
                              "':\"$PATH\" MASTER_ADDR=10.0.0.1 bash '" + script.string() + "'";
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << script << "\n" << out;
  return out;
}

// The arguments a launcher received after the training script: flag -> value ("" for a
// boolean flag), and the environment lines ("env NAME=VALUE", "ds_env NAME=VALUE").
struct Received {
  std::map<std::string, std::string> flags;
  std::map<std::string, std::string> env, ds_env;
  std::vector<std::string> launcher_args;  // before the training script
};

Received parse_received(const std::string& output, const std::string& script) {
  Received r;
  std::istringstream in(output);
  std::string line;
  bool training = false;
  std::string pending;
  while (std::getline(in, line)) {
    auto take = [&](const std::string& prefix, std::map<std::string, std::string>& into) {
      if (line.rfind(prefix, 0) != 0) return false;
      const std::string item = line.substr(prefix.size());
      into[item.substr(0, item.find('='))] = item.substr(item.find('=') + 1);
      return true;
    };
    if (take("env ", r.env) || take("ds_env ", r.ds_env)) continue;
    if (line.rfind("arg ", 0) != 0) continue;
    const std::string arg = line.substr(4);
    if (!training) {
      if (arg == script) {
        training = true;
      } else {
        r.launcher_args.push_back(arg);
      }
      continue;
    }
    if (arg.rfind("--", 0) == 0) {
      pending = arg.substr(2);
      r.flags[pending] = "";
    } else if (!pending.empty()) {
      r.flags[pending] = arg;
      pending.clear();
    }
  }
  return r;
}

// One launch's arguments and environment against what the record says.
void expect_agrees(const Expected& e, const Received& r, const std::string& what) {
  SCOPED_TRACE(what);
  for (const auto& [name, value] : e.arguments) {
    if (value.is_boolean()) {
      EXPECT_EQ(r.flags.contains(name), value.get<bool>()) << "--" << name;
    } else {
      ASSERT_TRUE(r.flags.contains(name)) << "--" << name;
      EXPECT_EQ(r.flags.at(name), value.dump()) << "--" << name;
    }
  }
  for (const auto& [name, value] : e.environment) {
    // On several nodes DeepSpeed's launcher exports DS_ENV_FILE's variables on every node.
    const auto& where = r.ds_env.empty() ? r.env : r.ds_env;
    ASSERT_TRUE(where.contains(name)) << name;
    EXPECT_EQ(where.at(name), value) << name;
  }
}

std::int64_t launcher_world(const std::vector<std::string>& args, const char* nodes_flag,
                            const char* gpus_flag) {
  std::int64_t nodes = 0, gpus = 0;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == nodes_flag) nodes = std::stoll(args[i + 1]);
    if (args[i] == gpus_flag) gpus = std::stoll(args[i + 1]);
  }
  return nodes * gpus;
}

TEST(FitLaunchCliTest, EveryCompanionSaysWhatTheFitAssumedForEveryShippedAutoFitFamilyAndTier) {
  const std::vector<std::string> families = shipped_auto_fit_families();
  ASSERT_FALSE(families.empty()) << "the shipped llama-2-7b-autofit at least";
  // The shipped assumptions, and the others auto-fit can make (a fused loss, another kernel,
  // another sequence length) applied to the same families.
  const std::vector<std::vector<std::string>> assumptions = {
      {},
      {"--set", "auto_fit.loss=fused", "--set", "auto_fit.attention=flash", "--set",
       "auto_fit.seq_len=2048"},
      {"--set", "auto_fit.attention=eager", "--set", "auto_fit.seq_len=1024"},
  };
  TempDir dir;
  const fs::path bin = stand_in_launchers(dir);
  int checked = 0;
  for (const auto& family : families) {
    for (const auto& sets : assumptions) {
      std::string label = family;
      for (const auto& s : sets) label += " " + s;
      SCOPED_TRACE(label);
      const fs::path out = dir.path() / ("out-" + std::to_string(checked));
      std::vector<std::string> args = {"generate",     family,
                                       "-o",           out.string(),
                                       "--companions", "deepspeed,torchrun,accelerate,hf-args"};
      args.insert(args.end(), sets.begin(), sets.end());
      auto r = run_cli(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const Json manifest = Json::parse(read_file(out / "manifest.json"));
      for (const Json& entry : manifest.at("configs")) {
        SCOPED_TRACE(entry.at("path").get<std::string>());
        ++checked;
        const Json& memory = entry.at("plugins").at("memory");
        const Expected e = expected_from(memory);
        // What the companions read: the SDK's record, the same assumptions as the note's.
        const Json& model = memory.at("auto_fit").at("model");
        EXPECT_EQ(memory.at("fit_assumptions"),
                  (Json{{"schema_version", 1},
                        {"activation_checkpointing", model.at("activation_checkpointing")},
                        {"attention", model.at("attention")},
                        {"loss", model.at("loss")},
                        {"seq_len", model.at("seq_len")}}));
        const Json& companions = entry.at("companions");

        // The config itself: the rung the fit chose.
        const Json config = Json::parse(read_file(out / entry.at("path").get<std::string>()));
        EXPECT_EQ(config.at("zero_optimization").at("stage"), memory["auto_fit"]["stage"]);
        EXPECT_EQ(config.at("train_micro_batch_size_per_gpu"),
                  memory["auto_fit"]["micro_batch_size"]);

        // hf-args: every TrainingArguments field the fit implies.
        const Json hf = Json::parse(read_file(out / companions.at("hf-args").get<std::string>()));
        for (const auto& [name, value] : e.arguments) EXPECT_EQ(hf.at(name), value) << name;

        // The launch scripts, run with stand-in launchers: what each launcher receives.
        Received ds = parse_received(
            run_script(out / companions.at("deepspeed").get<std::string>(), bin, out), "train.py");
        expect_agrees(e, ds, "deepspeed");
        EXPECT_EQ(launcher_world(ds.launcher_args, "--num_nodes", "--num_gpus"), e.world_size);
        // Several nodes: the variables reach every node through DeepSpeed's environment file.
        EXPECT_EQ(!ds.ds_env.empty(), companions.contains("hostfile"));
        Received tr = parse_received(
            run_script(out / companions.at("torchrun").get<std::string>(), bin, out), "train.py");
        expect_agrees(e, tr, "torchrun");
        EXPECT_EQ(launcher_world(tr.launcher_args, "--nnodes", "--nproc_per_node"), e.world_size);

        // The accelerate config: its header's export and launch lines, and its world.
        const std::string yaml = read_file(out / companions.at("accelerate").get<std::string>());
        std::string exports, launch;
        std::istringstream lines(yaml);
        for (std::string line; std::getline(lines, line);) {
          if (line.rfind("# export ", 0) == 0) exports = line;
          if (line.rfind("# accelerate launch ", 0) == 0) launch = line + " ";
        }
        for (const auto& [name, value] : e.environment)
          EXPECT_NE(exports.find(" " + name + "=" + value), std::string::npos) << exports;
        for (const auto& [name, value] : e.arguments) {
          const std::string flag = " --" + name + " ";
          if (value.is_boolean()) {
            EXPECT_EQ(launch.find(flag) != std::string::npos, value.get<bool>()) << name;
          } else {
            EXPECT_NE(launch.find(" --" + name + " " + value.dump() + " "), std::string::npos)
                << name << " in " << launch;
          }
        }
        EXPECT_NE(yaml.find("\nnum_processes: " + std::to_string(e.world_size) + "\n"),
                  std::string::npos);
      }
    }
  }
  EXPECT_EQ(checked % 3, 0);
  EXPECT_GE(checked, 9) << "three tiers under three sets of assumptions";
}

TEST(FitLaunchCliTest, AnAssumptionTheTrainerCannotCarryOutIsRefusedWhereItWasSet) {
  // The shipped family on the tiers where selective checkpointing fits (on small it does not:
  // a finding of its own).
  TempDir dir;
  Json family = Json::parse(read_file(kSource / "presets/families/llama-2-7b-autofit.json"));
  family["tiers"] = {"medium", "large"};
  family["values"]["auto_fit"]["activation_checkpointing"] = "selective";
  const std::string file = dir.write("selective.json", family.dump(2)).string();
  auto refused =
      run_cli({"generate", file, "-o", (dir.path() / "out").string(), "--companions", "hf-args"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            file +
                ": /values/auto_fit/activation_checkpointing: error: variant 'medium' (and 1 "
                "more): auto-fit sized this config for selective activation checkpointing (only "
                "the attention core recomputed), which the Hugging Face Trainer cannot do: its "
                "gradient_checkpointing recomputes whole layers (full), and without it every "
                "layer's activations stay; choose full or none, or write only companions without "
                "training arguments (hostfile, deepspeed-env) [companion.values]\n"
                "zeroforge: error: family 'llama-2-7b-autofit' not generated; nothing was "
                "written [generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  // A hostfile passes no training arguments: nothing the Trainer must do.
  auto hostfile =
      run_cli({"generate", file, "-o", (dir.path() / "out").string(), "--companions", "hostfile"});
  EXPECT_EQ(hostfile.exit_code, 0) << hostfile.err;
  EXPECT_TRUE(fs::exists(dir.path() / "out/large/llama-2-7b.hostfile"));
}

// tests/plugins/fixtures/third_party_estimator.cpp: not the memory plugin, not called `memory`;
// with its option `fit` (a merge patch) it publishes the SDK's fit assumptions record.
const std::string kThirdParty = std::string(ZF_TEST_PLUGIN_DIR) + "/third_party_estimator.so";

// A family that chooses its own micro batch: whatever the launch says about checkpointing,
// loss, kernel and sequence can only come from a plugin's record.
constexpr const char* kAcmeFamily = R"({
  "name": "acme-fitted",
  "template": "deepspeed/config.json.j2",
  "values": {"precision": "bf16", "stage": 2, "micro_batch_size": 2, "gradient_accumulation": 4},
  "tiers": ["medium"],
  "output": "{{ tier }}/acme.json"
})";

TEST(FitLaunchCliTest, CompanionsFollowAThirdPartyFitsAssumptions) {
  TempDir dir;
  const std::string file = dir.write("families/acme-fitted-family.json", kAcmeFamily).string();
  const fs::path bin = stand_in_launchers(dir);
  struct Case {
    const char* name;
    std::vector<std::string> options;
    std::map<std::string, std::string> environment;  // what the launcher receives
    bool checkpointing, liger;
  };
  const std::vector<Case> cases = {
      // The fixture's record: full checkpointing, flash attention, fused loss, 8192 tokens.
      {"acme's record",
       {"--plugin-opt", "acme_memory_estimator.fit.schema_version=1"},
       {{"ZEROFORGE_ATTN_IMPLEMENTATION", "flash_attention_2"}, {"ZEROFORGE_SEQ_LEN", "8192"}},
       true,
       true},
      {"acme's record, another run",
       {"--plugin-opt", "acme_memory_estimator.fit.activation_checkpointing=\"none\"",
        "--plugin-opt", "acme_memory_estimator.fit.loss=\"hf\"", "--plugin-opt",
        "acme_memory_estimator.fit.attention=\"eager\"", "--plugin-opt",
        "acme_memory_estimator.fit.seq_len=1024"},
       {{"ZEROFORGE_ATTN_IMPLEMENTATION", "eager"}, {"ZEROFORGE_SEQ_LEN", "1024"}},
       false,
       false},
      // No record: nothing assumed, nothing added (the control).
      {"no record", {}, {}, false, false},
  };
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path out = dir.path() / ("out-" + std::to_string(n++));
    std::vector<std::string> args = {"generate", file,        "-o",           out.string(),
                                     "--plugin", kThirdParty, "--companions", "deepspeed,hf-args"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json manifest = Json::parse(read_file(out / "manifest.json"));
    const Json& entry = manifest.at("configs").at(0);
    EXPECT_FALSE(entry.at("plugins").contains("memory"));
    EXPECT_EQ(entry.at("plugins").at("acme_memory_estimator").contains("fit_assumptions"),
              !c.options.empty());
    const Json& companions = entry.at("companions");
    const Json hf = Json::parse(read_file(out / companions.at("hf-args").get<std::string>()));
    EXPECT_EQ(hf.at("gradient_checkpointing"), c.checkpointing) << hf.dump();
    if (c.options.empty()) {
      EXPECT_FALSE(hf.contains("use_liger_kernel")) << hf.dump();
    } else {
      EXPECT_EQ(hf.at("use_liger_kernel"), c.liger);
    }
    const Received ds = parse_received(
        run_script(out / companions.at("deepspeed").get<std::string>(), bin, out), "train.py");
    EXPECT_EQ(ds.env, c.environment);
    EXPECT_EQ(ds.flags.contains("gradient_checkpointing"), c.checkpointing);
    EXPECT_EQ(ds.flags.contains("use_liger_kernel"), c.liger);
  }
}

// A record outside the schema, or two for one config, stops the companions: exit 2, the
// plugin and the pointer in its annotation, nothing written.
TEST(FitLaunchCliTest, RefusesAFitAssumptionsRecordOutsideTheSchemaOrTwoForOneConfig) {
  TempDir dir;
  const std::string file = dir.write("families/acme-fitted-family.json", kAcmeFamily).string();
  Json autofit = Json::parse(read_file(kSource / "presets/families/llama-2-7b-autofit.json"));
  autofit["tiers"] = {"medium"};
  const std::string both = dir.write("families/autofit-and-acme.json", autofit.dump(2)).string();
  const std::string head = "plugin acme_memory_estimator: /fit_assumptions";
  const std::string body =
      ": error: variant 'medium': the companions cannot read its fit "
      "assumptions record: ";
  struct Case {
    const char* name;
    std::string family;
    std::string option;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"zero sequence", file, "acme_memory_estimator.fit.seq_len=0",
       head + "/seq_len" + body + "expected an integer >= 1, got 0 [plugin.failed]\n" +
           "zeroforge: error: family 'acme-fitted' not generated; nothing was written "
           "[generate.not-generated]\n"},
      {"a newer schema", file, "acme_memory_estimator.fit.schema_version=2",
       head + "/schema_version" + body +
           "schema version 2 is not one this zeroforge reads (1); build the plugin against this "
           "zeroforge's zeroforge/fit_assumptions.hpp [plugin.failed]\n" +
           "zeroforge: error: family 'acme-fitted' not generated; nothing was written "
           "[generate.not-generated]\n"},
      {"an unknown key", file, "acme_memory_estimator.fit.seqlen=4096",
       head + "/seqlen" + body +
           "unknown key 'seqlen' (expected schema_version, activation_checkpointing, "
           "attention, loss, seq_len); did you mean 'seq_len'? [plugin.failed]\n" +
           "zeroforge: error: family 'acme-fitted' not generated; nothing was written "
           "[generate.not-generated]\n"},
      {"two fits for one config", both, "acme_memory_estimator.fit.schema_version=1",
       head + body +
           "a second fit assumptions record for this config: plugin 'memory' published one "
           "too; load one plugin that fits configs [plugin.failed]\n" +
           "zeroforge: error: family 'llama-2-7b-autofit' not generated; nothing was written "
           "[generate.not-generated]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = run_cli({"generate", c.family, "-o", (dir.path() / "out").string(), "--plugin",
                      kThirdParty, "--plugin-opt", c.option, "--companions", "hf-args"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, c.err);
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }
}

}  // namespace
}  // namespace zf
