// SPDX-License-Identifier: MIT
// `zeroforge validate` and `zeroforge schema` through the real executable: text and JSON
// output, the summary line, exit codes 0/1/2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using test::run_cli;
using test::TempDir;

class ValidateCliTest : public ::testing::Test {
 protected:
  TempDir dir;
};

TEST_F(ValidateCliTest, CleanConfigExitsZero) {
  auto path = dir.write(
      "ok.json", R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}})");
  auto result = run_cli({"validate", path.string(), "--world-size", "4"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "1 config: 0 errors, 0 warnings, 0 notes\n");
}

TEST_F(ValidateCliTest, WarningsAloneExitZeroAndStrictMakesThemErrors) {
  auto path = dir.write("w.json", R"({"train_micro_batch_size_per_gpu": 2, "_comment": "x"})");
  auto result = run_cli({"validate", path.string()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(
      result.out,
      path.string() +
          ": /_comment: warning [ignored-key]: DeepSpeed does not read \"_comment\" at the top "
          "level and silently ignores it; remove it if it is not a comment\n"
          "1 config: 0 errors, 1 warning, 0 notes\n");
  auto strict = run_cli({"validate", "--strict", path.string()});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.out.find(": /_comment: error [ignored-key]: "), std::string::npos);
}

TEST_F(ValidateCliTest, ErrorsExitOneInTextAndJson) {
  auto a = dir.write("a.json", R"({"train_batch_size": 30, "train_micro_batch_size_per_gpu": 4})");
  auto b = dir.write("b.json",
                     R"({"train_micro_batch_size_per_gpu": "auto", "bf16": {"enabled": true},
                         "zero_optimization": {"stage": 0}})");
  auto text = run_cli({"validate", a.string(), b.string(), "--world-size", "1"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find(a.string() + ": /train_batch_size: error [batch-mismatch]: "),
            std::string::npos);
  EXPECT_NE(
      text.out.find(b.string() + ": /train_micro_batch_size_per_gpu: error [auto-without-hf]: "),
      std::string::npos);
  EXPECT_NE(text.out.find("2 configs: 2 errors, 0 warnings, 0 notes\n"), std::string::npos);

  auto as_json =
      run_cli({"validate", a.string(), b.string(), "--world-size", "1", "--format", "json"});
  EXPECT_EQ(as_json.exit_code, 1);
  auto findings = parse_json_text(as_json.out, "stdout");
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0]["file"], a.string());
  EXPECT_EQ(findings[0]["pointer"], "/train_batch_size");
  EXPECT_EQ(findings[0]["severity"], "error");
  EXPECT_EQ(findings[0]["rule"], "batch-mismatch");
  EXPECT_EQ(findings[1]["rule"], "auto-without-hf");

  auto hf = run_cli({"validate", b.string(), "--hf"});
  EXPECT_EQ(hf.exit_code, 0) << hf.out;
}

TEST_F(ValidateCliTest, OptimizerParametersAreCheckedAgainstTheClassDeepSpeedBuilds) {
  // The issue's example: Adam with SGD's momentum passed validation and failed in DeepSpeed.
  auto path = dir.write("adam.json", R"({"train_micro_batch_size_per_gpu": 2,
      "optimizer": {"type": "Adam", "params": {"lr": 1e-4, "momentum": 0.9}}})");
  auto result = run_cli({"validate", path.string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out,
            path.string() +
                ": /optimizer/params/momentum: error [optimizer-params]: \"Adam\" makes "
                "DeepSpeed build FusedAdam (without optimizer offload), which does not take "
                "\"momentum\": it fails at initialize (TypeError: unexpected keyword argument); "
                "it takes lr, bias_correction, betas, eps, weight_decay, amsgrad, set_grad_none, "
                "torch_adam, adam_w_mode\n"
                "1 config: 1 error, 0 warnings, 0 notes\n");
}

