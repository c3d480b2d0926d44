// SPDX-License-Identifier: MIT
// The command line as a whole (engine/cli/dispatch.cpp, diagnostic_printer.cpp), through the
// real executable: what every command shares. Output that cannot be written is exit 2, help
// and version included; a wrong ZEROFORGE_MAX_INPUT_MIB is an error for every command; what
// the input holds is shown escaped in every message, never acted on by the terminal; under
// --format json an error that stops a command is JSON on stdout too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

// `zeroforge ARGS > /dev/full`, through the shell.
test::CliResult to_full_disk(const std::string& args) {
  return test::run_program("/bin/sh",
                           {"-c", std::string("'") + ZF_CLI_PATH + "' " + args + " > /dev/full"});
}

TEST(DispatchTest, OutputThatCannotBeWrittenIsAnErrorHelpAndVersionIncluded) {
  for (const char* args :
       {"--help", "-h", "help", "--version", "-V", "help generate", "render --help", "list --help",
        "list tiers", "estimate --help", "schema"}) {
    SCOPED_TRACE(args);
    auto r = to_full_disk(args);
    EXPECT_EQ(r.exit_code, 2);
    // The reason is the failed write's errno where it survived (No space left on device).
    EXPECT_EQ(r.err.substr(0, 51), "zeroforge: error: cannot write to standard output: ") << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(DispatchTest, AWrongInputLimitIsAnErrorForEveryCommand) {
  TempDir dir;
  const std::string config = dir.write("config.json", R"({"train_batch_size": 8})").string();
  const std::vector<std::vector<std::string>> commands = {
      {"render", "deepspeed/config.json.j2"},
      {"generate", "example", "-o", (dir.path() / "out").string()},
      {"validate", config},
      {"list", "plugins"},
      {"list", "tiers"},
      {"schema"},
      {"estimate", "--params", "7e9"},
  };
  for (const char* value : {"0", "", "64M", "-1", "1048577", "18446744073709551617"}) {
    for (const auto& args : commands) {
      SCOPED_TRACE(std::string(value) + " " + args[0]);
      auto r = run_cli(args, {}, {std::string("ZEROFORGE_MAX_INPUT_MIB=") + value});
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(r.err, std::string("zeroforge: error: ZEROFORGE_MAX_INPUT_MIB='") + value +
                           "' must be a whole number of MiB from 1 to 1048576 (the largest input "
                           "file zeroforge reads; 64 when unset) [usage.invalid]\n");
    }
  }
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  auto one = run_cli({"validate", config}, {}, {"ZEROFORGE_MAX_INPUT_MIB=1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

// Raw bytes of the input (terminal escape codes, bytes that are not UTF-8, newlines) are shown
// as clang shows them, in every message: they neither act on the terminal nor break a line.
TEST(DispatchTest, MessagesShowTheInputsBytesEscaped) {
  TempDir dir;
  auto unknown = run_cli({"ren\x1b[2Jder\xff"});
  EXPECT_EQ(unknown.err,
            "zeroforge: error: unknown command 'ren<U+001B>[2Jder<FF>' [usage.invalid]\n"
            "Run 'zeroforge --help' for the list of commands.\n");

  const std::string values = (dir.path() / "values of\nmonday\x1b[31m.json").string();
  auto missing = run_cli({"render", "deepspeed/config.json.j2", "--values", values});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "zeroforge: error: cannot read '" + dir.path().string() +
                             "/values of<U+000A>monday<U+001B>[31m.json': No such file or "
                             "directory [io.failed]\n");

  auto option = run_cli({"render", "--bogus\x1b]0;owned\x07"});
  EXPECT_EQ(option.err,
            "zeroforge render: error: unrecognised option '--bogus<U+001B>]0;owned<U+0007>' "
            "[usage.invalid]\n"
            "Run 'zeroforge render --help' for usage.\n");

  // A template error: the message, the source line (tabs kept, the rest escaped) and a caret
  // under the column as the line is shown.
  dir.write("t/bad.json.j2", "{\"a\":\t\"\x01\x1b\", \"b\": {{ nope }}}\n");
  auto source = run_cli(
      {"render", "bad.json.j2", "--template-dir", (dir.path() / "t").string(), "--no-validate"});
  EXPECT_EQ(source.exit_code, 2);
  EXPECT_EQ(source.err.substr(source.err.find('\n') + 1),
            "  {\"a\":\t\"<U+0001><U+001B>\", \"b\": {{ nope }}}\n"
            "       \t                            ^\n")
      << source.err;

  // What a command reports on stdout is a message too (validate's findings name the file).
  const std::string config =
      dir.write("config\x1b[8m.json", R"({"train_batch_size": 8, "bogus_key": 1})").string();
  auto findings = run_cli({"validate", config});
  EXPECT_NE(findings.out.find(dir.path().string() + "/config<U+001B>[8m.json: /bogus_key: "),
            std::string::npos)
      << findings.out;
  EXPECT_EQ(findings.out.find('\x1b'), std::string::npos);
}

// A command run with --format json that stops at an error (exit 2) says so on stdout too, as
// JSON with the diagnostic's code, kind and place, under the key its own JSON lists problems
// in; stderr has the same text as without --format json. A file that is not JSON has the code
// `json.syntax`, whichever file it is (docs/cli.md, "Diagnostic codes").
TEST(DispatchTest, AnErrorThatStopsACommandIsJsonOnStdoutUnderFormatJson) {
  TempDir dir;
  const std::string bad = dir.write("bad.json", "{\"train_batch_size\": 8,\n \"x\": }\n").string();
  const std::string family =
      dir.write("family.json", R"({"name": "a", "template": "deepspeed/config.json.j2",
                                   "tiers": ["no-such-tier"]})")
          .string();
  struct Case {
    std::vector<std::string> args;  // without --format json
    const char* key;
    const char* code;
    std::string file;
    int line;  // 0: the error has a pointer instead
    const char* pointer;
  };
  const std::string out_dir = (dir.path() / "out").string();
  const Case cases[] = {
      {{"generate", bad, "-o", out_dir}, "errors", "json.syntax", bad, 2, ""},
      {{"generate", family, "-o", out_dir}, "errors", "tier.not-found", family, 0, "/tiers/0"},
      {{"explain", "deepspeed/config.json.j2", "--values", bad},
       "diagnostics",
       "json.syntax",
       bad,
       2,
       ""},
      {{"validate", bad}, "errors", "json.syntax", bad, 2, ""},
      {{"import", bad, "-o", (dir.path() / "f.json").string()},
       "errors",
       "json.syntax",
       bad,
       2,
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0] + " " + c.code);
    const auto text = run_cli(c.args);
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--format", "json"});
    const auto json = run_cli(args);
    EXPECT_EQ(text.exit_code, 2);
    EXPECT_EQ(text.out, "");
    EXPECT_EQ(json.exit_code, 2);
    EXPECT_EQ(json.err, text.err);
    const auto out = parse_json_text(json.out, "stdout");
    ASSERT_TRUE(out.is_object()) << json.out;
    EXPECT_EQ(out.size(), 2u) << json.out;
    EXPECT_EQ(out.value("exit_code", 0), 2);
    ASSERT_TRUE(out.contains(c.key) && out[c.key].size() == 1) << json.out;
    const auto& error = out[c.key][0];
    EXPECT_EQ(error.value("code", ""), c.code);
    EXPECT_EQ(error.value("severity", ""), "error");
    EXPECT_EQ(error.value("file", ""), c.file);
    EXPECT_EQ(error.value("line", 0), c.line);
    EXPECT_EQ(error.value("pointer", ""), c.pointer);
    EXPECT_EQ(error.value("kind", ""), c.line != 0 ? "json" : "values");
    // The message is the one stderr shows after "error: ".
    const std::string message = error.value("message", "");
    EXPECT_FALSE(message.empty());
    EXPECT_NE(text.err.find("error: " + message), std::string::npos) << text.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
  EXPECT_FALSE(fs::exists(dir.path() / "f.json"));
}

// Keeps the rule above from eroding: every message goes through print_message or print_error
// (diagnostic_printer.cpp), the one place that escapes; no other CLI code streams to stderr.
TEST(DispatchTest, OnlyTheDiagnosticPrinterStreamsToStderr) {
  std::size_t files = 0;
  // engine/cli and its printing library (engine/cli/printing), whose printer is the one.
  for (const auto& entry :
       fs::recursive_directory_iterator(test::source_dir() / "engine" / "cli")) {
    if (!entry.is_regular_file() || entry.path().filename() == "diagnostic_printer.cpp") continue;
    ++files;
    EXPECT_EQ(read_file(entry.path()).find("std::cerr <<"), std::string::npos) << entry.path();
  }
  EXPECT_GT(files, 20u);
}

}  // namespace
}  // namespace zf
