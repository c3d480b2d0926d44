// SPDX-License-Identifier: MIT
// Tests for engine/src/pipeline/render_steps.cpp: rendering and validating one template, and
// render(), which runs every step and returns what stopped it as diagnostics.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "pipeline_fixture.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

TEST(RenderStepsTest, RenderGivesWhatTheCliWrites) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = "medium";
  request.sets = {"stage=3", "offload_optimizer=cpu"};
  const RenderResult result = render(request);
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_TRUE(result.diagnostics.empty());
  EXPECT_TRUE(result.json);
  const test::CliResult cli =
      test::run_cli({"render", "deepspeed/config.json.j2", "--tier", "medium", "--set", "stage=3",
                     "--set", "offload_optimizer=cpu"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(result.text, cli.out);
  EXPECT_EQ(to_json_text(result.config), cli.out);
  EXPECT_EQ(result.config["zero_optimization"]["stage"], 3);
}

TEST(RenderStepsTest, TextTemplatesRenderToText) {
  test::TempDir dir;
  const auto templates = test::long_dir(dir);
  write_file_atomically(templates / "launch-notes.txt.j2", "stage {{ stage }}\n");
  ConfigRequest request = test::shipped_request("launch-notes.txt.j2");
  request.template_dirs = {templates};
  request.sets = {"stage=3"};
  const RenderResult result = render(request);
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_FALSE(result.json);
  EXPECT_EQ(result.text, "stage 3");  // the last newline goes, as in Jinja2
  EXPECT_TRUE(result.findings.empty());
}

TEST(RenderStepsTest, ATemplateErrorIsADiagnosticWithItsLocation) {
  test::TempDir dir;
  const auto templates = test::long_dir(dir);
  write_file_atomically(templates / "team-config.json.j2", "{{ nope }}\n");
  ConfigRequest request = test::shipped_request("team-config.json.j2");
  request.template_dirs = {templates};
  const RenderResult result = render(request);
  EXPECT_EQ(result.outcome, Outcome::Failed);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic& d = result.diagnostics[0];
  EXPECT_EQ(d.code, "template.undefined");
  EXPECT_EQ(d.kind, ErrorKind::Undefined);
  EXPECT_EQ(d.source_line, "{{ nope }}");
  EXPECT_EQ(to_string(d), (templates / "team-config.json.j2").string() +
                              ":1:4: error: undefined variable 'nope' (the values lack 'nope')");
}

// A values object (the Python module's `values=`) that is not an object is `values.not-object`
// (docs/cli.md), at its label, whatever it is instead.
TEST(RenderStepsTest, AValuesObjectThatIsNotAnObjectIsValuesNotObject) {
  const std::string label = "values-from-the-python-caller-of-the-platform-team[2]";
  struct Case {
    Json value;
    const char* type;
  };
  const Case cases[] = {{Json::array({"stage", 3}), "array"},
                        {Json("stage=3"), "string"},
                        {Json(3), "number"},
                        {Json(nullptr), "null"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
    request.values_objects = {{label, c.value}};
    const RenderResult result = render(request);
    EXPECT_EQ(result.outcome, Outcome::Failed);
    ASSERT_EQ(result.diagnostics.size(), 1u);
    const Diagnostic& d = result.diagnostics[0];
    EXPECT_EQ(d.code, "values.not-object");
    EXPECT_EQ(d.kind, ErrorKind::Values);
    EXPECT_EQ(d.json_pointer, "/");
    EXPECT_EQ(to_string(d), label + ": /: error: values must be an object, got " + c.type);
  }
}

TEST(RenderStepsTest, EveryValuesProblemComesBackNotJustTheLast) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.sets = {"stage=7", "precision=fp8"};
  const RenderResult result = render(request);
  EXPECT_EQ(result.outcome, Outcome::Failed);
  ASSERT_EQ(result.diagnostics.size(), 2u);
  EXPECT_EQ(result.diagnostics[0].json_pointer, "/stage");
  EXPECT_EQ(result.diagnostics[1].json_pointer, "/precision");
  EXPECT_TRUE(result.text.empty());
}

TEST(RenderStepsTest, ValidatorErrorsRefuseTheConfigAndValidationCanBeOff) {
  test::TempDir dir;
  const auto templates = test::long_dir(dir);
  // DeepSpeed asserts that at most one of fp16 and bf16 is enabled.
  write_file_atomically(templates / "hand-written.json.j2",
                        R"({"fp16": {"enabled": true}, "bf16": {"enabled": true}})");
  ConfigRequest request = test::shipped_request("hand-written.json.j2");
  request.template_dirs = {templates};
  request.validation = Validation::DeepSpeed;
  const RenderResult refused = render(request);
  EXPECT_EQ(refused.outcome, Outcome::Refused);
  EXPECT_TRUE(has_errors(refused.findings));
  EXPECT_TRUE(refused.text.empty());
  ASSERT_EQ(refused.findings.size(), 2u);
  EXPECT_EQ(refused.findings[0].file, "hand-written.json.j2");
  EXPECT_EQ(refused.findings[0].rule, "batch-missing");
  EXPECT_EQ(refused.findings[1].rule, "fp16-bf16-both");

  request.validation = Validation::ByContract;  // no contract: not validated
  ConfigSession session = open_config(request);
  const PreparedValues values = prepare_values(session);
  const RenderedConfig rendered = render_config(session, values);
  const ValidatedConfig validated = validate_rendered(session, values, rendered, "out.json");
  EXPECT_FALSE(validated.checked);
  EXPECT_EQ(validated.outcome(), Outcome::Done);
  EXPECT_EQ(rendered.config["bf16"]["enabled"], true);
}

TEST(RenderStepsTest, TwoThreadsRenderAtOnceWithSeparateCalls) {
  // Each thread renders its own requests over and over; every result must equal the one the
  // same request gives alone. Run under the tsan preset to check for data races too.
  ConfigRequest zero3 = test::shipped_request("deepspeed/zero3.json.j2");
  zero3.tier = "large";
  zero3.sets = {"precision=fp16"};
  ConfigRequest medium = test::shipped_request("deepspeed/config.json.j2");
  medium.tier = "medium";
  medium.sets = {"stage=1", "frobnicate=1"};
  const RenderResult alone[] = {render(zero3), render(medium)};
  ASSERT_EQ(alone[0].outcome, Outcome::Done);
  ASSERT_EQ(alone[1].outcome, Outcome::Done);
  ASSERT_NE(alone[0].text, alone[1].text);
  std::vector<std::string> mismatches[2];
  auto run = [&](int which) {
    const ConfigRequest& request = which == 0 ? zero3 : medium;
    for (int i = 0; i < 20; ++i) {
      const RenderResult result = render(request);
      if (result.text != alone[which].text ||
          result.diagnostics.size() != alone[which].diagnostics.size())
        mismatches[which].push_back("render " + std::to_string(i));
    }
  };
  std::thread first(run, 0);
  std::thread second(run, 1);
  first.join();
  second.join();
  EXPECT_TRUE(mismatches[0].empty()) << mismatches[0].front();
  EXPECT_TRUE(mismatches[1].empty()) << mismatches[1].front();
  EXPECT_EQ(alone[1].diagnostics[0].code, "values.unread");
}

}  // namespace
}  // namespace zf
