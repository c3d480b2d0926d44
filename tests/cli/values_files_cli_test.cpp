// SPDX-License-Identifier: MIT
// A family's values_files (issue #40 §4): values files it builds on, relative to the family
// file, layered above the tier and below the family's own values, each named in explain and
// listed in the depfile; a missing or malformed one is exit 2 at its place.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using test::run_cli;
using test::TempDir;

class ValuesFilesCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override {
    // Two teams' shared values, in a folder beside the families' folder.
    dir.write("shared/cluster.json", R"({"gradient_clipping": 0.5, "steps_per_print": 7})");
    dir.write("shared/team.json", R"({"steps_per_print": 50, "stage": 2})");
    dir.write("families/llm.json", R"({"name": "llm", "template": "deepspeed/config.json.j2",
        "output": "ds.json", "values_files": ["../shared/cluster.json", "../shared/team.json"],
        "values": {"stage": 3}})");
  }
  nlohmann::ordered_json config(const std::string& out) {
    return nlohmann::ordered_json::parse(read_file(dir.path() / out / "ds.json"));
  }
};

TEST_F(ValuesFilesCliTest, LayeredInOrderBelowTheFamilysOwnValues) {
  // Run from another directory: the paths are the family file's, not the working directory's.
  auto result = run_cli({"generate", "families/llm.json", "-o", "out"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto ds = config("out");
  EXPECT_EQ(ds.at("gradient_clipping"), 0.5);            // cluster.json
  EXPECT_EQ(ds.at("steps_per_print"), 50);               // team.json beats cluster.json
  EXPECT_EQ(ds.at("zero_optimization").at("stage"), 3);  // the family beats both
  auto sub = run_cli({"generate", "../families/llm.json", "-o", "../out2"},
                     dir.write("elsewhere/.keep", "").parent_path());
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  EXPECT_EQ(config("out2"), ds);
}

TEST_F(ValuesFilesCliTest, ExplainNamesTheFileOfEachValue) {
  auto result = run_cli({"explain", "families/llm.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto line_of = [&](const std::string& name) {
    const auto at = result.out.find("\n  " + name + " = ");
    EXPECT_NE(at, std::string::npos) << name << " in\n" << result.out;
    return result.out.substr(at + 1, result.out.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line_of("gradient_clipping").find("family: shared/cluster.json"), std::string::npos)
      << line_of("gradient_clipping");
  EXPECT_NE(line_of("steps_per_print").find("family: shared/team.json"), std::string::npos);
  EXPECT_NE(line_of("stage").find("family: families/llm.json"), std::string::npos);
}

TEST_F(ValuesFilesCliTest, TheDepfileListsThem) {
  auto result =
      run_cli({"generate", "families/llm.json", "-o", "out", "--depfile", "gen.d"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string depfile = read_file(dir.path() / "gen.d");
  for (const char* file : {"/shared/cluster.json", "/shared/team.json"})
    EXPECT_NE(depfile.find(file), std::string::npos) << file << " in\n" << depfile;
}

TEST_F(ValuesFilesCliTest, AMissingOrMalformedFileIsExitTwoAtItsPlace) {
  dir.write("families/missing.json", R"({"name": "m", "template": "deepspeed/config.json.j2",
      "values_files": ["../shared/cluster.json", "../shared/nope.json"]})");
  auto missing = run_cli({"generate", "families/missing.json", "-o", "out"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("families/missing.json: /values_files/1: error: values file "
                             "'../shared/nope.json' not found: no file shared/nope.json"),
            std::string::npos)
      << missing.err;
  dir.write("shared/broken.json", "{\"stage\": 3,\n  \"steps_per_print\": }\n");
  dir.write("families/broken.json", R"({"name": "b", "template": "deepspeed/config.json.j2",
      "values_files": ["../shared/broken.json"]})");
  auto broken = run_cli({"generate", "families/broken.json", "-o", "out"}, dir.path());
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("shared/broken.json:2:"), std::string::npos) << broken.err;
  dir.write("shared/list.json", "[1]");
  dir.write("families/list.json", R"({"name": "l", "template": "deepspeed/config.json.j2",
      "values_files": ["../shared/list.json"]})");
  auto list = run_cli({"generate", "families/list.json", "-o", "out"}, dir.path());
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_NE(list.err.find("shared/list.json"), std::string::npos) << list.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out")) << "nothing is written";
}

// auto_fit.model as a file is relative to the file that names it (issue #40 §3): the family
// file, or a values file of values_files; generate finds it from any working directory.
TEST_F(ValuesFilesCliTest, AnAutoFitModelFileIsRelativeToTheFileThatNamesIt) {
  dir.write("models/team-7b.json",
            read_file(test::source_dir() / "presets" / "models" / "llama-2-7b.json"));
  const std::string family = R"({"name": "fit", "template": "deepspeed/config.json.j2",
      "tiers": ["large"], "plugins": ["memory"], "output": "{{ tier }}/ds.json",
      "values": {"global_batch_size": 512, "precision": "bf16",
                 "auto_fit": {"model": "../models/team-7b.json"}}})";
  dir.write("families/fit.json", family);
  auto here = run_cli({"generate", "families/fit.json", "-o", "a"}, dir.path());
  ASSERT_EQ(here.exit_code, 0) << here.err;
  auto there = run_cli({"generate", "../families/fit.json", "-o", "../b"},
                       dir.write("ci/.keep", "").parent_path());
  ASSERT_EQ(there.exit_code, 0) << there.err;
  EXPECT_EQ(read_file(dir.path() / "a" / "large" / "ds.json"),
            read_file(dir.path() / "b" / "large" / "ds.json"));
  // From a values file the family builds on: relative to that file.
  dir.write("shared/fit.json", R"({"auto_fit": {"model": "../models/team-7b.json"}})");
  dir.write("families/shared-fit.json", R"({"name": "sf", "template": "deepspeed/config.json.j2",
      "tiers": ["large"], "plugins": ["memory"], "output": "{{ tier }}/ds.json",
      "values_files": ["../shared/fit.json"],
      "values": {"global_batch_size": 512, "precision": "bf16"}})");
  auto shared = run_cli({"generate", "families/shared-fit.json", "-o", "c"}, dir.path());
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(read_file(dir.path() / "c" / "large" / "ds.json"),
            read_file(dir.path() / "a" / "large" / "ds.json"));
  // On the command line it is the working directory's, as before.
  auto set = run_cli(
      {"generate", "families/fit.json", "-o", "d", "--set", "auto_fit.model=models/team-7b.json"},
      dir.path());
  EXPECT_EQ(set.exit_code, 0) << set.err;
}

}  // namespace
}  // namespace zf
