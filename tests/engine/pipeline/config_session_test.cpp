// SPDX-License-Identifier: MIT
// Tests for engine/src/pipeline/config_session.cpp: opening a template for the pipeline.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace zf
