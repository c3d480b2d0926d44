// SPDX-License-Identifier: MIT
// Template::overridden_blocks (engine/src/template/overridden_blocks.cpp): the blocks of the
// parents that never render, and the names nothing but them reads.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using test::TempDir;

// Comparable and printable in a failure message.
std::vector<std::string> describe(const std::vector<OverriddenBlock>& blocks) {
  std::vector<std::string> out;
  for (const auto& b : blocks) {
    std::string line = b.parent + " block " + b.block + " overridden by " + b.overridden_by + ":";
    for (const auto& name : b.unread) line += " " + name;
    out.push_back(line);
  }
  return out;
}

struct Case {
  const char* what;
  std::vector<std::pair<const char*, const char*>> files;  // the entry template first
  std::vector<std::string> expected;
};

TEST(OverriddenBlocksTest, ABlockOverriddenWithoutSuperLeavesWhatOnlyItReadsUnread) {
  const char* kParent =
      "{% set greeting = 'hi' %}{{ name }}{% block a %}{{ x }}{{ shared }}{{ greeting }}"
      "{% endblock %}{% block b %}{{ y }}{% endblock %}{{ shared }}";
  const Case cases[] = {
      {"an override without super()",
       {{"team/child.j2", "{% extends 'base/parent.j2' %}{% block a %}copied{% endblock %}"},
        {"base/parent.j2", kParent}},
       {"base/parent.j2 block a overridden by team/child.j2: x"}},
      {"an override that calls super()",
       {{"team/child.j2",
         "{% extends 'base/parent.j2' %}{% block a %}more {{ super() }}{% endblock %}"},
        {"base/parent.j2", kParent}},
       {}},
      {"the override reads the same names",
       {{"team/child.j2", "{% extends 'base/parent.j2' %}{% block a %}{{ x }}{% endblock %}"},
        {"base/parent.j2", kParent}},
       {}},
      {"no parent", {{"team/child.j2", kParent}}, {}},
      {"a parent that is not there",
       {{"team/child.j2", "{% extends 'base/gone.j2' %}{% block a %}{% endblock %}"}},
       {}},
      {"three levels: the middle one calls super(), the child does not",
       {{"team/child.j2", "{% extends 'team/middle.j2' %}{% block a %}{{ z }}{% endblock %}"},
        {"team/middle.j2",
         "{% extends 'base/parent.j2' %}{% block a %}{{ m }}{{ super() }}{% endblock %}"},
        {"base/parent.j2", kParent}},
       {"team/middle.j2 block a overridden by team/child.j2: m",
        "base/parent.j2 block a overridden by team/child.j2: x"}},
      {"three levels: the child calls super(), the middle one does not",
       {{"team/child.j2", "{% extends 'team/middle.j2' %}{% block a %}{{ super() }}{% endblock %}"},
        {"team/middle.j2", "{% extends 'base/parent.j2' %}{% block a %}{{ m }}{% endblock %}"},
        {"base/parent.j2", kParent}},
       {"base/parent.j2 block a overridden by team/middle.j2: x"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TempDir dir;
    for (const auto& [name, text] : c.files) dir.write(name, text);
    Environment env({.search_path = {dir.path()}});
    EXPECT_EQ(describe(env.load(c.files.front().first)->overridden_blocks()), c.expected);
  }
}

// The shipped entry template: copying its `precision` block to change one key leaves `fp16`
// (read nowhere else) unread; the shipped stage templates call super() and leave nothing.
TEST(OverriddenBlocksTest, CopyingTheShippedPrecisionBlockLeavesFp16Unread) {
  TempDir dir;
  dir.write("team/config.json.j2", R"({%- extends "deepspeed/config.json.j2" -%}
{%- block precision %}
  "fp16": {"enabled": true, "loss_scale_window": 1000},
{%- endblock %})");
  Environment env(
      {.search_path = {dir.path(), std::filesystem::path(ZF_SOURCE_DIR) / "templates"}});
  const auto blocks = env.load("team/config.json.j2")->overridden_blocks();
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].block, "precision");
  EXPECT_EQ(blocks[0].parent, "deepspeed/config.json.j2");
  EXPECT_EQ(blocks[0].overridden_by, "team/config.json.j2");
  EXPECT_NE(std::find(blocks[0].unread.begin(), blocks[0].unread.end(), "fp16"),
            blocks[0].unread.end());
  for (const char* shipped : {"deepspeed/zero3.json.j2", "deepspeed/zero3-offload.json.j2"}) {
    SCOPED_TRACE(shipped);
    EXPECT_TRUE(env.load(shipped)->overridden_blocks().empty());
  }
}

}  // namespace
}  // namespace zf
