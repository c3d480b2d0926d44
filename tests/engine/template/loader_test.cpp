// SPDX-License-Identifier: MIT
// Loading templates from the search path: order, containment, include/extends/import and
// their failure modes.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using nlohmann::ordered_json;
using test::TempDir;

class LoaderTest : public ::testing::Test {
 protected:
  std::string render(const std::string& name, const ordered_json& values = ordered_json::object()) {
    Environment env({.search_path = {first.path(), second.path()}});
    return env.load(name)->render(Value::from_json(values));
  }
  std::string error(const std::string& name, const ordered_json& values = ordered_json::object()) {
    try {
      render(name, values);
    } catch (const Error& e) {
      std::string what = e.what();
      // Paths in messages depend on the temp dir; show them relative to it.
      for (const auto* dir : {&first, &second}) {
        std::string prefix = dir->path().string() + "/";
        for (std::size_t at; (at = what.find(prefix)) != std::string::npos;)
          what.replace(at, prefix.size(), "");
      }
      return what;
    }
    return "";
  }
  TempDir first, second;
};

TEST_F(LoaderTest, EarlierDirectoriesWin) {
  first.write("a.j2", "first");
  second.write("a.j2", "second");
  second.write("b.j2", "only second");
  EXPECT_EQ(render("a.j2"), "first");
  EXPECT_EQ(render("b.j2"), "only second");
}

TEST_F(LoaderTest, IncludeSeesTheContextAndLoopVariables) {
  first.write("main.j2", "{% for x in xs %}{% include 'part.j2' %}{% endfor %}");
  first.write("part.j2", "[{{ x }}{{ suffix }}]");
  EXPECT_EQ(render("main.j2", {{"xs", {1, 2}}, {"suffix", "!"}}), "[1!][2!]");
}

TEST_F(LoaderTest, IncludeWithoutContextSeesNothing) {
  first.write("main.j2", "{% include 'part.j2' without context %}");
  first.write("part.j2", "{{ v is defined }}");
  EXPECT_EQ(render("main.j2", {{"v", 1}}), "False");
}

TEST_F(LoaderTest, ExtendsWithBlocksAndSuper) {
  first.write("base.j2", "<{% block a %}base-a{% endblock %}|{% block b %}base-b{% endblock %}>");
  first.write("mid.j2", "{% extends 'base.j2' %}{% block a %}mid({{ super() }}){% endblock %}");
  first.write("leaf.j2",
              "{% extends 'mid.j2' %}{% block a %}leaf({{ super() }}){% endblock %}ignored");
  EXPECT_EQ(render("leaf.j2"), "<leaf(mid(base-a))|base-b>");
}

TEST_F(LoaderTest, BlocksSeeTemplateValuesAndTopLevelSets) {
  first.write("base.j2", "{% block a %}{% endblock %}");
  first.write(
      "child.j2",
      "{% extends 'base.j2' %}{% set n = 2 %}{% block a %}{{ stage }}{{ n }}{% endblock %}");
  EXPECT_EQ(render("child.j2", {{"stage", 3}}), "32");
}

TEST_F(LoaderTest, ScopedComesFromTheBlockWhereItStands) {
  first.write("base.j2", "{% for i in [1, 2] %}{% block item scoped %}{% endblock %}{% endfor %}");
  first.write("child.j2", "{% extends 'base.j2' %}{% block item %}<{{ i }}>{% endblock %}");
  EXPECT_EQ(render("child.j2"), "<1><2>");
}

TEST_F(LoaderTest, ImportsMacros) {
  first.write("macros.j2", "{% macro kv(k, v) %}\"{{ k }}\": {{ v }}{% endmacro %}");
  first.write("main.j2",
              "{% import 'macros.j2' as m %}{% from 'macros.j2' import kv as pair %}{{ m.kv('a', "
              "1) }} {{ pair('b', 2) }}");
  EXPECT_EQ(render("main.j2"), "\"a\": 1 \"b\": 2");
}

