// SPDX-License-Identifier: MIT
// The Trainer's path (--hf, a family's hf_auto): transformers fills its keys, then accelerate's
// DeepSpeedPlugin refuses a config without zero_optimization, fills "auto" on the ZeRO stage,
// offload devices, NVMe paths and the 16-bit gather, and raises on any other "auto"; by the
// accelerate release (--accelerate-version, accelerate_version). Through the real executable.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using test::run_cli;
using test::TempDir;

class TrainerPathCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  // Findings as "severity [rule] pointer" lines, from --format json.
  std::vector<std::string> findings(const std::vector<std::string>& args, int expected_exit) {
    std::vector<std::string> all = {"validate"};
    all.insert(all.end(), args.begin(), args.end());
    all.insert(all.end(), {"--format", "json"});
    auto result = run_cli(all);
    EXPECT_EQ(result.exit_code, expected_exit) << result.out << result.err;
    std::vector<std::string> out;
    for (const auto& f : nlohmann::ordered_json::parse(result.out)) {
      out.push_back(f.at("severity").get<std::string>() + " [" + f.at("rule").get<std::string>() +
                    "] " + f.at("pointer").get<std::string>());
    }
    return out;
  }
};

// accelerate's own shipped ZeRO-3 template, unchanged (huggingface/accelerate,
// examples/deepspeed_config_templates/zero_stage3_offload_config.json, Apache-2.0): "auto" on a
// key only accelerate fills. It runs under the Trainer; zeroforge called it an error before it
// modelled accelerate.
TEST_F(TrainerPathCliTest, AcceleratesShippedZeroThreeTemplatePasses) {
  auto path = dir.write("z3.json", R"({
    "fp16": {"enabled": true, "loss_scale": 0, "loss_scale_window": 1000,
             "initial_scale_power": 16, "hysteresis": 2, "min_loss_scale": 1},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto",
      "warmup_max_lr": "auto", "warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true},
      "offload_param": {"device": "cpu", "pin_memory": true}, "overlap_comm": true,
      "contiguous_gradients": true, "reduce_bucket_size": "auto",
      "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
      "sub_group_size": 1e9, "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
      "stage3_gather_16bit_weights_on_model_save": "auto"},
    "gradient_accumulation_steps": 1, "gradient_clipping": "auto", "steps_per_print": 2000,
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    "wall_clock_breakdown": false})");
  const std::vector<std::string> want = {
      "note [accelerate-fills] /zero_optimization/stage3_gather_16bit_weights_on_model_save",
      "warning [hf-warmup-auto] /scheduler/params/warmup_num_steps"};
  EXPECT_EQ(findings({path.string(), "--hf"}, 0), want);
  // Raw DeepSpeed reads the same file: the batch keys' "auto" crash it (errors); the ZeRO
  // section drops its own and runs with the defaults (warnings).
  auto raw = run_cli({"validate", path.string()});
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_NE(raw.out.find("/train_batch_size: error [auto-without-hf]: "), std::string::npos)
      << raw.out;
  EXPECT_NE(raw.out.find("/zero_optimization/stage3_gather_16bit_weights_on_model_save: warning "
                         "[auto-dropped]: "),
            std::string::npos)
      << raw.out;
}

// A Trainer config without zero_optimization passes raw DeepSpeed (stage 0) and is refused by
// accelerate when TrainingArguments is built.
TEST_F(TrainerPathCliTest, NoZeroSectionIsAnErrorOnlyOnTheTrainersPath) {
  auto path = dir.write("dp.json", R"({"train_micro_batch_size_per_gpu": "auto",
                                       "gradient_accumulation_steps": "auto"})");
  auto result = run_cli({"validate", path.string(), "--hf"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out,
            path.string() +
                ": /zero_optimization: error [accelerate-no-zero]: the HF Trainer hands the "
                "config to accelerate's DeepSpeedPlugin, which raises ValueError (\"Please "
                "specify the ZeRO optimization config in the DeepSpeed config.\") without "
                "\"zero_optimization\"; write \"zero_optimization\": {\"stage\": 0} for plain data "
                "parallelism\n1 config: 1 error, 0 warnings, 0 notes\n");
  auto fixed = dir.write("dp0.json", R"({"train_micro_batch_size_per_gpu": "auto",
      "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 0}})");
  EXPECT_EQ(run_cli({"validate", fixed.string(), "--hf"}).exit_code, 0);
}

