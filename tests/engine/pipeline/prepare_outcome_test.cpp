// SPDX-License-Identifier: MIT
// The one prepare core (engine/src/prepare) behind every entry point: the same values with a
// plugin's refusal and a values problem end the same way everywhere (Failed: the bad value
// decides, exit 2, and both are reported), and every entry point judges a config by the
// DeepSpeed release its values pin.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/pipeline/pipeline_fixture.hpp"
#include "support/cli_runner.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

// llama-2-70b fits no way on the small tier (the memory plugin refuses it), and
// micro_bach_size is a near miss the values contract refuses.
constexpr const char* kAutoFit = R"(auto_fit={"model": "llama-2-70b"})";
constexpr const char* kNearMiss = "micro_bach_size=4";
constexpr const char* kBothFamily = R"({"name": "both", "template": "deepspeed/config.json.j2",
  "tiers": ["small"], "plugins": ["memory"], "output": "{{ tier }}.json",
  "values": {"auto_fit": {"model": "llama-2-70b"}, "micro_bach_size": 4}})";

bool has_code(const std::vector<Diagnostic>& diagnostics, const std::string& code) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [&](const Diagnostic& d) { return d.code == code; });
}

struct EntryPoint {
  const char* name;
  std::vector<std::string> args;  // FAMILY stands for the family file
};

class PrepareOutcomeCliTest : public ::testing::TestWithParam<EntryPoint> {};

// Each prints the problem and the refusal, and exits 2 (before the core, render and generate
// said exit 1 and showed the refusal alone, explain said 2).
TEST_P(PrepareOutcomeCliTest, ARefusalAndAProblemAreExit2WithBoth) {
  TempDir dir;
  const std::string family = dir.write("both.json", kBothFamily).string();
  std::vector<std::string> args = GetParam().args;
  for (auto& arg : args) {
    if (arg == "FAMILY") arg = family;
    if (arg == "OUT") arg = (dir.path() / "out").string();
  }
  const test::CliResult result = run_cli(args);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("error [memory]: tier small: llama-2-70b does not fit"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("unknown value 'micro_bach_size'; did you mean 'micro_batch_size'?"),
            std::string::npos)
      << result.err;
  // Problems first, then refusals, wherever they are listed.
  EXPECT_LT(result.err.find("micro_bach_size"), result.err.find("error [memory]")) << result.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "small.json"));
}

INSTANTIATE_TEST_SUITE_P(
    EveryEntryPoint, PrepareOutcomeCliTest,
    ::testing::Values(EntryPoint{"render",
                                 {"render", "deepspeed/config.json.j2", "--tier", "small",
                                  "--plugin", "memory", "--set", kAutoFit, "--set", kNearMiss, "-o",
                                  "OUT"}},
                      EntryPoint{"explain_template",
                                 {"explain", "deepspeed/config.json.j2", "--tier", "small",
                                  "--plugin", "memory", "--set", kAutoFit, "--set", kNearMiss}},
                      EntryPoint{"generate", {"generate", "FAMILY", "-o", "OUT"}},
                      EntryPoint{"generate_check", {"generate", "FAMILY", "-o", "OUT", "--check"}},
                      EntryPoint{"explain_member", {"explain", "FAMILY"}}),
    [](const ::testing::TestParamInfo<EntryPoint>& info) { return std::string(info.param.name); });

// The library's entry points give the same outcome and both diagnostics.
TEST(PrepareOutcomeTest, TheLibrarysEntryPointsAgree) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = "small";
  request.plugins = {"memory"};
  request.sets = {kAutoFit, kNearMiss};
  const RenderResult rendered = render(request);
  EXPECT_EQ(rendered.outcome, Outcome::Failed);
  EXPECT_TRUE(has_code(rendered.diagnostics, "values.contract"));
  EXPECT_TRUE(has_code(rendered.diagnostics, "plugin.refused"));

  ConfigSession session = open_config(request);
  const PreparedValues prepared = prepare_values(session);
  EXPECT_EQ(prepared.outcome(), Outcome::Failed);
  EXPECT_EQ(explain_values(session, prepared).outcome(), Outcome::Failed);

  TempDir dir;
  GenerateRequest family;
  family.family = dir.write("both.json", kBothFamily).string();
  family.output_dir = dir.path() / "out";
  family.data_dir = test::source_dir();
  family.builtin_plugin_dir = ZF_BUNDLED_PLUGIN_DIR;
  const GenerateResult generated = generate(family);
  EXPECT_EQ(generated.outcome, Outcome::Failed);
  EXPECT_EQ(generated.problems.size(), 1u);
  EXPECT_EQ(generated.refusals.size(), 1u);
  const Explanation member = explain_family_config(family, "");
  EXPECT_EQ(member.outcome(), Outcome::Failed);
  EXPECT_TRUE(has_code(member.problems, "values.contract"));
  EXPECT_TRUE(has_code(member.refusals, "plugin.refused"));
}