TEST_F(LoaderTest, TeamTemplateOverridesOneBlockOfABuiltIn) {
  second.write("deepspeed/base.j2",
               "{% block zero %}zero{% endblock %}/{% block monitor %}none{% endblock %}");
  first.write("team.j2",
              "{% extends 'deepspeed/base.j2' %}{% block monitor %}tensorboard{% endblock %}");
  EXPECT_EQ(render("team.j2"), "zero/tensorboard");
}

TEST_F(LoaderTest, RejectsNamesOutsideTheSearchPath) {
  first.write("main.j2", "{% include '../secret.j2' %}");
  first.write("abs.j2", "{% include '/etc/passwd' %}");
  EXPECT_EQ(error("main.j2"),
            "main.j2:1:4: error: template name '../secret.j2' climbs out of the template search "
            "path with '..'");
  EXPECT_EQ(error("abs.j2"),
            "abs.j2:1:4: error: template name '/etc/passwd' is absolute; names are relative to the "
            "template search path");
  EXPECT_EQ(error("a/../../x.j2"),
            "error: template name 'a/../../x.j2' climbs out of the template search path with '..'");
}

TEST_F(LoaderTest, NormalisesNamesInsideTheSearchPath) {
  first.write("a/b.j2", "ok");
  EXPECT_EQ(render("a/./x/../b.j2"), "ok");
}

TEST_F(LoaderTest, ReportsMissingTemplates) {
  first.write("main.j2", "x\n{% include 'nope.j2' %}");
  EXPECT_EQ(error("main.j2").substr(0, 50), "main.j2:2:4: error: template 'nope.j2' not found (");
  first.write("opt.j2", "a{% include 'nope.j2' ignore missing %}b");
  EXPECT_EQ(render("opt.j2"), "ab");
  EXPECT_EQ(error("missing.j2").substr(0, 39), "error: template 'missing.j2' not found ");
}

TEST_F(LoaderTest, ExtendsCycleIsAnError) {
  first.write("a.j2", "{% extends 'b.j2' %}");
  first.write("b.j2", "{% extends 'a.j2' %}");
  EXPECT_EQ(error("a.j2"), "b.j2:1:4: error: 'extends' cycle: a.j2 -> b.j2 -> a.j2");
}

TEST_F(LoaderTest, ImportCycleIsAnErrorAtTheImport) {
  first.write("a.j2", "{% import 'b.j2' as b %}");
  first.write("b.j2", "{% import 'a.j2' as a %}");
  EXPECT_EQ(error("a.j2"),
            "a.j2:1:4: error: recursion too deep: more than 64 nested includes, macro calls or "
            "blocks (at import)");
}

TEST_F(LoaderTest, IncludeCycleIsAnErrorNotACrash) {
  first.write("a.j2", "{% include 'b.j2' %}");
  first.write("b.j2", "{% include 'a.j2' %}");
  // At the include that goes one level too deep: the 65th, made by a.j2.
  EXPECT_EQ(error("a.j2"),
            "a.j2:1:4: error: recursion too deep: more than 64 nested includes, macro calls or "
            "blocks (at include)");
}

TEST_F(LoaderTest, ErrorsInIncludedTemplatesPointIntoThem) {
  first.write("main.j2", "{% include 'part.j2' %}");
  first.write("part.j2", "\n\n  {{ 1 // 0 }}");
  EXPECT_EQ(error("main.j2"), "part.j2:3:8: error: integer division or modulo by zero");
}

TEST_F(LoaderTest, ListsTemplates) {
  first.write("x/a.j2", "");
  second.write("b.j2", "");
  second.write("x/a.j2", "");
  Environment env({.search_path = {first.path(), second.path()}});
  EXPECT_EQ(env.list_templates(), (std::vector<std::string>{"b.j2", "x/a.j2"}));
}

TEST_F(LoaderTest, ParsesOnceAndCaches) {
  first.write("a.j2", "v1");
  Environment env({.search_path = {first.path()}});
  auto one = env.load("a.j2");
  first.write("a.j2", "v2");
  EXPECT_EQ(env.load("a.j2").get(), one.get());
}

}  // namespace
}  // namespace zf
