// SPDX-License-Identifier: MIT
// `zeroforge list plugins` with plugin files that cannot be loaded beside one that can: each is
// skipped with the warning plugin.skipped, printed on stderr as it always was, and listed under
// "errors" with its code and kind by --format json. The files sit under a long directory (a
// path past std::string's small buffer).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

class ListPluginsCliTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  fs::path plugins = dir.path() / "platform-team-plugins-under-review" / "deepspeed-extensions";

  void SetUp() override {
    fs::create_directories(plugins);
    for (const char* name : {"c_plugin", "no_entry", "not_a_library", "wrong_abi"})
      fs::copy_file(fs::path(ZF_TEST_PLUGIN_DIR) / (std::string(name) + ".so"),
                    plugins / (std::string(name) + ".so"));
  }

  std::string file(const std::string& name) const { return (plugins / (name + ".so")).string(); }
};

TEST_F(ListPluginsCliTest, EachSkippedFileIsAWarningWithItsCode) {
  struct Expected {
    std::string path;
    std::string error;  // the load error's message
  };
  const std::vector<Expected> expected = {
      {file("no_entry"),
       "no entry symbol 'zf_plugin_entry' (define it with ZF_PLUGIN_EXPORT so that it is "
       "exported)"},
      {file("not_a_library"), "not a shared library"},
      {file("wrong_abi"),
       "plugin ABI version 99 does not match zeroforge's ABI version 1; rebuild the plugin "
       "against this zeroforge's zeroforge/plugin.h"},
  };

  auto text = test::run_cli({"list", "plugins", "--plugin-dir", plugins.string()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  std::string err;
  for (const auto& e : expected)
    err += "zeroforge: warning: " + e.path + ": error: " + e.error + " [plugin.skipped]\n";
  EXPECT_EQ(text.err, err);
  EXPECT_NE(text.out.find(file("c_plugin")), std::string::npos) << text.out;

  auto json =
      test::run_cli({"list", "plugins", "--plugin-dir", plugins.string(), "--format", "json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.err, "") << "--format json carries them instead";
  const Json errors = Json::parse(json.out).at("errors");
  ASSERT_EQ(errors.size(), expected.size()) << json.out;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].path);
    EXPECT_EQ(errors[i], Json({{"path", expected[i].path},
                               {"error", expected[i].error},
                               {"code", "plugin.skipped"},
                               {"kind", "plugin"},
                               {"severity", "warning"},
                               {"message", expected[i].path + ": error: " + expected[i].error}}));
  }
}

}  // namespace
}  // namespace zf
