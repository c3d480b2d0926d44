// SPDX-License-Identifier: MIT
// Tests for engine/src/pipeline/config_session.cpp: opening a template for the pipeline.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "pipeline_fixture.hpp"

namespace zf {
namespace {

std::string open_error(ConfigRequest request) {
  try {
    open_config(std::move(request));
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ConfigSessionTest, OpensTheTemplateWithItsDefaultsAndContract) {
  ConfigSession session = open_config(test::shipped_request("deepspeed/zero3.json.j2"));
  EXPECT_EQ(session.config_template().name(), "deepspeed/zero3.json.j2");
  EXPECT_EQ(session.defaults().contract, "deepspeed");
  EXPECT_TRUE(session.plugins().empty());
  EXPECT_TRUE(session.take_plugin_messages().empty());
}

TEST(ConfigSessionTest, ATemplatePathIsRefusedWithTheDirectoryToSearch) {
  const std::string path =
      "/home/someone/platform-team-configs/deepspeed-templates/finetune-config.json.j2";
  EXPECT_EQ(open_error(test::shipped_request(path)),
            "error: TEMPLATE '" + path +
                "' is a path; TEMPLATE is a name on the template search path (for this file: "
                "--template-dir /home/someone/platform-team-configs/deepspeed-templates "
                "finetune-config.json.j2)");
}

TEST(ConfigSessionTest, ATemplateDirThatIsNotADirectoryIsAUsageError) {
  test::TempDir dir;
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.template_dirs.push_back(test::long_dir(dir) / "missing-templates");
  try {
    open_config(request);
    FAIL() << "opened";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Usage);
    EXPECT_EQ(
        std::string(error.what()),
        "error: --template-dir '" + request.template_dirs[0].string() + "' is not a directory");
  }
}

TEST(ConfigSessionTest, AMissingTemplateIsATemplateError) {
  try {
    open_config(test::shipped_request("deepspeed/no-such-config-template.json.j2"));
    FAIL() << "opened";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Template);
    EXPECT_EQ(std::string(error.what()),
              "error: template 'deepspeed/no-such-config-template.json.j2' not found (searched: " +
                  (test::source_dir() / "templates").string() + ")");
  }
}

// What a plugin logs reaches every caller as the diagnostic plugin.message: warnings and errors
// with the CLI's line, the levels below warning not at all. A long plugin name and text, past
// std::string's small buffer.
TEST(ConfigSessionTest, PluginMessagesAreDiagnosticsWithTheirCode) {
  const std::string plugin = "platform-team-site-fields-for-the-training-cluster";
  const std::string text =
      "profile /etc/platform-team/deepspeed/site-profiles/cluster-a100.json has no 'partition'";
  struct Case {
    PluginLogLevel level;
    std::optional<Severity> severity;  // nullopt: not shown
    std::string line;
  };
  const std::vector<Case> cases = {
      {PluginLogLevel::Debug, std::nullopt, ""},
      {PluginLogLevel::Info, std::nullopt, ""},
      {PluginLogLevel::Warning, Severity::Warning,
       "zeroforge: warning: plugin '" + plugin + "': " + text},
      {PluginLogLevel::Error, Severity::Error,
       "zeroforge: error: plugin '" + plugin + "': " + text},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    std::optional<Diagnostic> d = plugin_message_diagnostic({plugin, c.level, text});
    ASSERT_EQ(d.has_value(), c.severity.has_value());
    if (!d) continue;
    EXPECT_EQ(d->code, "plugin.message");
    EXPECT_EQ(d->severity, *c.severity);
    EXPECT_EQ(d->kind, ErrorKind::Plugin);
    EXPECT_EQ(to_string(*d), c.line);
  }
}

}  // namespace
}  // namespace zf