// The issue's reproducer: a family pinned to DeepSpeed 0.14.5 that carries a key of 0.16 in
// `extra` (what `import --deepspeed-version 0.14.5` makes of a team's configs) is refused by
// generate as DeepSpeed 0.14.5 refuses it (generate validated by 0.19.6 whatever the pin).
TEST(PinnedReleaseTest, GenerateValidatesByTheFamilysRelease) {
  TempDir dir;
  const std::string family = dir.write("f145.json", R"({"name": "f145",
    "template": "deepspeed/config.json.j2", "output": "z3.json",
    "values": {"deepspeed_version": "0.14.5", "stage": 3,
               "extra": {"zero_optimization": {"stage3_module_granularity_threshold": 0}}}})")
                                 .string();
  const std::string out = (dir.path() / "out").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"generate", family, "-o", out},
        std::vector<std::string>{"generate", family, "-o", out, "--check"}}) {
    const test::CliResult result = run_cli(args);
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("/zero_optimization/stage3_module_granularity_threshold: error "
                              "[unknown-key]: \"stage3_module_granularity_threshold\" is not a "
                              "key of /zero_optimization, which DeepSpeed 0.14.5 validates "
                              "strictly"),
              std::string::npos)
        << result.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "z3.json"));
  // The same values one release on are fine.
  const std::string newer = dir.write("f160.json", R"({"name": "f160",
    "template": "deepspeed/config.json.j2", "output": "z3.json",
    "values": {"deepspeed_version": "0.16.0", "stage": 3,
               "extra": {"zero_optimization": {"stage3_module_granularity_threshold": 0}}}})")
                                .string();
  EXPECT_EQ(run_cli({"generate", newer, "-o", out}).exit_code, 0);
}

// A correct 0.14.5 family draws no warning that belongs to newer releases: aio's
// thread_count is 0.14.5's own spelling, and warmup_num_steps "auto" is refused only from
// 0.19.3 on. At the newest release the same files draw both warnings, so the test can fail.
TEST(PinnedReleaseTest, ACorrectOldFamilyDrawsNoWarningOfNewerReleases) {
  TempDir dir;
  const std::string family = dir.write("ok145.json", R"({"name": "ok145",
    "template": "deepspeed/config.json.j2", "output": "{{ tier }}/z3-{{ offload_optimizer }}.json",
    "tiers": ["small", "medium"], "axes": {"offload_optimizer": ["none", "cpu", "nvme"]},
    "values": {"deepspeed_version": "0.14.5", "stage": 3, "hf_auto": true,
               "nvme_path": "/local_nvme", "scheduler": {"type": "WarmupLR"}}})")
                                 .string();
  const fs::path out = dir.path() / "out";
  const test::CliResult result = run_cli({"generate", family, "-o", out.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("warning"), std::string::npos) << result.err;
  const std::string nvme = (out / "small" / "z3-nvme.json").string();
  const test::CliResult newest = run_cli({"validate", nvme, "--hf", "--world-size", "1"});
  EXPECT_NE(newest.out.find("[ignored-key]"), std::string::npos) << newest.out;
  EXPECT_NE(newest.out.find("[hf-warmup-auto]"), std::string::npos) << newest.out;
  // explain of the member shows the pin it is judged by.
  const test::CliResult explained = run_cli({"explain", family, "--config", "small/z3-nvme.json"});
  EXPECT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_NE(explained.out.find("0.14.5"), std::string::npos) << explained.out;
}

}  // namespace
}  // namespace zf
