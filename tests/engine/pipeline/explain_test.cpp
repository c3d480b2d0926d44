// SPDX-License-Identifier: MIT
// Tests for engine/src/pipeline/explain.cpp: where each value came from, as data.
#include <gtest/gtest.h>

#include <algorithm>

#include "pipeline_fixture.hpp"

namespace zf {
namespace {

const ExplainedValue* find(const std::vector<ExplainedValue>& values, const std::string& name) {
  auto it = std::find_if(values.begin(), values.end(),
                         [&](const ExplainedValue& v) { return v.name == name; });
  return it == values.end() ? nullptr : &*it;
}

TEST(ExplainTest, NamesTheLayerOfEveryValueAndSortsThem) {
  ConfigRequest request = test::shipped_request("deepspeed/config.json.j2");
  request.tier = "medium";
  request.sets = {"stage=3", "frobnicate=1"};
  ConfigSession session = open_config(request);
  const PreparedValues values = prepare_values(session);
  const Explanation explanation = explain_values(session, values);
  EXPECT_EQ(explanation.subject, "template deepspeed/config.json.j2");
  EXPECT_EQ(explanation.template_name, "deepspeed/config.json.j2");
  const ExplainedValue* stage = find(explanation.values, "stage");
  ASSERT_NE(stage, nullptr);
  EXPECT_EQ(stage->value, 3);
  EXPECT_EQ(stage->layer, LayerKind::Set);
  EXPECT_EQ(stage->source, "--set stage=3");
  const ExplainedValue* gpus = find(explanation.values, "gpus_per_node");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(gpus->layer, LayerKind::Tier);
  EXPECT_NE(find(explanation.unused, "frobnicate"), nullptr);
  EXPECT_NE(find(explanation.for_plugins, "gpu_memory_gib"), nullptr);
  ASSERT_TRUE(explanation.derived.has_value());
  EXPECT_EQ(explanation.derived->stage, 3);
  EXPECT_TRUE(explanation.problems.empty());
}

TEST(ExplainTest, AFamilyOfSeveralConfigsAsksForOneAndListsThem) {
  GenerateRequest request;
  request.family = "llama-7b";
  request.data_dir = test::source_dir();
  request.builtin_plugin_dir = ZF_BUNDLED_PLUGIN_DIR;
  const Explanation none = explain_family_config(request, "");
  EXPECT_TRUE(none.template_name.empty());
  ASSERT_EQ(none.problems.size(), 1u);
  const Diagnostic& choose = none.problems[0];
  EXPECT_EQ(choose.code, "explain.choose-config");
  EXPECT_EQ(to_string(choose), "zeroforge: error: explain: family 'llama-7b' has " +
                                   std::to_string(choose.notes.size()) +
                                   " configs; choose one with --config PATH:");
  EXPECT_TRUE(std::is_sorted(choose.notes.begin(), choose.notes.end()));

  const std::string config = choose.notes.front();
  const Explanation one = explain_family_config(request, config);
  EXPECT_TRUE(one.problems.empty());
  EXPECT_EQ(one.subject.rfind("config " + config + " of family llama-7b (", 0), 0u) << one.subject;

  const Explanation missing =
      explain_family_config(request, "a-config/that-no-member-of-the-family-writes.json");
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_EQ(missing.problems[0].code, "explain.no-such-config");
  EXPECT_EQ(to_string(missing.problems[0]),
            "zeroforge: error: explain: no config "
            "'a-config/that-no-member-of-the-family-writes.json' in family 'llama-7b'; its "
            "configs:");
  EXPECT_EQ(missing.problems[0].notes, choose.notes);
}

// A member's pinned and contract problems are placed where each value was written, as generate
// places them (the one prepare sequence, prepare/prepare_config.hpp); a family whose output pattern
// is wrong stops with the code generate gives it.
TEST(ExplainTest, AFamilyMembersProblemsHaveGeneratesCodesAndPlaces) {
  test::TempDir dir;
  const std::string folder = test::long_dir(dir).lexically_relative(dir.path()).string() + "/";
  GenerateRequest request;
  request.data_dir = test::source_dir();
  request.builtin_plugin_dir = ZF_BUNDLED_PLUGIN_DIR;
  request.family = dir.write(folder + "pinned-family.json",
                             R"({"name": "p", "template": "deepspeed/zero2.json.j2",
                                 "values": {"stage": 3, "precision": "fp64"},
                                 "output": "z.json"})")
                       .string();
  const Explanation pinned = explain_family_config(request, "z.json");
  std::vector<std::string> seen;
  for (const auto& d : pinned.problems) seen.push_back(d.code + " " + d.json_pointer);
  EXPECT_EQ(seen, (std::vector<std::string>{"values.pinned /values/stage",
                                            "values.contract /values/precision"}));
  EXPECT_EQ(pinned.problems[0].where.file, request.family);
  EXPECT_FALSE(pinned.derived.has_value()) << "no facts from refused values";

  struct Case {
    const char* code;
    const char* family;
  };
  const Case cases[] = {
      {"output.path",
       R"({"name": "o", "template": "deepspeed/config.json.j2", "output": "../z.json"})"},
      {"output.shared-path",
       R"({"name": "s", "template": "deepspeed/config.json.j2", "axes": {"stage": [1, 2]},
           "output": "z.json"})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    request.family = dir.write(folder + "output-family.json", c.family).string();
    try {
      explain_family_config(request, "z.json");
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      EXPECT_EQ(to_diagnostic(error).code, c.code);
      EXPECT_EQ(error.json_pointer(), "/output");
    }
  }
}

}  // namespace
}  // namespace zf
