// SPDX-License-Identifier: MIT
// Memoized includes (EnvironmentOptions::memoize_includes): renders that reuse an include's
// earlier output must write exactly what a fresh render writes. Each case renders a sequence
// of values through one environment that memoizes and one that does not, on this thread,
// and compares every output (or error) with the other's.
#include "template/include_memo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using nlohmann::ordered_json;
using test::TempDir;

struct MemoCase {
  const char* name;
  std::map<std::string, std::string> files;  // main.j2 is rendered
  std::vector<const char*> values;           // JSON, rendered in turn (twice over)
};

void PrintTo(const MemoCase& c, std::ostream* os) { *os << c.name; }

// What rendering `values` gives, or the error's message.
std::string outcome(const Environment& env, const Value& values) {
  try {
    return env.load("main.j2")->render(values);
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

const MemoCase kCases[] = {
    {"a value that changes",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "[{{ a }}]"}},
     {R"({"a": 1})", R"({"a": 2})", R"({"a": 1})"}},
    // Python's 1 == 1.0 == True, but each prints differently.
    {"numbers equal in Python but printed apart",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "[{{ a }} {{ a | tojson }}]"}},
     {R"({"a": 1})", R"({"a": 1.0})", R"({"a": true})", R"({"a": 1})"}},
    {"a dict whose keys come in another order",
     {{"main.j2", "{% include 'p.j2' %}"},
      {"p.j2", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{{ d | tojson }}"}},
     {R"({"d": {"x": 1, "y": 2}})", R"({"d": {"y": 2, "x": 1}})", R"({"d": {"x": 1, "y": 2}})"}},
    {"a nested value that changes",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{{ z.a.b }}"}},
     {R"({"z": {"a": {"b": [1, 2]}}})", R"({"z": {"a": {"b": [1, 3]}}})"}},
    {"a name that is there, then not",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{{ a is defined }}{{ a | default('-') }}"}},
     {R"({"a": null})", R"({})", R"({"a": null})", R"({"a": "x"})"}},
    {"the includer's variables",
     {{"main.j2", "{% set s = a * 2 %}{% include 'p.j2' %}{% set s = a * 3 %}{% include 'p.j2' %}"},
      {"p.j2", "<{{ s }}>"}},
     {R"({"a": 1})", R"({"a": 2})", R"({"a": 1})"}},
    {"inside a loop, its variable and loop.index",
     {{"main.j2", "{% for x in xs %}{% include 'p.j2' %}{% endfor %}"},
      {"p.j2", "{{ x }}{{ loop.index }},"}},
     {R"({"xs": [1, 1, 2]})", R"({"xs": [2, 1, 1]})"}},
    {"inside a loop, repeating values",
     {{"main.j2", "{% for x in xs %}{% include 'p.j2' %}{% endfor %}"}, {"p.j2", "{{ x }},"}},
     {R"({"xs": [1, 1, 2, 1]})", R"({"xs": [2, 2]})"}},
    {"a namespace the include writes",
     {{"main.j2",
       "{% set ns = namespace(n=0) %}{% include 'p.j2' %}{% include 'p.j2' %}{{ ns.n }}"},
      {"p.j2", "{% set ns.n = ns.n + a %}{{ ns.n }},"}},
     {R"({"a": 1})", R"({"a": 1})", R"({"a": 2})"}},
    {"an include the include makes",
     {{"main.j2", "{% include 'p.j2' %}"},
      {"p.j2", "({% include 'q.j2' %})"},
      {"q.j2", "{{ deep }}"}},
     {R"({"deep": 1})", R"({"deep": 2})", R"({"deep": 1})"}},
    {"an include named by a value",
     {{"main.j2", "{% include 'p.j2' %}"},
      {"p.j2", "{% include which %}"},
      {"q.j2", "q"},
      {"r.j2", "r{{ a }}"}},
     {R"({"which": "q.j2", "a": 1})", R"({"which": "r.j2", "a": 1})",
      R"({"which": "r.j2", "a": 2})"}},
    {"a module imported with context",
     {{"main.j2", "{% include 'p.j2' %}"},
      {"p.j2", "{% import 'm.j2' as m with context %}{{ m.show() }}"},
      {"m.j2", "{% macro show() %}{{ a }}{% endmacro %}"}},
     {R"({"a": 1})", R"({"a": 2})"}},
    {"a module imported without context",
     {{"main.j2", "{% include 'p.j2' %}"},
      {"p.j2", "{% from 'm.j2' import twice %}{{ twice(a) }}"},
      {"m.j2", "{% macro twice(x) %}{{ x }}{{ x }}{% endmacro %}"}},
     {R"({"a": 1})", R"({"a": 2})", R"({"a": 1})"}},
    {"a macro of the includer's",
     {{"main.j2", "{% macro m() %}{{ a }}{% endmacro %}{% include 'p.j2' %}"},
      {"p.j2", "{{ m() }}"}},
     {R"({"a": 1})", R"({"a": 2})"}},
    {"an included template with blocks",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{% block b %}{{ a }}{% endblock %}"}},
     {R"({"a": 1})", R"({"a": 2})"}},
    {"a child template whose parent includes",
     {{"main.j2", "{% extends 'base.j2' %}{% block b %}child {{ a }}{% endblock %}"},
      {"base.j2", "{% include 'p.j2' %}|{% block b %}{% endblock %}"},
      {"p.j2", "p{{ a }}"}},
     {R"({"a": 1})", R"({"a": 2})", R"({"a": 1})"}},
    {"an include that fails for some values",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{{ 10 // a }}"}},
     {R"({"a": 2})", R"({"a": 0})", R"({"a": 2})", R"({"a": 0})"}},
    {"a value the include lacks at first",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{{ a }}"}},
     {R"({})", R"({"a": 1})", R"({})"}},
    {"markup and plain strings",
     {{"main.j2", "{% set s = a | safe if safe else a %}{% include 'p.j2' %}"},
      {"p.j2", "{{ (s ~ '<') | escape }}"}},
     {R"({"a": "<b>", "safe": true})", R"({"a": "<b>", "safe": false})",
      R"({"a": "<b>", "safe": true})"}},
    {"an include without context",
     {{"main.j2", "{% include 'p.j2' without context %}"}, {"p.j2", "{{ a is defined }}"}},
     {R"({"a": 1})", R"({})"}},
    // The entry found last is compared first: values equal to it but for one nested item,
    // then equal to an older entry, then to none.
    {"values like the last entry's but for a nested item",
     {{"main.j2", "{% include 'p.j2' %}"}, {"p.j2", "{{ z | tojson }}{{ n }}"}},
     {R"({"z": {"a": [1, 2]}, "n": 1})", R"({"z": {"a": [1, 2]}, "n": 1})",
      R"({"z": {"a": [1, 3]}, "n": 1})", R"({"z": {"a": [1, 2]}, "n": 1})",
      R"({"z": {"a": [1, 2]}, "n": 1.0})", R"({"z": {"a": [1, 2]}, "n": true})"}},
    // An undefined value the includer set is never a key, where the last entry lacked the name.
    {"a name missing, then set to an undefined value",
     {{"main.j2", "{% if flag %}{% set a = nothing %}{% endif %}{% include 'p.j2' %}"},
      {"p.j2", "{{ a | default('-') }}{% if strict %}{{ a }}{% endif %}"}},
     {R"({"strict": false})", R"({"strict": false, "flag": true})",
      R"({"strict": true, "flag": true})", R"({"strict": false})", R"({"strict": true})"}},
    {"a missing include that may be missing",
     {{"main.j2", "{% include 'none.j2' ignore missing %}{% include 'p.j2' %}"},
      {"p.j2", "{{ a }}"}},
     {R"({"a": 1})", R"({"a": 2})"}},
};

class IncludeMemoTest : public ::testing::TestWithParam<MemoCase> {};

TEST_P(IncludeMemoTest, WritesWhatAFreshRenderWrites) {
  const MemoCase& c = GetParam();
  TempDir dir;
  for (const auto& [name, text] : c.files) dir.write(name, text);
  Environment memoized({.search_path = {dir.path()}});
  Environment fresh({.search_path = {dir.path()}, .memoize_includes = false});
  ASSERT_TRUE(memoized.memoizes_includes());
  ASSERT_FALSE(fresh.memoizes_includes());
  for (int round = 0; round < 2; ++round) {
    for (const char* json : c.values) {
      const Value values = Value::from_json(ordered_json::parse(json));
      EXPECT_EQ(outcome(memoized, values), outcome(fresh, values)) << json;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, IncludeMemoTest, ::testing::ValuesIn(kCases), [](const auto& info) {
  std::string name;
  for (const char* p = info.param.name; *p; ++p)
    name += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return name;
});

// Two environments whose partials have the same name but not the same text, rendered in
// turn on one thread: neither reuses what the other's include wrote.
TEST(IncludeMemo, KeepsEnvironmentsApart) {
  TempDir one, two;
  one.write("main.j2", "{% include 'p.j2' %}");
  two.write("main.j2", "{% include 'p.j2' %}");
  one.write("p.j2", "one {{ a }}");
  two.write("p.j2", "two {{ a }}");
  const Value values = Value::from_json({{"a", 1}});
  for (int i = 0; i < 3; ++i) {
    Environment first({.search_path = {one.path()}});
    Environment second({.search_path = {two.path()}});
    EXPECT_EQ(first.load("main.j2")->render(values), "one 1");
    EXPECT_EQ(second.load("main.j2")->render(values), "two 1");
  }
}

// A function added with add_function may have effects (a plugin's may log), so every call
// it would get in a fresh render, it gets.
TEST(IncludeMemo, IsOffOnceAFunctionIsAdded) {
  TempDir dir;
  dir.write("main.j2", "{% include 'p.j2' %}{% include 'p.j2' %}");
  dir.write("p.j2", "{{ counted(a) }}");
  Environment env({.search_path = {dir.path()}});
  int calls = 0;
  FunctionSpec spec;
  spec.name = "counted";
  spec.variadic = true;
  spec.body = [&calls](const Value&, Arguments& args, const CallContext&) {
    ++calls;
    return args.extra_positional.at(0);
  };
  env.add_function(FunctionKind::Global, std::move(spec));
  EXPECT_FALSE(env.memoizes_includes());
  const Value values = Value::from_json({{"a", 1}});
  EXPECT_EQ(env.load("main.j2")->render(values), "11");
  EXPECT_EQ(env.load("main.j2")->render(values), "11");
  EXPECT_EQ(calls, 4);
}

// Import's fit asks what a render read of its values, and skips a render where nothing read
// could have seen a value: with the values watched the memo stands aside, so the render reads
// (and reports) exactly what a fresh one does.
TEST(IncludeMemo, WatchedValuesSeeExactlyTheReadsOfAFreshRender) {
  TempDir dir;
  dir.write("main.j2", "{% include 'p.j2' %}");
  dir.write("p.j2", "{{ zero.stage }}{{ other is defined }}");
  Environment env({.search_path = {dir.path()}});
  const ordered_json json = {{"zero", {{"stage", 3}, {"unused", 1}}}, {"far", 1}};
  EXPECT_EQ(env.load("main.j2")->render(Value::from_json(json)), "3False");  // now memoized
  const Value values = Value::from_json(json);
  ValueReads reads(values);
  EXPECT_EQ(env.load("main.j2")->render(values), "3False");
  EXPECT_TRUE(reads.may_have_read({"zero", "stage"}));
  EXPECT_TRUE(reads.may_have_read({"other"}));
  EXPECT_FALSE(reads.may_have_read({"zero", "unused"}));
  EXPECT_FALSE(reads.may_have_read({"far"}));
}

// The memo lives with its environment: once the environment is gone, so is every byte the
// memo held (libFuzzer's leak check counts mallocs against frees after each input).
TEST(IncludeMemo, GoesWithItsEnvironment) {
  TempDir dir;
  dir.write("main.j2", "{% include 'p.j2' %}");
  dir.write("p.j2", "{{ a }}");
  for (int i = 0; i < 3; ++i) {
    Environment env({.search_path = {dir.path()}});
    EXPECT_EQ(env.load("main.j2")->render(Value::from_json({{"a", i}})), std::to_string(i));
    EXPECT_GT(detail::IncludeMemo::of(env).held_bytes(), 0u);
  }
  Environment fresh({.search_path = {dir.path()}});
  EXPECT_EQ(detail::IncludeMemo::of(fresh).held_bytes(), 0u);
}

// A process that parses templates without end (each a tree of its own) keeps a bounded memo.
TEST(IncludeMemo, StaysWithinItsBudget) {
  TempDir dir;
  dir.write("p.j2", "{{ a }}");
  Environment env({.search_path = {dir.path()}});
  const Value values = Value::from_json({{"a", 1}});
  std::size_t most = 0;
  for (int i = 0; i < 30000; ++i) {
    auto tpl = env.from_string("{% include 'p.j2' %}" + std::to_string(i % 10), "t");
    ASSERT_EQ(tpl->render(values), "1" + std::to_string(i % 10));
    most = std::max(most, detail::IncludeMemo::of(env).held_bytes());
  }
  EXPECT_LE(most, detail::IncludeMemo::kBudget + 4096);
  EXPECT_GT(most, detail::IncludeMemo::kBudget / 2);  // it did fill up, and started over
}

}  // namespace
}  // namespace zf
