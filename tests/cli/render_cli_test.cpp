// SPDX-License-Identifier: MIT
// `zeroforge render`, --version and --help through the real executable: output, exit codes
// and error format.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using test::run_cli;
using test::TempDir;

TEST(CliTest, PrintsVersionAndHelp) {
  auto version = run_cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("zeroforge ", 0), 0u);
  auto help = run_cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("render"), std::string::npos);
  auto render_help = run_cli({"render", "--help"});
  EXPECT_EQ(render_help.exit_code, 0);
  EXPECT_NE(render_help.out.find("--set"), std::string::npos);
}

// micro_batch_size x world_size once wrapped to 0 and the batch check divided by it: SIGFPE
// (exit 136; issue 22). Now exit 2 at the value, with the layer that wrote it.
TEST(CliTest, BatchProductsPast64BitsAreExit2AtTheValue) {
  auto r = run_cli({"render", "deepspeed/config.json.j2", "--tier", "medium", "--set",
                    "micro_batch_size=2305843009213693952", "--set", "global_batch_size=256"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "--set micro_batch_size=2305843009213693952: /micro_batch_size: error: "
            "micro_batch_size x world_size = 2305843009213693952 x 8 is beyond 64-bit integers "
            "(9223372036854775807), so no global_batch_size (global_batch_size=256) can hold it "
            "[values.contract]");
  EXPECT_EQ(r.out, "");
  auto validate = run_cli({"render", "deepspeed/config.json.j2", "--set",
                           "gpus_per_node=9223372036854775807", "--set", "nodes=2"});
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_EQ(validate.err.substr(0, validate.err.find('\n')),
            "--set nodes=2: /nodes: error: gpus_per_node x nodes = 9223372036854775807 x 2 is "
            "beyond 64-bit integers (9223372036854775807); no cluster has that many GPUs "
            "[values.contract]");
}

TEST(CliTest, AnErrorAboutAnObjectNamesTheSetThatWroteIt) {
  // The contract reports /zero/offload_optimizer, an object whose only leaf --set wrote.
  auto r =
      run_cli({"render", "deepspeed/config.json.j2", "--set", "zero.offload_optimizer.device=cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "--set zero.offload_optimizer.device=cpu: /zero/offload_optimizer: error: unknown key "
            "'offload_optimizer' in zero; 'offload_optimizer' is a top-level value "
            "(offload_optimizer, not zero.offload_optimizer) [values.contract]\n");
}

TEST(CliTest, HelpCommandShowsTheCommandsHelp) {
  auto help = run_cli({"help", "render"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out, run_cli({"render", "--help"}).out);
  auto presets = run_cli({"help", "list", "presets"});
  EXPECT_EQ(presets.exit_code, 0);
  EXPECT_EQ(presets.out,
            "usage: zeroforge list presets\n\nLists the shipped families (presets/families/) with "
            "their template, tier count and description.\n");
  EXPECT_EQ(run_cli({"list", "tiers", "-h"}).exit_code, 0);
  auto extra = run_cli({"list", "presets", "--all"});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_EQ(extra.err,
            "zeroforge: error: list presets takes no options but --help [usage.invalid]\n");
  auto tiers = run_cli({"list", "tiers", "--all"});
  EXPECT_EQ(tiers.exit_code, 2);
  EXPECT_EQ(tiers.err,
            "zeroforge list: error: unrecognised option '--all' [usage.invalid]\nRun 'zeroforge "
            "list --help' for usage.\n");
}

TEST(CliTest, DevicesAreWrittenInPlaceAndWriteErrorsAreErrors) {
  // -o /dev/full once replaced the device node with a file (as root) and exited 0.
  if (access("/dev/full", W_OK) == 0) {
    auto full = run_cli({"render", "deepspeed/config.json.j2", "-o", "/dev/full"});
    EXPECT_EQ(full.exit_code, 2);
    EXPECT_EQ(full.err,
              "zeroforge: error: cannot write '/dev/full': write failed: No space left on device "
              "[io.failed]\n");
    struct stat info {};
    ASSERT_EQ(stat("/dev/full", &info), 0);
    EXPECT_TRUE(S_ISCHR(info.st_mode));
    // So was a full standard output.
    const std::string command =
        std::string(ZF_CLI_PATH) + " render deepspeed/config.json.j2 > /dev/full 2>/dev/null";
    int status = std::system(command.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 2);
  }
  auto null = run_cli({"render", "deepspeed/config.json.j2", "-o", "/dev/null"});
  EXPECT_EQ(null.exit_code, 0) << null.err;
  struct stat info {};
  ASSERT_EQ(stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  // A link is followed: the file it names gets the config, the link stays a link.
  TempDir dir;
  write_file_atomically(dir.path() / "real.json", "old\n");
  std::filesystem::create_symlink("real.json", dir.path() / "link.json");
  auto linked =
      run_cli({"render", "deepspeed/config.json.j2", "-o", (dir.path() / "link.json").string()});
  EXPECT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() / "link.json"));
  EXPECT_NE(read_file(dir.path() / "real.json"), "old\n");
}

TEST(CliTest, UnknownCommandAndOptionsAreUsageErrors) {
  auto unknown = run_cli({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.substr(0, 46), "zeroforge: error: unknown command 'frobnicate'");
  auto bad_option = run_cli({"render", "--frobnicate"});
  EXPECT_EQ(bad_option.exit_code, 2);
  EXPECT_NE(bad_option.err.find("unrecognised option '--frobnicate'"), std::string::npos);
  EXPECT_EQ(run_cli({}).exit_code, 2);
}

// docs/cli.md shows each command's --help as a `$ zeroforge ... --help` block: each must be
// what the executable prints, so the reference cannot drift from the options.
TEST(CliTest, DocsShowEachCommandsRealHelp) {
  std::string doc = read_file(test::source_dir() / "docs/cli.md");
  const std::string opening = "```text\n$ zeroforge ";
  int blocks = 0;
  for (std::size_t at = doc.find(opening); at != std::string::npos;
       at = doc.find(opening, at + 1)) {
    std::size_t command_start = at + opening.size() - std::string("zeroforge ").size();
    std::size_t command_end = doc.find('\n', command_start);
    std::string command = doc.substr(command_start, command_end - command_start);
    if (!command.ends_with(" --help")) continue;
    std::size_t body_end = doc.find("```", command_end);
    ASSERT_NE(body_end, std::string::npos) << command;
    std::string shown = doc.substr(command_end + 1, body_end - command_end - 1);
    std::vector<std::string> args;
    std::istringstream words(command.substr(std::string("zeroforge ").size()));
    for (std::string word; words >> word;) args.push_back(word);
    auto help = run_cli(args);
    EXPECT_EQ(help.exit_code, 0) << command;
    // The block ends at its last line; the program may print blank lines after it.
    auto trimmed = [](std::string text) {
      while (!text.empty() && text.back() == '\n') text.pop_back();
      return text;
    };
    EXPECT_EQ(trimmed(help.out), trimmed(shown))
        << "docs/cli.md shows another help for `" << command << "`";
    ++blocks;
  }
  EXPECT_GE(blocks, 8) << "the --help blocks of docs/cli.md were not found";
}

class RenderCliTest : public ::testing::Test {
 protected:
  TempDir dir;
};

TEST_F(RenderCliTest, LayersValuesFilesAndSetInOrder) {
  dir.write("t/x.txt.j2", "{{ a }} {{ b.c }} {{ d }}");
  dir.write("one.json", R"({"a": 1, "b": {"c": "one"}, "d": "one"})");
  dir.write("two.json", R"({"b": {"c": "two"}})");
  auto r = run_cli({"render", "x.txt.j2", "--template-dir", "t", "--values", "one.json", "--values",
                    "two.json", "--set", "d=[1]", "--set", "a=x"},
                   dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "x two [1]");
}

TEST_F(RenderCliTest, JsonTemplatesAreNormalisedAndWrittenAtomically) {
  dir.write("t/c.json.j2", R"({"stage": {{ stage }}, "bucket": 5e8})");
  auto r = run_cli(
      {"render", "c.json.j2", "--template-dir", "t", "--set", "stage=3", "-o", "out/c.json"},
      dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.path() / "out/c.json"),
            "{\n  \"stage\": 3,\n  \"bucket\": 500000000\n}\n");
}

TEST_F(RenderCliTest, TemplateErrorShowsLocationLineAndCaret) {
  dir.write("t/bad.j2", "ok\n  {{ stage + }}\n");
  auto r = run_cli({"render", "bad.j2", "--template-dir", "t", "-o", "out.txt"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "t/bad.j2:2:14: error: expected an expression, found end of print statement '}}' "
            "[template.syntax]\n"
            "    {{ stage + }}\n"
            "               ^\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "out.txt"));
}

TEST_F(RenderCliTest, APathAsTemplateIsRefusedNamingItAndTheWayToRenderIt) {
  dir.write("t/x.j2", "{{ a }}");
  std::string path = (dir.path() / "t/x.j2").string();
  auto absolute = run_cli({"render", path, "--set", "a=1"}, dir.path());
  EXPECT_EQ(absolute.exit_code, 2);
  EXPECT_EQ(absolute.err, "zeroforge: error: TEMPLATE '" + path +
                              "' is a path; TEMPLATE is a name on the template search path (for "
                              "this file: --template-dir " +
                              (dir.path() / "t").string() + " x.j2) [usage.invalid]\n");
  auto climbing = run_cli({"render", "../x.j2", "--template-dir", "t"}, dir.path());
  EXPECT_EQ(climbing.exit_code, 2);
  EXPECT_NE(climbing.err.find("template name '../x.j2' climbs out of the template search path"),
            std::string::npos)
      << climbing.err;
  auto explain = run_cli({"explain", path}, dir.path());
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_NE(explain.err.find("TEMPLATE '" + path + "' is a path"), std::string::npos)
      << explain.err;
}

TEST_F(RenderCliTest, UndefinedNamesAreAllListed) {
  dir.write("t/u.j2", "{{ stage }}{{ precision }}");
  auto r = run_cli({"render", "u.j2", "--template-dir", "t"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "t/u.j2:1:4: error: undefined variable 'stage' (the values lack 'precision' and "
            "'stage') [template.undefined]");
  EXPECT_EQ(r.out, "");
}

// The paths and assignments are longer than std::string's small buffer: short ones once hid
// a double free on these paths (issue 22).
TEST_F(RenderCliTest, BadInputsAreErrorsWithExitCode2) {
  dir.write("t/x.j2", "{{ a }}");
  const std::string folder = "experiments-of-the-platform-team-for-llama-finetuning/values";
  dir.write(folder + "/broken-values-of-a-rather-long-name.json", "{\"a\": 1,,}");
  struct Case {
    std::vector<std::string> args;
    std::string first_line;
  };
  const Case cases[] = {
      {{"render", "x.j2", "--template-dir", "t", "--values",
        folder + "/broken-values-of-a-rather-long-name.json"},
       folder + "/broken-values-of-a-rather-long-name.json:1:9: error: expected a string key, "
                "found ','"},
      {{"render", "x.j2", "--template-dir", "t", "--values",
        folder + "/missing-values-of-a-rather-long-name.json"},
       "zeroforge: error: cannot read '" + folder +
           "/missing-values-of-a-rather-long-name.json': No such file or directory"},
      {{"render", "x.j2", "--template-dir", "t", "--set", "a_rather_long_name_without_a_value"},
       "zeroforge: error: '--set a_rather_long_name_without_a_value': expected KEY=VALUE"},
      {{"render", "x.j2", "--template-dir", "nodir"},
       "zeroforge: error: --template-dir 'nodir' is not a directory"},
      {{"render", "nope.j2", "--template-dir", "t"},
       "zeroforge: error: template 'nope.j2' not found (searched: t, "},
      {{"render"}, "zeroforge: error: render: missing TEMPLATE"},
      {{"render", "x.j2", "--template-dir", "t", "--tier", "no-such-tier"},
       "zeroforge: error: tier 'no-such-tier' not found on the tier search path (searched: "
       "./tiers, "},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[c.args.size() - 1]);
    auto r = run_cli(c.args, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.substr(0, c.first_line.size()), c.first_line);
    EXPECT_EQ(r.out, "");
  }
}

// render is an adapter over the pipeline: every values problem comes back and is printed.
TEST(CliTest, RenderPrintsEveryValuesProblemNotOnlyTheLast) {
  auto r = test::run_cli({"render", "deepspeed/config.json.j2", "--set", "stage=7", "--set",
                          "precision=fp8", "--set", "offload_optimizer=tape"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err,
            "--set stage=7: /stage: error: stage must be an integer 0-3 or null, got 7 "
            "[values.contract]\n"
            "--set precision=fp8: /precision: error: precision must be one of fp32|fp16|bf16, "
            "got \"fp8\" [values.contract]\n"
            "--set offload_optimizer=tape: /offload_optimizer: error: offload_optimizer must be "
            "one of none|cpu|nvme, got \"tape\" [values.contract]\n");
}

}  // namespace
}  // namespace zf