// The stage accelerate fills (2) is the stage the other rules judge: a stage-3 key beside
// "stage": "auto" has no effect, and a ratio below 1 is refused below stage 3.
TEST_F(TrainerPathCliTest, TheFilledStageIsTheStageJudged) {
  auto path = dir.write("auto-stage.json", R"({"train_micro_batch_size_per_gpu": "auto",
      "zero_optimization": {"stage": "auto", "stage3_max_live_parameters": 1000000000}})");
  const std::vector<std::string> want = {
      "note [accelerate-fills] /zero_optimization/stage",
      "warning [zero-key-stage] /zero_optimization/stage3_max_live_parameters"};
  EXPECT_EQ(findings({path.string(), "--hf"}, 0), want);
}

// NVMe paths are filled from accelerate 0.20.0; before it an "auto" path raises.
TEST_F(TrainerPathCliTest, NvmePathFillsDependOnTheAccelerateRelease) {
  auto path = dir.write("nvme.json", R"({"train_micro_batch_size_per_gpu": "auto",
      "zero_optimization": {"stage": 3, "offload_param": {"device": "auto", "nvme_path": "auto"}}})");
  const std::vector<std::string> newest = {
      "note [accelerate-fills] /zero_optimization/offload_param/device",
      "note [accelerate-fills] /zero_optimization/offload_param/nvme_path"};
  EXPECT_EQ(findings({path.string(), "--hf"}, 0), newest);
  EXPECT_EQ(findings({path.string(), "--hf", "--accelerate-version", "0.20.0"}, 0), newest);
  const std::vector<std::string> old = {
      "note [accelerate-fills] /zero_optimization/offload_param/device",
      "error [auto-not-filled] /zero_optimization/offload_param/nvme_path"};
  EXPECT_EQ(findings({path.string(), "--hf", "--accelerate-version", "0.19.0"}, 1), old);
  auto text = run_cli({"validate", path.string(), "--hf", "--accelerate-version", "0.19.0"});
  EXPECT_NE(text.out.find("accelerate 0.19.0's DeepSpeedPlugin fills \"auto\" with \"none\""),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("accelerate's Accelerator.prepare raises ValueError "
                          "(\"`zero_optimization.offload_param.nvme_path` not found in kwargs\")"),
            std::string::npos)
      << text.out;
}

// DeepSpeed takes "auto" for ZenFlow's selectors itself, but accelerate, which sees the config
// first on the Trainer's path, does not know that.
TEST_F(TrainerPathCliTest, DeepSpeedsOwnAutoRaisesInAccelerate) {
  auto path = dir.write("zenflow.json", R"({"train_micro_batch_size_per_gpu": 1,
      "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"},
        "zenflow": {"topk_ratio": 0.1, "select_strategy": "auto"}}})");
  EXPECT_EQ(findings({path.string()}, 0), std::vector<std::string>{});
  const std::vector<std::string> want = {
      "error [auto-not-filled] /zero_optimization/zenflow/select_strategy"};
  EXPECT_EQ(findings({path.string(), "--hf"}, 1), want);
}

// accelerate 1.6.0 and newer refuse automatic tensor parallelism on DeepSpeed older than
// 0.16.4 (Accelerator._prepare_deepspeed raises ImportError): measured on LLaMA-Factory's
// ds_z2_autotp_config.json through the Trainer's path (tests/data/deepspeed-verdicts).
TEST_F(TrainerPathCliTest, AutomaticTensorParallelismNeedsTheReleaseAccelerateNames) {
  auto path = dir.write("autotp.json", R"({"train_micro_batch_size_per_gpu": 2,
      "zero_optimization": {"stage": 2}, "tensor_parallel": {"autotp_size": 2}})");
  // DeepSpeed before 0.16.4 does not read the section at all; accelerate reads it all the same.
  const std::string ignored = "warning [ignored-key] /tensor_parallel";
  const std::vector<std::string> refused = {
      ignored, "error [accelerate-autotp-release] /tensor_parallel/autotp_size"};
  EXPECT_EQ(findings({path.string(), "--hf", "--deepspeed-version", "0.16.3"}, 1), refused);
  auto text = run_cli({"validate", path.string(), "--hf", "--deepspeed-version", "0.16.3"});
  EXPECT_NE(text.out.find("the HF Trainer hands the config to accelerate, whose "
                          "Accelerator.prepare raises ImportError (\"Deepspeed TP requires "
                          "deepspeed >= 0.16.4\") for autotp_size 2 on DeepSpeed 0.16.3"),
            std::string::npos)
      << text.out;
  // The release it needs; an accelerate that does not check; raw DeepSpeed; a size of 1.
  EXPECT_EQ(findings({path.string(), "--hf", "--deepspeed-version", "0.16.4"}, 0),
            std::vector<std::string>{});
  EXPECT_EQ(findings({path.string(), "--hf", "--deepspeed-version", "0.16.3",
                      "--accelerate-version", "1.5.2"},
                     0),
            std::vector<std::string>{ignored});
  EXPECT_EQ(findings({path.string(), "--deepspeed-version", "0.16.3"}, 0),
            std::vector<std::string>{ignored});
  auto one = dir.write("autotp1.json", R"({"train_micro_batch_size_per_gpu": 2,
      "zero_optimization": {"stage": 2}, "tensor_parallel": {"autotp_size": 1}})");
  EXPECT_EQ(findings({one.string(), "--hf", "--deepspeed-version", "0.16.3"}, 0),
            std::vector<std::string>{ignored});
}

