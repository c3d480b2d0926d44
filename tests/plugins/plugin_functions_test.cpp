// SPDX-License-Identifier: MIT
// Plugin template functions end to end: registered into an Environment by PluginHost and
// called from templates (filters, tests, globals, keyword arguments), with their errors.
#include <gtest/gtest.h>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

const std::string kDir = ZF_TEST_PLUGIN_DIR;

PluginHostOptions fixture_options() {
  PluginHostOptions options;
  options.plugin_dirs = {kDir};
  options.use_environment = false;
  return options;
}

std::unique_ptr<PluginHost> load(std::vector<PluginRequest> requests) {
  auto host = std::make_unique<PluginHost>(fixture_options());
  host->load(requests);
  return host;
}

std::string render(const PluginHost& host, const std::string& source,
                   const Json& values = Json::object()) {
  Environment env;
  host.register_functions(env);
  return env.from_string(source, "t.j2")->render(Value::from_json(values));
}

std::string render_error(const PluginHost& host, const std::string& source) {
  try {
    render(host, source);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(PluginFunctionsTest, TemplatesCallPluginFiltersTestsAndGlobals) {
  auto host = load({{"functions", {{"suffix", "!"}}}, {"c_plugin", Json::object()}});
  EXPECT_EQ(render(*host,
                   "{{ name | shout }} {{ 4 is even_number }} {{ 3 is even_number }} "
                   "{{ join_words('a', 1, true, sep='-') }} {{ c_greeting() }}",
                   {{"name", "zero"}}),
            "ZERO! True False a-1-true hello from C");
}

TEST(PluginFunctionsTest, ResultsComeBackAsValues) {
  auto host = load({{"functions", Json::object()}});
  EXPECT_EQ(
      render(*host, "{% set s = join_words('x', 'y') %}{{ s | length }} {{ (s | shout)[0] }}"),
      "3 X");
}

// The renderer places call errors at the start of the failing expression.
TEST(PluginFunctionsTest, ErrorsNameTheTemplateLocationPluginAndFunction) {
  auto host = load({{"functions", Json::object()}, {"failing_hook", Json::object()}});
  EXPECT_EQ(
      render_error(*host, "{{ fail_on() }}"),
      "t.j2:1:4: error: plugin 'functions': function 'fail_on' takes 1 positional argument, got 0");
  EXPECT_EQ(
      render_error(*host, "{{ join_words() }}"),
      "t.j2:1:4: error: plugin 'functions': function 'join_words' takes at least 1 positional "
      "arguments, got 0");
  EXPECT_EQ(render_error(*host, "\n  {{ fail_on(true) }}"),
            "t.j2:2:6: error: plugin 'functions': function 'fail_on' failed: asked to fail");
  EXPECT_EQ(
      render_error(*host, "{{ explode() }}"),
      "t.j2:1:4: error: plugin 'failing_hook': function 'explode' failed: unknown C++ exception");
}

TEST(PluginFunctionsTest, UnknownPluginFunctionsFailAtParseTimeWithoutThePlugin) {
  auto host = load({});
  EXPECT_NE(render_error(*host, "{{ 'a' | shout }}"), "");
}

TEST(PluginFunctionsTest, RegisteringTwiceIntoOneEnvironmentIsAnError) {
  auto host = load({{"functions", Json::object()}});
  Environment env;
  host->register_functions(env);
  try {
    host->register_functions(env);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              kDir +
                  "/functions.so: error: plugin 'functions': cannot register filter 'shout': "
                  "filter 'shout' is already registered");
  }
}

TEST(PluginFunctionsTest, TheEnvironmentKeepsThePluginLoaded) {
  Environment env;
  {
    auto host = load({{"functions", Json::object()}});
    host->register_functions(env);
  }
  EXPECT_EQ(env.from_string("{{ 'ok' | shout }}", "t.j2")->render(Value::from_json(Json::object())),
            "OK");
}

}  // namespace
}  // namespace zf
