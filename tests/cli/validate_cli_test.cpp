// SPDX-License-Identifier: MIT
// `zeroforge validate` and `zeroforge schema` through the real executable: text and JSON
// output, the summary line, exit codes 0/1/2.
#include <gtest/gtest.h>

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
                     R"({"train_micro_batch_size_per_gpu": "auto", "bf16": {"enabled": true}})");
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
            "found 'x'\n");
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

}  // namespace
}  // namespace zf
