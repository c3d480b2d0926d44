// SPDX-License-Identifier: MIT
// What build pipelines use, through the real executable: `generate --depfile`, `--format json`,
// `--quiet`, `--validate`, and team templates that extend a contract template from their own
// directory (they inherit its contract and defaults).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

constexpr const char* kFamily = R"({
  "name": "pipe",
  "template": "deepspeed/zero3.json.j2",
  "values": {"offload_optimizer": "none", "offload_param": "none"},
  "axes": {"precision": ["bf16", "fp16"]},
  "tiers": ["medium"],
  "output": "{{ tier }}/zero3-{{ precision }}.json"
})";

class PipelineCliTest : public ::testing::Test {
 protected:
  std::string family() const { return dir.write("family.json", kFamily).string(); }
  std::string out() const { return (dir.path() / "out").string(); }
  TempDir dir;
};

TEST_F(PipelineCliTest, DepfileMakesTheManifestDependOnEveryInput) {
  const std::string depfile = (dir.path() / "gen.d").string();
  auto result = run_cli({"generate", family(), "-o", out(), "--depfile", depfile});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string text = read_file(depfile);
  const std::string target = (fs::path(out()) / "manifest.json").string() + ":";
  EXPECT_EQ(text.substr(0, target.size()), target) << text;
  for (const char* input :
       {"family.json", "presets/tiers/medium.json", "deepspeed/zero3.json.j2",
        "deepspeed/config.json.j2", "deepspeed/partials/batch.j2", "deepspeed/defaults.json"}) {
    EXPECT_NE(text.find(input), std::string::npos) << input << " in\n" << text;
  }
  // Every dependency is an absolute path (Ninja and Make run from other directories).
  std::size_t at = text.find("\\\n  ");
  while (at != std::string::npos) {
    EXPECT_EQ(text[at + 4], '/') << text;
    at = text.find("\\\n  ", at + 1);
  }
}

// Real Make and Ninja read the depfile of a run whose paths hold a space, '#', ':' and '$':
// both find every input (touching the values file makes each rebuild) and Ninja's parse of it
// is exactly the list of inputs.
TEST_F(PipelineCliTest, MakeAndNinjaReadTheDepfileOfPathsWithSpecialCharacters) {
  const fs::path work = dir.path() / "pipeline #2: $HOME of the team";
  fs::create_directories(work);
  const std::string family_file = (work / "family of run #7: $x.json").string();
  dir.write("pipeline #2: $HOME of the team/family of run #7: $x.json", kFamily);
  const std::string values =
      dir.write("pipeline #2: $HOME of the team/values for #7: $lr.json", R"({"stage": 3})")
          .string();
  auto r = run_cli({"generate", family_file, "-o", "configs of #7: $x", "--values", values,
                    "--depfile", "gen.d"},
                   work);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string depfile = read_file(work / "gen.d");
  const std::string target = depfile.substr(0, depfile.find(": \\\n"));
  EXPECT_EQ(target, "configs\\ of\\ \\#7\\:\\ $$x/manifest.json");

  // Make: the manifest is up to date, and stale once the values file changes.
  dir.write("pipeline #2: $HOME of the team/Makefile",
            "all: " + target + "\n" + target + ":\n\t@echo regenerate\n-include gen.d\n");
  auto make = [&] {
    return test::run_program("/usr/bin/make", {"-C", work.string(), "-q", "all"}, work);
  };
  auto set_time = [&](std::chrono::hours shift) {
    fs::last_write_time(values, fs::file_time_type::clock::now() + shift);
  };
  auto fresh = make();
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out << fresh.err;
  set_time(std::chrono::hours(1));
  EXPECT_EQ(make().exit_code, 1) << "make did not see the values file";
  set_time(-std::chrono::hours(1));

  // Ninja: the same depfile, the target written the way build.ninja escapes it. With
  // `deps = gcc` it records what it parsed, which `ninja -t deps` shows.
  dir.write("pipeline #2: $HOME of the team/build.ninja",
            "rule gen\n  command = touch $out\n  depfile = gen.d\n  deps = gcc\n"
            "build configs$ of$ #7$:$ $$x/manifest.json: gen\n");
  auto ninja = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all{"-C", work.string()};
    all.insert(all.end(), args.begin(), args.end());
    return test::run_program("/usr/bin/ninja", all, work);
  };
  auto built = ninja({});
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  auto deps = ninja({"-t", "deps"});
  ASSERT_EQ(deps.exit_code, 0) << deps.err;
  // `ninja -t deps`: the target, then each dependency indented by four spaces.
  std::vector<std::string> parsed;
  std::stringstream lines(deps.out);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("    ")) parsed.push_back(line.substr(4));
  for (const auto& input : {family_file, values}) {
    const std::string absolute = fs::absolute(input).lexically_normal().string();
    EXPECT_NE(std::find(parsed.begin(), parsed.end(), absolute), parsed.end())
        << absolute << " in\n"
        << deps.out;
  }
  for (const auto& path : parsed) EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_NE(ninja({"-n"}).out.find("no work to do"), std::string::npos);
  set_time(std::chrono::hours(1));
  EXPECT_EQ(ninja({"-n"}).out.find("no work to do"), std::string::npos)
      << "ninja did not see the values file";
}

