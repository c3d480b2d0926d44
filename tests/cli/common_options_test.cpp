// SPDX-License-Identifier: MIT
// What every command's options share (engine/cli/common_options.cpp and the commands that use
// it), through the real executable: whole-number options checked one way, and `-` meaning
// stdout wherever a command's one output is a file, refused where it cannot.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

TEST(CommonOptionsTest, WholeNumberOptionsAreCheckedTheSameWayEverywhere) {
  TempDir dir;
  const std::string config = dir.write("config.json", R"({"train_batch_size": 8})").string();
  const std::string out = (dir.path() / "out").string();
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      // -j -1 was read as 4294967295.
      {{"generate", "example", "-o", out, "-j", "-1"},
       "generate: --jobs must be a whole number from 1 to 256, got -1 [usage.invalid]"},
      {{"generate", "example", "-o", out, "--jobs=0"},
       "generate: --jobs must be a whole number from 1 to 256, got 0 [usage.invalid]"},
      {{"generate", "example", "-o", out, "-j", "4294967297"},
       "generate: --jobs must be a whole number from 1 to 256, got 4294967297 [usage.invalid]"},
      {{"report", "example", "-o", (dir.path() / "r.html").string(), "-j", "257"},
       "report: --jobs must be a whole number from 1 to 256, got 257 [usage.invalid]"},
      {{"validate", config, "--world-size", "-3"},
       "validate: --world-size must be a whole number from 1 to 1000000000, got -3 "
       "[usage.invalid]"},
      {{"probe", "--nodes", "-1"},
       "probe: --nodes must be a whole number from 1 to 1000000, got -1 [usage.invalid]"},
      {{"probe", "--timeout", "0"},
       "probe: --timeout must be a whole number from 1 to 86400, got 0 [usage.invalid]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.args.back());
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "zeroforge: error: " + c.err + "\n");
  }
  // What is not a number at all is the option parser's error, the same for every command.
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"generate", "example", "-o", out, "-j", "two"},
                                             {"validate", config, "--world-size", "1.5"}}) {
    SCOPED_TRACE(args[0]);
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("zeroforge " + args[0] + ": error: the argument ('" + args.back() +
                         "') for option '--"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// `-o -` is stdout wherever a command's one output is a file: render, schema and report (it
// wrote a file named `-`). Where the output is a directory, or a file beside the command's
// own output, `-` is refused.
TEST(CommonOptionsTest, DashIsStdoutWhereTheOutputIsOneFile) {
  TempDir dir;
  auto render =
      run_cli({"render", "deepspeed/config.json.j2", "--tier", "small", "-o", "-"}, dir.path());
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(render.out.substr(0, 2), "{\n");
  auto schema = run_cli({"schema", "-o", "-"}, dir.path());
  EXPECT_EQ(schema.exit_code, 0) << schema.err;
  EXPECT_EQ(schema.out.substr(0, 2), "{\n");

  auto report = run_cli({"report", "example", "-o", "-"}, dir.path());
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out.substr(0, 15), "<!DOCTYPE html>") << report.out.substr(0, 200);
  EXPECT_EQ(report.out.find("zeroforge: wrote"), std::string::npos) << "stdout is the page alone";
  // Its links lead from the working directory into the configs' directory (here the same).
  EXPECT_NE(report.out.find("href=\"small/zero1-bf16.json\""), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.path() / "-"));
  EXPECT_TRUE(fs::is_empty(dir.path())) << "nothing was written";

  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> refused = {
      {{"generate", "example", "-o", "-"},
       "generate: -o - is stdout, but generate writes a directory [usage.invalid]"},
      {{"generate", "example", "-o", "out", "--depfile", "-"},
       "generate: --depfile - is stdout, but Make and Ninja read the depfile from a file; give "
       "its path [usage.invalid]"},
      {{"generate", "example", "-o", "out", "--report", "-"},
       "generate: --report - is stdout, where generate prints its own output; give a file, or "
       "run zeroforge report -o - [usage.invalid]"},
      {{"probe", "--save", "t", "--dir", "-"},
       "probe: --dir - is stdout, but --save writes into a directory; leave out --save to print "
       "the tier [usage.invalid]"},
  };
  for (const auto& c : refused) {
    SCOPED_TRACE(c.err);
    auto r = run_cli(c.args, dir.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "zeroforge: error: " + c.err + "\n");
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace zf
