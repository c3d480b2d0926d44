// SPDX-License-Identifier: MIT
// Pinned values: `pinned` in a defaults.json (read with every other template's pins checked,
// errors at the file and pointer), and check_pinned_values over merged values, two layers and
// sourced values (the error placed where the change was written).
#include <gtest/gtest.h>

#include <string>

#include "support/cli_runner.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

class TemplatePinsTest : public ::testing::Test {
 protected:
  TemplateDefaults load(const std::string& defaults_json, const std::string& name = "t/a.j2") {
    dir_.write("t/defaults.json", defaults_json);
    Environment env({.search_path = {dir_.path()}});
    return load_template_defaults(env, name);
  }
  std::string load_error(const std::string& defaults_json) {
    try {
      load(defaults_json);
    } catch (const Error& error) {
      return error.json_pointer() + ": " + error.message();
    }
    return "no error";
  }

  test::TempDir dir_;
};

constexpr const char* kDefaults = R"({
  "values": {"stage": 2, "precision": "bf16"},
  "templates": {"t/a.j2": {"stage": 3, "precision": "fp16"}, "t/b.j2": {"stage": 1}},
  "pinned": {"t/a.j2": ["stage"], "t/b.j2": ["stage"]}
})";

TEST_F(TemplatePinsTest, PinsTakeTheirTemplatesEntryValues) {
  TemplatePins pins = load(kDefaults).pins;
  EXPECT_EQ(pins.template_name, "t/a.j2");
  EXPECT_EQ(pins.file, "t/defaults.json");
  ASSERT_EQ(pins.values.size(), 1u);  // precision is a default of t/a.j2, not pinned
  EXPECT_EQ(pins.values.find("stage")->as_int(), 3);
  EXPECT_EQ(load(kDefaults, "t/b.j2").pins.values.find("stage")->as_int(), 1);
  EXPECT_TRUE(load(kDefaults, "t/c.j2").pins.empty());
}

TEST_F(TemplatePinsTest, BadPinsAreErrorsAtTheirPointer) {
  struct Case {
    const char* defaults;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"pins": {}})",
       "/pins: unknown field 'pins' (expected contract, values, templates, pinned)"},
      {R"({"pinned": []})", "/pinned: expected an object"},
      {R"({"templates": {"t/a.j2": {"stage": 3}}, "pinned": {"t/a.j2": "stage"}})",
       "/pinned/t~1a.j2: expected a list of value names"},
      {R"({"templates": {"t/a.j2": {"stage": 3}}, "pinned": {"t/a.j2": [3]}})",
       "/pinned/t~1a.j2/0: expected a string"},
      // Another template's pins are checked too: a typo must not wait for that template.
      {R"({"templates": {"t/a.j2": {"stage": 3}}, "pinned": {"t/x.j2": ["stage"]}})",
       "/pinned/t~1x.j2: 't/x.j2' has no entry under templates to take values from"},
      {R"({"templates": {"t/a.j2": {"stage": 3}}, "pinned": {"t/a.j2": ["stage", "precision"]}})",
       "/pinned/t~1a.j2/1: 'precision' is not set by templates/t/a.j2, so there is no value to "
       "pin"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.defaults);
    EXPECT_EQ(load_error(c.defaults), c.expected);
  }
}

TEST_F(TemplatePinsTest, AChangedValueIsRefusedWhereItWasWritten) {
  TemplatePins pins = load(kDefaults).pins;
  const std::string expected =
      "stage=2, but t/a.j2 pins stage=3 (t/defaults.json /pinned); leave stage unset or render "
      "a template that does not pin it";

  // Merged values: restating the pinned value (3, or 3.0 as Python compares) is fine.
  EXPECT_TRUE(check_pinned_values(pins, Json{{"stage", 3}}).empty());
  EXPECT_TRUE(check_pinned_values(pins, Json{{"stage", 3.0}}).empty());
  EXPECT_TRUE(check_pinned_values(pins, Json::object()).empty());
  auto merged = check_pinned_values(pins, Json{{"stage", 2}});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].message(), expected);
  EXPECT_EQ(merged[0].json_pointer(), "/stage");

  // Two layers: the top hides the base.
  ValueDict base, top;
  base.set("stage", Value(3));
  EXPECT_TRUE(check_pinned_values(pins, top, base).empty());
  top.set("stage", Value(2));
  auto layered = check_pinned_values(pins, top, base);
  ASSERT_EQ(layered.size(), 1u);
  EXPECT_EQ(layered[0].message(), expected);
  base.set("stage", Value(2));
  top.set("stage", Value(3));
  EXPECT_TRUE(check_pinned_values(pins, top, base).empty());

  // Sourced: the error is placed in the layer that wrote the change.
  SourcedValues sourced;
  sourced.apply(Layer{{LayerKind::TemplateDefault, "t/defaults.json"},
                      Json{{"stage", 3}},
                      "t/defaults.json",
                      "/templates/t~1a.j2",
                      ""});
  sourced.apply(
      Layer{{LayerKind::ValuesFile, "run.json"}, Json{{"stage", 2}}, "run.json", "/job", ""});
  auto placed = check_pinned_values(pins, sourced.merged(), &sourced);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].where().file, "run.json");
  EXPECT_EQ(placed[0].json_pointer(), "/job/stage");
  EXPECT_EQ(placed[0].message(), expected);
}

}  // namespace
}  // namespace zf