// A generated file edited or deleted by hand is regenerated by the next build (issue #40 §9):
// the depfile lists the set's files too, each with an empty rule (as -MP writes for headers),
// so real Ninja and Make see the edit, rerun zeroforge, and then have no work to do.
TEST_F(PipelineCliTest, BuildsRegenerateAFileEditedOrDeletedByHand) {
  const std::string zeroforge = (fs::path(ZF_BINARY_DIR) / "bin" / "zeroforge").string();
  const std::string family_file = family();
  const fs::path config = dir.path() / "out" / "medium" / "zero3-bf16.json";
  auto age = [&](const fs::path& path) {  // older than anything the build writes next
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(1));
  };
  struct Tool {
    const char* name;
    std::string file;
    std::vector<std::string> dry_run;
    std::vector<std::string> build;
    std::string no_work;
  };
  const std::string command = zeroforge + " generate " + family_file + " -o out --depfile gen.d";
  const Tool tools[] = {
      {"ninja",
       "rule gen\n  command = " + command +
           "\n  depfile = gen.d\n  deps = gcc\n"
           "build out/manifest.json: gen\n",
       {"/usr/bin/ninja", "-n"},
       {"/usr/bin/ninja"},
       "no work to do"},
      {"make",
       "out/manifest.json:\n\t" + command + "\n-include gen.d\n",
       {"/usr/bin/make", "-q", "out/manifest.json"},
       {"/usr/bin/make", "out/manifest.json"},
       ""},
  };
  for (const auto& tool : tools) {
    SCOPED_TRACE(tool.name);
    fs::remove_all(dir.path() / "out");
    fs::remove(dir.path() / "gen.d");
    dir.write(tool.name == std::string("ninja") ? "build.ninja" : "Makefile", tool.file);
    auto run = [&](const std::vector<std::string>& words) {
      return test::run_program(words[0], {words.begin() + 1, words.end()}, dir.path());
    };
    auto up_to_date = [&] {
      auto r = run(tool.dry_run);
      return tool.no_work.empty() ? r.exit_code == 0
                                  : r.out.find(tool.no_work) != std::string::npos;
    };
    ASSERT_EQ(run(tool.build).exit_code, 0);
    const std::string generated = read_file(config);
    EXPECT_TRUE(up_to_date());
    // A hand edit (written after the manifest) makes the set stale; the build puts it back.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    write_file_atomically(config, "{\"edited\": true}\n");
    EXPECT_FALSE(up_to_date()) << "the hand edit was not seen";
    ASSERT_EQ(run(tool.build).exit_code, 0);
    EXPECT_EQ(read_file(config), generated);
    EXPECT_TRUE(up_to_date()) << "the regenerated set is stale again";
    // A file deleted by hand: remade, not "no rule to make target".
    fs::remove(config);
    EXPECT_FALSE(up_to_date());
    auto rebuilt = run(tool.build);
    ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.out << rebuilt.err;
    EXPECT_EQ(read_file(config), generated);
    EXPECT_TRUE(up_to_date());
    // An input that is older than the set changes nothing (no rebuild on every run).
    age(dir.path() / "family.json");
    EXPECT_TRUE(up_to_date());
  }
}