TEST_F(ValidateCliTest, AgainstArgsReportsDisagreements) {
  auto path =
      dir.write("ds.json", R"({"train_micro_batch_size_per_gpu": 4, "fp16": {"enabled": true}})");
  auto result = run_cli({"validate", path.string(), "--hf", "--against-args",
                         "deepspeed --num_gpus 2 train.py --per_device_train_batch_size 4 --bf16 "
                         "--deepspeed ds.json"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find(": /fp16/enabled: error [args-precision]: "), std::string::npos)
      << result.out;
  auto bad = run_cli(
      {"validate", path.string(), "--against-args", "train.py --per_device_train_batch_size x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "zeroforge: error: --against-args: --per_device_train_batch_size expects an integer, "
            "found 'x' [usage.invalid]\n");
}

TEST_F(ValidateCliTest, UnreadableOrMalformedInputExitsTwo) {
  auto missing = run_cli({"validate", (dir.path() / "nope.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.out.empty());
  auto broken = dir.write("broken.json", "{\n  \"stage\": 1,\n  \"stage\": 2\n}\n");
  auto dup = run_cli({"validate", broken.string()});
  EXPECT_EQ(dup.exit_code, 2);
  EXPECT_NE(dup.err.find(broken.string() + ":3:3: error: duplicate key \"stage\""),
            std::string::npos)
      << dup.err;
  EXPECT_EQ(run_cli({"validate"}).exit_code, 2);
  EXPECT_EQ(run_cli({"validate", broken.string(), "--format", "xml"}).exit_code, 2);
  EXPECT_EQ(run_cli({"validate", broken.string(), "--world-size", "0"}).exit_code, 2);
}

TEST_F(ValidateCliTest, SchemaCommandPrintsTheJsonSchema) {
  auto result = run_cli({"schema"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  auto schema = parse_json_text(result.out, "stdout");
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  auto out = dir.path() / "ds.schema.json";
  EXPECT_EQ(run_cli({"schema", "-o", out.string()}).exit_code, 0);
  EXPECT_EQ(read_file(out), result.out);
}

// The releases zeroforge knows, as every message about a wrong version lists them.
constexpr const char* kKnownReleases =
    "0.12.0-0.12.6, 0.13.0-0.13.5, 0.14.0-0.14.5, 0.15.0-0.15.4, 0.16.0-0.16.9, 0.17.0-0.17.6, "
    "0.18.0-0.18.9, 0.19.0-0.19.6 [usage.invalid]";

TEST_F(ValidateCliTest, DeepSpeedVersionJudgesByThatRelease) {
  // log_trace_cache_warnings arrived in 0.16.4; zero_optimization refuses unknown keys.
  auto path = dir.write("trace-cache-warnings-at-stage-3.json",
                        R"({"train_micro_batch_size_per_gpu": 2,
      "zero_optimization": {"stage": 3, "log_trace_cache_warnings": true}})");
  auto old = run_cli({"validate", path.string(), "--deepspeed-version", "0.16.2"});
  EXPECT_EQ(old.exit_code, 1) << old.err;
  EXPECT_EQ(old.out, path.string() +
                         ": /zero_optimization/log_trace_cache_warnings: error [unknown-key]: "
                         "\"log_trace_cache_warnings\" is not a key of /zero_optimization, which "
                         "DeepSpeed 0.16.2 validates strictly: it refuses the config; it is a key "
                         "of DeepSpeed 0.16.4 or newer\n" +
                         path.string() +
                         ": /zero_optimization/stage: note [known-regression]: DeepSpeed 0.16.2 "
                         "is in the range of DeepSpeed issue #7499 (0.15.4 to 0.16.9): ZeRO-3 "
                         "training was reported about 10% slower than on 0.13.1 (8 x A100, and "
                         "on Ascend), with ZeRO-1 and ZeRO-2 unaffected; measure the step time "
                         "against another release before settling on this one\n"
                         "1 config: 1 error, 0 warnings, 1 note\n");
  auto since = run_cli({"validate", path.string(), "--deepspeed-version", "0.16.4"});
  EXPECT_EQ(since.exit_code, 0) << since.out;
  auto newest = run_cli({"validate", path.string()});
  EXPECT_EQ(newest.exit_code, 0) << newest.out;
}

TEST_F(ValidateCliTest, UnknownDeepSpeedVersionExitsTwoListingTheKnownReleases) {
  auto path = dir.write("ok.json", R"({"train_micro_batch_size_per_gpu": 2})");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"validate", path.string(), "--deepspeed-version", "0.11.2"},
       "zeroforge: error: validate: --deepspeed-version: unknown DeepSpeed version \"0.11.2\"; "
       "zeroforge knows " +
           std::string(kKnownReleases) + "\n"},
      {{"validate", path.string(), "--deepspeed-version", "0.16"},
       "zeroforge: error: validate: --deepspeed-version: \"0.16\" is not a DeepSpeed version "
       "(X.Y.Z, e.g. 0.19.6); zeroforge knows " +
           std::string(kKnownReleases) + "\n"},
      {{"validate", path.string(), "--deepspeed-version", ""},
       "zeroforge: error: validate: --deepspeed-version: an empty DeepSpeed version; zeroforge "
       "knows " +
           std::string(kKnownReleases) + "\n"},
      {{"schema", "--deepspeed-version", "0.20.0"},
       "zeroforge: error: schema: --deepspeed-version: unknown DeepSpeed version \"0.20.0\"; "
       "zeroforge knows " +
           std::string(kKnownReleases) + "\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.back());
    auto result = run_cli(c.args);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, c.err);
  }
}

TEST_F(ValidateCliTest, SchemaCommandExportsTheReleaseAsked) {
  auto result = run_cli({"schema", "--deepspeed-version", "0.14.5"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto schema = parse_json_text(result.out, "stdout");
  EXPECT_EQ(schema["x-deepspeed-version"], "0.14.5");
  // zero_optimization: an object, or the legacy boolean (anyOf).
  const auto& zero = schema["properties"]["zero_optimization"]["anyOf"][0]["properties"];
  EXPECT_TRUE(zero.contains("stage3_use_all_reduce_for_fetch_params"));  // since 0.14.3
  EXPECT_FALSE(zero.contains("zeropp_loco_param"));                      // since 0.16.2
  auto newest = parse_json_text(run_cli({"schema"}).out, "stdout");
  EXPECT_TRUE(newest["properties"]["zero_optimization"]["anyOf"][0]["properties"].contains(
      "zeropp_loco_param"));
}

TEST_F(ValidateCliTest, RenderRefusesToWriteAConfigWithErrors) {
  dir.write(
      "t/bad.json.j2",
      R"({"train_batch_size": 3, "train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": true}})");
  dir.write("t/other.json.j2", R"({"name": "not a DeepSpeed config"})");
  auto out = dir.path() / "out.json";
  // Templates without the DeepSpeed contract are validated when asked to.
  auto refused = run_cli({"render", "bad.json.j2", "--template-dir", (dir.path() / "t").string(),
                          "--validate", "deepspeed", "-o", out.string()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_NE(refused.err.find(out.string() + ": /train_batch_size: error [batch-mismatch]: "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("zeroforge: not written: the rendered config has errors"),
            std::string::npos);

  auto forced = run_cli({"render", "bad.json.j2", "--template-dir", (dir.path() / "t").string(),
                         "--validate", "deepspeed", "--no-validate", "-o", out.string()});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(std::filesystem::exists(out));

  auto other = run_cli({"render", "other.json.j2", "--template-dir", (dir.path() / "t").string()});
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_TRUE(other.err.empty());
}

TEST_F(ValidateCliTest, RenderValidatesWithTheWorldSizeOfTheValues) {
  dir.write(
      "t/ds.json.j2",
      R"({"train_batch_size": {{ 2 * gpus_per_node }}, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1})");
  auto ok = run_cli({"render", "ds.json.j2", "--template-dir", (dir.path() / "t").string(),
                     "--validate", "deepspeed", "--set", "gpus_per_node=4"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto wrong =
      run_cli({"render", "ds.json.j2", "--template-dir", (dir.path() / "t").string(), "--validate",
               "deepspeed", "--set", "gpus_per_node=4", "--set", "world_size=2"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("ds.json.j2: /train_batch_size: error [batch-mismatch]: "),
            std::string::npos)
      << wrong.err;
}

TEST_F(ValidateCliTest, RenderValidatesByTheDeepSpeedVersionOfTheValues) {
  dir.write("t/ds.json.j2", R"({"train_micro_batch_size_per_gpu": 2,
      "zero_optimization": {"stage": 3, "log_trace_cache_warnings": true}})");
  const std::string templates = (dir.path() / "t").string();
  auto old = run_cli({"render", "ds.json.j2", "--template-dir", templates, "--validate",
                      "deepspeed", "--set", "deepspeed_version=0.16.2"});
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_NE(old.err.find("ds.json.j2: /zero_optimization/log_trace_cache_warnings: error "
                         "[unknown-key]: \"log_trace_cache_warnings\" is not a key of "
                         "/zero_optimization, which DeepSpeed 0.16.2 validates strictly"),
            std::string::npos)
      << old.err;
  auto since = run_cli({"render", "ds.json.j2", "--template-dir", templates, "--validate",
                        "deepspeed", "--set", "deepspeed_version=0.16.4"});
  EXPECT_EQ(since.exit_code, 0) << since.err;
}

}  // namespace
}  // namespace zf
