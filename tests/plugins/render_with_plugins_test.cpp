// SPDX-License-Identifier: MIT
// `zeroforge render` with --plugin, --plugin-dir and --plugin-opt, end to end through the real
// executable: plugin functions in a template, values and output hooks, and failures that write
// nothing.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
const std::string kDir = ZF_TEST_PLUGIN_DIR;

class RenderWithPluginsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("t/config.json.j2",
               "{\"name\": \"{{ name | shout }}\", \"greeting\": \"{{ c_greeting() }}\",\n"
               " \"seen\": {{ 'true' if c_seen else 'false' }}, \"remove_me\": 1}\n");
  }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> out = {
        "render", "config.json.j2", "--template-dir", (dir_.path() / "t").string(), "--plugin-dir",
        kDir,     "--set",          "name=zero"};
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }
  test::TempDir dir_;
};

TEST_F(RenderWithPluginsTest, RendersATemplateThatCallsPluginFunctions) {
  auto result = test::run_cli(args({"--plugin", "functions", "--plugin", kDir + "/c_plugin.so",
                                    "--plugin-opt", "functions.suffix=!"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "{\n  \"name\": \"ZERO!\",\n  \"greeting\": \"hello from C\",\n  \"seen\": true,\n"
            "  \"c_field\": 1\n}\n");
  EXPECT_EQ(result.err,
            "zeroforge: warning: plugin 'c_plugin': values hook ran [plugin.message]\n");
}

TEST_F(RenderWithPluginsTest, APluginFailureIsReportedAndNothingIsWritten) {
  fs::path output = dir_.path() / "out.json";
  auto result = test::run_cli(args({"--plugin", "functions", "--plugin", "c_plugin", "--plugin",
                                    "failing_hook", "-o", output.string()}));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "zeroforge: warning: plugin 'c_plugin': values hook ran [plugin.message]\n" + kDir +
                "/failing_hook.so: error: plugin 'failing_hook': values hook failed: "
                "deliberate failure in the values hook [plugin.failed]\n");
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(RenderWithPluginsTest, ReportsUnknownPluginsAndOptions) {
  auto unknown = test::run_cli(args({"--plugin", "nope"}));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(
      unknown.err.rfind("zeroforge: error: plugin 'nope' not found (searched " + kDir + ", ", 0),
      0u)
      << unknown.err;
  auto option = test::run_cli(args({"--plugin", "functions", "--plugin-opt", "function.suffix=x"}));
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_EQ(option.err,
            "zeroforge: error: '--plugin-opt function.suffix=x' names plugin 'function', which is "
            "not loaded (loaded: functions) [usage.invalid]\n");
}

}  // namespace
}  // namespace zf