// What Make or Ninja cannot read back is refused before anything is written, naming the path.
TEST_F(PipelineCliTest, DepfileRefusesPathsMakeOrNinjaCannotRead) {
  const std::string syntax = ", which Make or Ninja reads as syntax and cannot escape";
  const std::string values_eq = dir.write("runs/lr=1e-4/values.json", "{}").string();
  const std::string values_nl = dir.write("runs/values of\nmonday.json", "{}").string();
  struct Case {
    std::vector<std::string> args;
    std::string path;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {{"-o", (dir.path() / "runs/50%/configs").string()},
       (dir.path() / "runs/50%/configs/manifest.json").string(),
       "it holds '%', which makes Make read the rule as a pattern rule"},
      {{"-o", out(), "--values", values_eq}, values_eq, "it holds '='" + syntax},
      {{"-o", out(), "--values", values_nl},
       values_nl,
       "it holds a control character (U+000A), which ends a name or the rule in Make and Ninja"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    std::vector<std::string> args{"generate", family(), "--depfile",
                                  (dir.path() / "gen.d").string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    // The newline shows as clang shows it (every message escapes what the input holds).
    std::string shown = c.path;
    if (const auto at = shown.find('\n'); at != std::string::npos) shown.replace(at, 1, "<U+000A>");
    EXPECT_EQ(r.err, "zeroforge: error: --depfile: cannot write the path '" + shown +
                         "' into a depfile: " + c.problem +
                         "; rename it, or leave out --depfile [usage.invalid]\n");
    EXPECT_FALSE(fs::exists(dir.path() / "gen.d"));
    EXPECT_FALSE(fs::exists(out()));
    EXPECT_FALSE(fs::exists(dir.path() / "runs/50%"));
  }
}

TEST_F(PipelineCliTest, DepfileGoesWithGenerateNotWithCheck) {
  auto result = run_cli({"generate", family(), "-o", out(), "--check", "--depfile", "x.d"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--depfile"), std::string::npos) << result.err;
}

TEST_F(PipelineCliTest, JsonSummaryOfAGenerateAndOfACheck) {
  auto first = run_cli({"generate", family(), "-o", out(), "--format", "json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Json summary = Json::parse(first.out);
  EXPECT_EQ(summary.at("family"), "pipe");
  EXPECT_EQ(summary.at("configs"), 2);
  EXPECT_EQ(summary.at("written"), Json({"medium/zero3-bf16.json", "medium/zero3-fp16.json"}));
  EXPECT_EQ(summary.at("unchanged"), Json::array());
  EXPECT_EQ(summary.at("removed"), Json::array());
  EXPECT_EQ(summary.at("findings"), Json::array());
  EXPECT_EQ(summary.at("manifest"), (fs::path(out()) / "manifest.json").string());
  EXPECT_TRUE(first.err.empty()) << first.err;

  auto again = run_cli({"generate", family(), "-o", out(), "--format", "json"});
  EXPECT_EQ(Json::parse(again.out).at("unchanged").size(), 2u);

  fs::remove(fs::path(out()) / "medium" / "zero3-fp16.json");
  auto check = run_cli({"generate", family(), "-o", out(), "--check", "--format", "json"});
  EXPECT_EQ(check.exit_code, 1);
  Json drift = Json::parse(check.out);
  EXPECT_EQ(drift.at("missing"), Json({"medium/zero3-fp16.json"}));
  EXPECT_EQ(drift.at("changed"), Json::array());
  EXPECT_EQ(drift.at("exit_code"), 1);
}

TEST_F(PipelineCliTest, JsonSummaryCarriesFindingsAndErrors) {
  auto refused =
      run_cli({"generate", family(), "-o", out(), "--format", "json", "--set", "precision=fp64"});
  EXPECT_EQ(refused.exit_code, 2);
  Json summary = Json::parse(refused.out);
  ASSERT_FALSE(summary.at("errors").empty());
  EXPECT_NE(summary.at("errors")[0].at("message").get<std::string>().find("fp64"),
            std::string::npos);
  EXPECT_FALSE(refused.err.empty()) << "people still read the errors on stderr";
}

TEST_F(PipelineCliTest, QuietPrintsNothingOnSuccessAndEverythingOnFailure) {
  auto quiet = run_cli({"generate", family(), "-o", out(), "--quiet"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.out, "");
  EXPECT_EQ(quiet.err, "");
  auto check = run_cli({"generate", family(), "-o", out(), "--check", "-q"});
  EXPECT_EQ(check.exit_code, 0);
  EXPECT_EQ(check.out + check.err, "");
  auto failing = run_cli({"generate", family(), "-o", out(), "-q", "--set", "precision=fp64"});
  EXPECT_EQ(failing.exit_code, 2);
  EXPECT_NE(failing.err.find("fp64"), std::string::npos) << failing.err;
}

TEST_F(PipelineCliTest, FormatMustBeTextOrJson) {
  auto result = run_cli({"generate", family(), "-o", out(), "--format", "yaml"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--format must be text or json, got 'yaml'"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(PipelineCliTest, ValidateModeMustBeKnown) {
  auto result = run_cli({"generate", family(), "-o", out(), "--validate", "strict"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--validate must be contract, deepspeed or none"), std::string::npos)
      << result.err;
}

// A team's directory with a template extending the shipped entry template, and no defaults.json.
class TeamTemplateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.write("team/site/config.json.j2", R"({%- extends "deepspeed/config.json.j2" -%}
{%- block monitoring %}
  "comms_logger": {"enabled": true, "verbose": false},
{{ super() }}
{%- endblock %})");
    dir.write("team/site/zero3.json.j2", R"({%- extends "deepspeed/zero3.json.j2" -%})");
    dir.write(
        "team/cluster/nodes.json.j2",
        R"({"cluster": "{{ name }}", "train_batch_size": {{ batch }}, "zero_optimization": 7})");
  }
  std::string team() const { return (dir.path() / "team").string(); }
  TempDir dir;
};

TEST_F(TeamTemplateTest, InheritsTheContractAndDefaultsOfItsParent) {
  auto result = run_cli({"render", "site/config.json.j2", "--template-dir", team(), "--tier",
                         "medium", "--set", "global_batch_size=256"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json config = Json::parse(result.out);
  EXPECT_EQ(config.at("comms_logger").at("enabled"), true);
  EXPECT_EQ(config.at("train_batch_size"), 256);
  EXPECT_EQ(config.at("zero_optimization").at("stage"), 2) << "deepspeed/defaults.json's stage";
}

TEST_F(TeamTemplateTest, InheritsItsParentsPinsAndChecks) {
  auto pinned =
      run_cli({"render", "site/zero3.json.j2", "--template-dir", team(), "--set", "stage=2"});
  EXPECT_EQ(pinned.exit_code, 2);
  EXPECT_NE(pinned.err.find("pins stage=3"), std::string::npos) << pinned.err;
  auto contract = run_cli(
      {"render", "site/config.json.j2", "--template-dir", team(), "--set", "precision=fp64"});
  EXPECT_EQ(contract.exit_code, 2);
  EXPECT_NE(contract.err.find("fp64"), std::string::npos) << contract.err;
}

TEST_F(TeamTemplateTest, ItsOwnDefaultsJsonWins) {
  dir.write("team/site/defaults.json", R"({"values": {"greeting": "hi"}})");
  auto result = run_cli({"render", "site/config.json.j2", "--template-dir", team()});
  EXPECT_EQ(result.exit_code, 2) << "no contract: the DeepSpeed values are not there";
  EXPECT_NE(result.err.find("undefined"), std::string::npos) << result.err;
}

TEST_F(TeamTemplateTest, AJsonTemplateWithoutTheContractRendersAsJinja2Would) {
  auto result = run_cli({"render", "cluster/nodes.json.j2", "--template-dir", team(), "--set",
                         "name=a", "--set", "batch=3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Json::parse(result.out).at("cluster"), "a");
  EXPECT_EQ(result.err, "");
  auto asked = run_cli({"render", "cluster/nodes.json.j2", "--template-dir", team(), "--set",
                        "name=a", "--set", "batch=3", "--validate", "deepspeed"});
  EXPECT_EQ(asked.exit_code, 1);
  EXPECT_NE(asked.err.find("DeepSpeed does not read \"cluster\""), std::string::npos) << asked.err;
}

TEST_F(TeamTemplateTest, GenerateValidatesByTheTemplatesContract) {
  const std::string family = dir.write("f.json", R"({
    "name": "nodes", "template": "cluster/nodes.json.j2",
    "values": {"batch": 3}, "axes": {"name": ["a", "b"]},
    "tiers": ["medium"], "output": "{{ name }}.json"
  })")
                                 .string();
  const std::string out = (dir.path() / "out").string();
  auto plain = run_cli({"generate", family, "-o", out, "--template-dir", team()});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  auto asked =
      run_cli({"generate", family, "-o", out, "--template-dir", team(), "--validate", "deepspeed"});
  EXPECT_EQ(asked.exit_code, 1);
}

// docs/pipelines.md shows the package test's consumer (tests/package/generate) as it is built
// and run there: the C++ program whole, and the CMake calls.
TEST(PipelinesDocTest, ShowsThePackageTestsConsumerVerbatim) {
  const fs::path source = test::source_dir();
  const std::string doc = read_file(source / "docs" / "pipelines.md");
  std::string program = read_file(source / "tests" / "package" / "generate" / "generate_api.cpp");
  program.erase(0, program.find('\n') + 1);  // the SPDX line
  EXPECT_NE(doc.find("```cpp\n" + program + "```"), std::string::npos)
      << "docs/pipelines.md's C++ example differs from tests/package/generate/generate_api.cpp";
  const std::string cmake = read_file(source / "tests" / "package" / "generate" / "CMakeLists.txt");
  const std::size_t gen = cmake.find("zeroforge_generate(team_configs");
  ASSERT_NE(gen, std::string::npos);
  const std::string generate_call = cmake.substr(gen, cmake.find(")\n", gen) + 1 - gen);
  EXPECT_NE(doc.find(generate_call), std::string::npos) << generate_call;
  const std::size_t exe = cmake.find("add_executable(generate_api");
  ASSERT_NE(exe, std::string::npos);
  EXPECT_NE(doc.find(cmake.substr(exe)), std::string::npos) << cmake.substr(exe);
}

}  // namespace
}  // namespace zf
