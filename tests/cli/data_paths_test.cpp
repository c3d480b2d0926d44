// SPDX-License-Identifier: MIT
// Where the CLI finds what ships (engine/cli/data_paths.cpp, list_command.cpp): a
// ZEROFORGE_DATA_DIR that names no directory, or a data directory without the listing's
// directory, is an error that says so; it printed nothing and exited 0.
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

TEST(DataPathsTest, AMissingDataDirectoryIsAnError) {
  const std::string missing = "/nonexistent/share/of/a/zeroforge/that/was/never/installed";
  const std::string err =
      "zeroforge: error: ZEROFORGE_DATA_DIR='" + missing +
      "' is not a directory: it replaces <exe>/../share/zeroforge as the home "
      "of the built-in templates and presets (unset it to use those) [usage.invalid]\n";
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"list", "templates"},
                                             {"list", "presets"},
                                             {"list", "tiers"},
                                             {"render", "deepspeed/config.json.j2"},
                                             {"generate", "example", "-o", "out"}}) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    auto r = run_cli(args, {}, {"ZEROFORGE_DATA_DIR=" + missing});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, err);
  }
}

TEST(DataPathsTest, ADataDirectoryWithoutWhatIsListedIsAnError) {
  TempDir dir;  // exists, and holds neither templates/ nor presets/
  const std::string root = dir.path().string();
  struct Case {
    const char* kind;
    std::string err;
  };
  for (const Case& c : {
           Case{"templates", "the built-in templates directory '" + root + "/templates'"},
           Case{"presets", "the shipped families directory '" + root + "/presets/families'"},
           Case{"tiers", "the shipped tiers directory '" + root + "/presets/tiers'"},
       }) {
    SCOPED_TRACE(c.kind);
    auto r = run_cli({"list", c.kind}, {}, {"ZEROFORGE_DATA_DIR=" + root});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "zeroforge: error: " + c.err +
                         " does not exist (set ZEROFORGE_DATA_DIR to where zeroforge's "
                         "share/zeroforge is, or reinstall) [io.failed]\n");
  }
}

}  // namespace
}  // namespace zf