TEST_F(TrainerPathCliTest, BadAccelerateVersionsAreUsageErrors) {
  auto path = dir.write("ok.json", R"({"train_micro_batch_size_per_gpu": 2,
                                       "zero_optimization": {"stage": 0}})");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::string range = accelerate_versions().front() + " to " + accelerate_versions().back();
  const Case cases[] = {
      {{"validate", path.string(), "--hf", "--accelerate-version", "0.17.1"},
       "zeroforge: error: validate: --accelerate-version: unknown accelerate version \"0.17.1\"; "
       "zeroforge knows accelerate " +
           range + " (each release read from its source) [usage.invalid]\n"},
      {{"validate", path.string(), "--hf", "--accelerate-version", "1.99.0"},
       "zeroforge: error: validate: --accelerate-version: unknown accelerate version \"1.99.0\"; "
       "zeroforge knows accelerate " +
           range + " (each release read from its source) [usage.invalid]\n"},
      {{"validate", path.string(), "--accelerate-version", "1.0.0"},
       "zeroforge: error: validate: --accelerate-version needs --hf (accelerate reads the config "
       "only on the Trainer's path) [usage.invalid]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.back());
    auto result = run_cli(c.args);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, c.err);
  }
}

TEST(AccelerateVersionsTest, AreTheReleasesReadOldestFirst) {
  const auto& versions = accelerate_versions();
  ASSERT_GE(versions.size(), 2u);
  EXPECT_EQ(versions.front(), "0.18.0");
  EXPECT_EQ(versions.back(), "1.14.0");
  for (const auto& v : versions) EXPECT_NO_THROW(check_accelerate_version(v)) << v;
  EXPECT_THROW(check_accelerate_version(""), Error);
  EXPECT_THROW(check_accelerate_version("0.20"), Error);
}

// A family pins the release as accelerate_version; generate judges its configs by it, and a
// pin zeroforge does not know is a values error (exit 2) naming the value.
TEST_F(TrainerPathCliTest, FamiliesPinTheAccelerateRelease) {
  auto family = [&](const std::string& name, const std::string& pin) {
    return dir.write(name + ".json", R"({"name": ")" + name +
                                         R"(", "template": "deepspeed/config.json.j2",
        "output": "ds.json", "values": {"hf_auto": true, "stage": 3, "offload_param": "nvme",
        "nvme_path": "/local_nvme", "accelerate_version": )" +
                                         pin + "}}");
  };
  auto ok = run_cli({"generate", family("pinned", "\"0.19.0\"").string(), "-o",
                     (dir.path() / "out-pinned").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto bad = run_cli({"generate", family("unknown", "\"0.17.0\"").string(), "-o",
                      (dir.path() / "out-unknown").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("/accelerate_version"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("unknown accelerate version \"0.17.0\""), std::string::npos) << bad.err;
  auto typed = run_cli(
      {"generate", family("typed", "19").string(), "-o", (dir.path() / "out-typed").string()});
  EXPECT_EQ(typed.exit_code, 2) << typed.err;
  EXPECT_NE(typed.err.find("accelerate_version must be an accelerate release"), std::string::npos)
      << typed.err;
}

// hf_auto with no stage: the template writes zero_optimization {"stage": 0}, which accelerate
// needs, instead of leaving the section out.
TEST_F(TrainerPathCliTest, TheTemplateWritesStageZeroForTheTrainer) {
  auto render = [&](const std::string& hf) {
    auto result = run_cli(
        {"render", "deepspeed/config.json.j2", "--set", "stage=null", "--set", "hf_auto=" + hf});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return nlohmann::ordered_json::parse(result.out);
  };
  EXPECT_EQ(render("true").at("zero_optimization"), nlohmann::ordered_json({{"stage", 0}}));
  EXPECT_FALSE(render("false").contains("zero_optimization"));
}

}  // namespace
}  // namespace zf
