// SPDX-License-Identifier: MIT
// ValueReads: what a render read of its values, key by key, with every use of a dict as a
// whole (iteration, tojson, length, truthiness, a copy) counting as reading all of it.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "zeroforge/environment.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;
using Path = std::vector<std::string>;

const Json kValues = Json::parse(R"({
  "stage": 2,
  "zero": {"overlap": true, "stage3_knob": 5, "nested": {"a": 1}},
  "extra": {"k": 1},
  "list": [{"in_list": 1}]
})");

// Renders `source` over kValues, watched; returns the reads.
struct Watched {
  std::unique_ptr<ValueReads> reads;
  std::string out;
};
Watched render_watched(const std::string& source) {
  Environment env;
  auto tpl = env.from_string(source, "t.j2");
  Value values = Value::from_json(kValues);
  Watched w{std::make_unique<ValueReads>(values), ""};
  w.out = tpl->render(values);
  return w;
}

TEST(ValueReadsTest, AKeyNeverLookedUpIsNotRead) {
  Watched w = render_watched("{{ zero.overlap }}");
  EXPECT_EQ(w.out, "True");
  EXPECT_TRUE(w.reads->may_have_read({"zero", "overlap"}));
  EXPECT_FALSE(w.reads->may_have_read({"zero", "stage3_knob"}));
  EXPECT_FALSE(w.reads->may_have_read({"stage"}));
  EXPECT_FALSE(w.reads->may_have_read({"zero", "nested", "a"}));
  // The dict around a value read was itself read below, and so is the root.
  EXPECT_TRUE(w.reads->may_have_read({"zero"}));
  EXPECT_TRUE(w.reads->may_have_read({}));
}

TEST(ValueReadsTest, ALookUpThatMissesIsARead) {
  // Whether the key is there is what the template asked: its absence would change the render.
  Watched w = render_watched("{{ zero.missing is defined }} {{ 'other' in zero }}");
  EXPECT_EQ(w.out, "False False");
  EXPECT_TRUE(w.reads->may_have_read({"zero", "missing"}));
  EXPECT_TRUE(w.reads->may_have_read({"zero", "other"}));
  EXPECT_FALSE(w.reads->may_have_read({"zero", "overlap"}));
}

TEST(ValueReadsTest, UsingADictWholeReadsEveryKeyUnderIt) {
  const char* whole_uses[] = {
      "{% for k, v in zero.items() %}{% endfor %}",
      "{% for k in zero %}{% endfor %}",
      "{{ zero | tojson }}",
      "{{ zero | length }}",
      "{{ zero.keys() | list }}",
      "{{ 'yes' if zero }}",
      "{{ zero == {} }}",
      "{{ zero }}",
      "{% macro m(d) %}{{ d | tojson }}{% endmacro %}{{ m(zero) }}",
  };
  for (const char* source : whole_uses) {
    SCOPED_TRACE(source);
    Watched w = render_watched(source);
    EXPECT_TRUE(w.reads->may_have_read({"zero", "stage3_knob"}));
    EXPECT_TRUE(w.reads->may_have_read({"zero", "nested", "a"}));
    EXPECT_FALSE(w.reads->may_have_read({"stage"}));
  }
}

TEST(ValueReadsTest, AValueCarriedButNotUsedIsStillRead) {
  // Reads are look-ups: a knob copied into a dict literal counts even if it is never printed
  // (the template should look up only what it writes).
  Watched w = render_watched("{% set knobs = {'k': zero.stage3_knob} %}{{ knobs | length }}");
  EXPECT_TRUE(w.reads->may_have_read({"zero", "stage3_knob"}));
}

TEST(ValueReadsTest, LookUpsThroughAMacroArgumentAreThoseOfTheDict) {
  Watched w = render_watched("{% macro m(d) %}{{ d.overlap }}{% endmacro %}{{ m(zero) }}");
  EXPECT_TRUE(w.reads->may_have_read({"zero", "overlap"}));
  EXPECT_FALSE(w.reads->may_have_read({"zero", "stage3_knob"}));
}

TEST(ValueReadsTest, ADictInsideAListIsReadThroughTheList) {
  Watched untouched = render_watched("{{ stage }}");
  EXPECT_FALSE(untouched.reads->may_have_read({"list"}));
  Watched w = render_watched("{{ list[0].in_list }}");
  EXPECT_TRUE(w.reads->may_have_read({"list"}));
}

TEST(ValueReadsTest, TheRootUsedWholeReadsEverything) {
  Value values = Value::from_json(kValues);
  ValueReads reads(values);
  ValueDict copy = values.as_dict();  // a copy reads all of it
  EXPECT_EQ(copy.size(), 4u);
  EXPECT_TRUE(reads.may_have_read({"stage"}));
  EXPECT_TRUE(reads.may_have_read({"zero", "nested", "a"}));
}

TEST(ValueReadsTest, WatchingEndsWithTheReads) {
  Value values = Value::from_json(kValues);
  {
    ValueReads reads(values);
    EXPECT_NE(values.as_dict().find("stage"), nullptr);
    EXPECT_TRUE(reads.may_have_read({"stage"}));
  }
  // Not watched any more: reading it records nothing anywhere, and a new watch starts clean.
  EXPECT_NE(values.as_dict().find("zero"), nullptr);
  ValueReads again(values);
  EXPECT_FALSE(again.may_have_read({"zero"}));
}

TEST(ValueReadsTest, NotADictKnowsNothing) {
  ValueReads reads(Value(3));
  EXPECT_TRUE(reads.may_have_read({"anything"}));
}

}  // namespace
}  // namespace zf
