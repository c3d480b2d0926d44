// SPDX-License-Identifier: MIT
// `explain` shows the output hooks' layer (issue #40 §1): each field of the rendered config a
// plugin's output hook added, replaced or removed, with the plugin and what the template had
// written there, in text and in --format json, for a template and for a family's member.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

// The profile of each case: a value replaced, sections added, a field removed.
constexpr const char* kProfile =
    R"({"tensorboard": {"output_path": "/logs/tb"}, "steps_per_print": 7,
        "fields": {"wall_clock_breakdown": null}})";

// The lines under the output hooks' heading, up to the next heading.
std::string hook_section(const std::string& out) {
  const std::string heading =
      "changed in the rendered config by output hooks (over every layer above):\n";
  const auto at = out.find(heading);
  if (at == std::string::npos) return "";
  std::string section;
  for (auto line = at + heading.size(); line < out.size() && out[line] == ' ';) {
    const auto end = out.find('\n', line);
    section += out.substr(line, end - line + 1);
    line = end + 1;
  }
  return section;
}

TEST(ExplainOutputHooksCliTest, EachFieldAHookChangedIsShownWithItsPluginAndTheRenderedValue) {
  TempDir dir;
  dir.write("site.json", kProfile);
  dir.write("fam.json", R"({"name": "fam", "template": "deepspeed/config.json.j2",
      "tiers": ["medium"], "output": "{{ tier }}.json",
      "plugins": [{"name": "site_fields", "options": {"profile": "site.json"}}]})");
  const std::string expected =
      "  steps_per_print = 7                   output hook: plugin site_fields (the template "
      "wrote 100)\n"
      "  tensorboard.enabled = true            output hook: plugin site_fields (the template "
      "wrote nothing there)\n"
      "  tensorboard.output_path = \"/logs/tb\"  output hook: plugin site_fields (the template "
      "wrote nothing there)\n"
      "  wall_clock_breakdown removed          output hook: plugin site_fields (the template "
      "wrote false)\n";
  struct Case {
    const char* name;
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {"a template",
       {"explain", "deepspeed/config.json.j2", "--tier", "medium", "--plugin", "site_fields",
        "--plugin-opt", std::string("site_fields.profile=") + kProfile}},
      {"a family's member", {"explain", "fam.json", "--config", "medium.json"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto text = run_cli(c.args, dir.path());
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(hook_section(text.out), expected) << text.out;
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--format", "json"});
    auto json = run_cli(args, dir.path());
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(Json::parse(json.out).at("output_hooks"), Json::parse(R"([
        {"name": "steps_per_print", "value": 7, "removed": false, "layer": "output hook",
         "source": "plugin site_fields", "rendered": 100},
        {"name": "tensorboard.enabled", "value": true, "removed": false,
         "layer": "output hook", "source": "plugin site_fields"},
        {"name": "tensorboard.output_path", "value": "/logs/tb", "removed": false,
         "layer": "output hook", "source": "plugin site_fields"},
        {"name": "wall_clock_breakdown", "removed": true, "layer": "output hook",
         "source": "plugin site_fields", "rendered": false}])"));
  }
}

TEST(ExplainOutputHooksCliTest, NothingIsShownWhereNoHookChangesAField) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {"no plugin", {"explain", "deepspeed/config.json.j2"}},
      {"a hook that changes nothing",
       {"explain", "deepspeed/config.json.j2", "--plugin", "site_fields", "--plugin-opt",
        "site_fields.profile={\"steps_per_print\": 100}"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto text = run_cli(c.args);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out.find("output hooks"), std::string::npos) << text.out;
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--format", "json"});
    auto json = run_cli(args);
    EXPECT_EQ(Json::parse(json.out).at("output_hooks"), Json::array());
  }
}

}  // namespace
}  // namespace zf
