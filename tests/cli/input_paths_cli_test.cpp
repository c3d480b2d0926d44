// SPDX-License-Identifier: MIT
// Paths read from files and given on the command line, through the real executable (issue #36):
// a NUL in a path from a file is exit 2 at its file and JSON pointer (never cut short), and a
// path that is not a readable file says what it is (a directory, a FIFO, a device), whichever
// command reads it as a tier, a values file, a model, a profile, a template or a plugin.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

constexpr const char* kFifoEmpty =
    "is a FIFO (a named pipe) and nothing was written to it; give a file, or write to the pipe "
    "while zeroforge reads it [io.failed]";
constexpr const char* kDevice =
    "is a character device (such as /dev/zero or a terminal), not a file [io.failed]";

std::string nul_message(const std::string& shown, const std::string& cut) {
  return "path \"" + shown + "\" contains a NUL byte (U+0000) at byte " +
         std::to_string(cut.size()) + ", where the system would end it (it would read \"" + cut +
         "\")";
}

TEST(InputPathsCliTest, ANulInAPathFromAFamilyIsRefusedAtItsPointer) {
  TempDir dir;
  // The file the cut path would name exists: before, it was read silently.
  dir.write("tiers/medium.json", R"({"gpus_per_node": 8, "nodes": 1})");
  dir.write("models/m.json", R"({"layers": 2, "hidden": 64, "heads": 2, "vocab": 100,
                                 "seq_len": 32})");
  struct Case {
    const char* name;
    std::string fields;
    std::string pointer;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"tier", R"("tiers": ["tiers/medium.json\u0000x"])", "/tiers/0",
       nul_message("tiers/medium.json\\u0000x", "tiers/medium.json")},
      {"template dir", R"("template_dirs": ["t\u0000"])", "/template_dirs/0",
       nul_message("t\\u0000", "t")},
      {"output pattern", R"("output": "a\u0000.json")", "/output",
       nul_message("a\\u0000.json", "a")},
      {"site profile",
       R"("plugins": [{"name": "site_fields", "options": {"profile": "s.json\u0000"}}])",
       "/plugins/0/options/profile", nul_message("s.json\\u0000", "s.json")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string family =
        dir.write("family.json",
                  R"({"name": "f", "template": "deepspeed/config.json.j2", )" + c.fields + "}")
            .string();
    auto result = run_cli({"generate", family, "-o", (dir.path() / "out").string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err,
              family + ": " + c.pointer + ": error: " + c.message + " [family.invalid]\n");
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }

  // auto_fit.model is a value the memory plugin opens: the SDK's reader refuses it, and the
  // refusal is placed at the value's pointer in the family that wrote it.
  const std::string fit =
      dir.write("fit.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
        "values": {"auto_fit": {"model": "models/m.json\u0000.bak"}},
        "tiers": ["tiers/medium.json"], "plugins": ["memory"]})")
          .string();
  auto model = run_cli({"generate", fit, "-o", (dir.path() / "out").string()});
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("error: plugin 'memory': values hook failed: family f, tier medium: "
                           "/auto_fit/model: model preset: " +
                           nul_message("models/m.json\\u0000.bak", "models/m.json") +
                           " (set by family " + fit + ") [plugin.failed]\n"),
            std::string::npos)
      << model.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

// A directory, FIFO or device given where a file is read: each command says what it is, with
// exit 2 (it was "not found", "malformed JSON" or "larger than 64 MiB").
TEST(InputPathsCliTest, APathThatIsNotAFileSaysWhatItIs) {
  TempDir dir;
  fs::create_directories(dir.path() / "tiers" / "big.json");
  fs::create_directories(dir.path() / "t" / "x.json.j2");
  fs::create_directories(dir.path() / "p.so");
  const fs::path fifo = dir.path() / "values-pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = (dir.path() / "tiers" / "big.json").string();
  const std::string family =
      dir.write("family.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
                                   "tiers": ["tiers/big.json"]})")
          .string();
  const std::string shared_values =
      dir.write("shared.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
                                   "values_files": ["values-pipe.json"]})")
          .string();
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string err;  // the first line of stderr
  };
  const std::string render = "render";
  const std::vector<Case> cases = {
      {"tier path in a family (a directory)",
       {"generate", family, "-o", (dir.path() / "out").string()},
       family + ": /tiers/0: error: tier 'tiers/big.json': " + big +
           " is a directory [tier.not-found]"},
      {"values file of a family (a FIFO)",
       {"generate", shared_values, "-o", (dir.path() / "out").string()},
       shared_values + ": /values_files/0: error: values file 'values-pipe.json': " +
           fifo.string() + " is a FIFO (a named pipe), not a file [family.invalid]"},
      {"--tier path (a directory)",
       {render, "deepspeed/config.json.j2", "--tier", big},
       "zeroforge: error: tier '" + big + "': " + big + " is a directory [tier.not-found]"},
      {"--tier path (a FIFO)",
       {render, "deepspeed/config.json.j2", "--tier", fifo.string()},
       "zeroforge: error: tier '" + fifo.string() + "': " + fifo.string() +
           " is a FIFO (a named pipe), not a file [tier.not-found]"},
      {"--values FIFO",
       {render, "deepspeed/config.json.j2", "--values", fifo.string()},
       "zeroforge: error: cannot read '" + fifo.string() + "': " + kFifoEmpty},
      {"--values /dev/zero",
       {render, "deepspeed/config.json.j2", "--values", "/dev/zero"},
       "zeroforge: error: cannot read '/dev/zero': " + std::string(kDevice)},
      {"--values directory",
       {render, "deepspeed/config.json.j2", "--values", dir.path().string()},
       "zeroforge: error: cannot read '" + dir.path().string() + "': is a directory [io.failed]"},
      {"family is a FIFO",
       {"generate", fifo.string(), "-o", (dir.path() / "out").string()},
       "zeroforge: error: family file '" + fifo.string() +
           "' is a FIFO (a named pipe), not a file [usage.invalid]"},
      {"family is a directory",
       {"generate", big, "-o", (dir.path() / "out").string()},
       "zeroforge: error: family file '" + big + "' is a directory [usage.invalid]"},
      {"template on the search path (a directory)",
       {render, "x.json.j2", "--template-dir", (dir.path() / "t").string()},
       "zeroforge: error: template 'x.json.j2' not found (searched: " +
           (dir.path() / "t").string() + ", " +
           (fs::path(ZF_BINARY_DIR) / "share" / "zeroforge" / "templates").string() + "; " +
           (dir.path() / "t" / "x.json.j2").string() + " is a directory) [template.load]"},
      {"--plugin path (a directory)",
       {render, "deepspeed/config.json.j2", "--plugin", (dir.path() / "p.so").string()},
       (dir.path() / "p.so").string() + ": error: plugin file is a directory [plugin.failed]"},
      {"--model directory",
       {"estimate", "--model", big},
       "zeroforge estimate: error: model preset: cannot read '" + big +
           "': is a directory [usage.invalid]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = run_cli(c.args, dir.path());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err.substr(0, result.err.find('\n')), c.err) << result.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }
}

}  // namespace
}  // namespace zf
