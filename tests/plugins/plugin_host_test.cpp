// SPDX-License-Identifier: MIT
// PluginHost with real shared libraries (tests/plugins/fixtures): finding, loading and every
// load error, options, each hook kind, ordering and provenance, and hook failures.
#include "zeroforge/plugin_host.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "zeroforge/error.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::string kDir = ZF_TEST_PLUGIN_DIR;

std::string file(const std::string& name) { return kDir + "/" + name + ".so"; }

PluginHostOptions fixture_options() {
  PluginHostOptions options;
  options.plugin_dirs = {kDir};
  options.use_environment = false;
  return options;
}

std::vector<PluginRequest> requests(std::initializer_list<const char*> names) {
  std::vector<PluginRequest> out;
  for (const char* name : names) out.push_back({name, Json::object()});
  return out;
}

// The what() of the error loading `names` raises, or "" when loading succeeds.
std::string load_error(std::vector<PluginRequest> reqs, std::vector<PluginOption> options = {}) {
  PluginHost host(fixture_options());
  try {
    host.load(reqs, options);
  } catch (const Error& error) {
    EXPECT_TRUE(host.empty()) << "a failed load must leave nothing loaded";
    return error.what();
  }
  return "";
}

TEST(PluginHostTest, LoadsAPlainCPluginByNameAndDescribesIt) {
  PluginHost host(fixture_options());
  host.load(requests({"c_plugin"}));
  auto plugins = host.plugins();
  ASSERT_EQ(plugins.size(), 1u);
  const PluginInfo& info = plugins[0];
  EXPECT_EQ(info.name, "c_plugin");
  EXPECT_EQ(info.version, "0.3.0");
  EXPECT_EQ(info.description, "a plugin in plain C");
  EXPECT_EQ(info.abi_version, 1u);
  EXPECT_EQ(info.path, fs::path(file("c_plugin")));
  EXPECT_TRUE(info.has_values_hook);
  EXPECT_TRUE(info.has_output_hook);
  EXPECT_EQ(info.functions, std::vector<std::string>{"function c_greeting"});
  ASSERT_EQ(info.commands.size(), 1u);
  EXPECT_EQ(info.commands[0].first, "c-echo");
  EXPECT_EQ(info.commands[0].second, "prints its arguments");
}

TEST(PluginHostTest, LoadsByPath) {
  PluginHostOptions options;
  options.use_environment = false;
  PluginHost host(options);
  host.load(requests({file("functions").c_str()}));
  EXPECT_EQ(host.plugins().at(0).name, "functions");
}

TEST(PluginHostTest, SearchPathIsPluginDirsThenEnvironmentThenBuiltin) {
  ASSERT_EQ(setenv("ZEROFORGE_PLUGIN_PATH", "/env/a::/env/b", 1), 0);
  PluginHostOptions options;
  options.plugin_dirs = {"/cli"};
  options.builtin_dirs = {"/builtin"};
  PluginHost host(options);
  std::vector<fs::path> expected = {"/cli", "/env/a", "/env/b", "/builtin"};
  EXPECT_EQ(host.search_path(), expected);
  unsetenv("ZEROFORGE_PLUGIN_PATH");
  EXPECT_EQ(host.search_path(), (std::vector<fs::path>{"/cli", "/builtin"}));
}

TEST(PluginHostTest, FindsPluginsThroughTheEnvironmentVariable) {
  ASSERT_EQ(setenv("ZEROFORGE_PLUGIN_PATH", kDir.c_str(), 1), 0);
  PluginHost host;
  host.load(requests({"functions"}));
  unsetenv("ZEROFORGE_PLUGIN_PATH");
  EXPECT_EQ(host.plugins().at(0).name, "functions");
}

TEST(PluginHostTest, DiscoversEveryPluginFileOnce) {
  PluginHostOptions options = fixture_options();
  options.builtin_dirs = {kDir};  // the same directory twice lists each file once
  PluginHost host(options);
  auto found = host.discover();
  EXPECT_TRUE(std::is_sorted(found.begin(), found.end()));
  EXPECT_EQ(std::count(found.begin(), found.end(), fs::path(file("c_plugin"))), 1);
  EXPECT_EQ(std::count(found.begin(), found.end(), fs::path(file("not_a_library"))), 1);
}

// dlopen maps a truncated library's segments and dies with SIGBUS touching them; the host
// reads the ELF headers first and refuses the file by name, loading it or listing it.
TEST(PluginHostTest, RefusesATruncatedLibraryInsteadOfCrashing) {
  const fs::path dir = fs::path(::testing::TempDir()) / "zf_truncated_plugin";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::uintmax_t size = fs::file_size(file("functions"));
  for (std::uintmax_t keep : {std::uintmax_t{40}, std::uintmax_t{200}, size / 2, size - 1}) {
    SCOPED_TRACE(keep);
    const fs::path copy = dir / "functions.so";
    fs::copy_file(file("functions"), copy, fs::copy_options::overwrite_existing);
    fs::resize_file(copy, keep);
    const std::string error = load_error({{copy.string(), Json::object()}});
    EXPECT_TRUE(error.starts_with(copy.string() + ": error: truncated")) << error;
    try {
      PluginHost::inspect(copy);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), error);
    }
  }
}

TEST(PluginHostTest, InspectReadsTheDescriptorWithoutInit) {
  PluginInfo info = PluginHost::inspect(file("functions"));
  EXPECT_EQ(info.name, "functions");
  EXPECT_EQ(info.version, "2.1.0");
  std::vector<std::string> functions = {"filter shout", "test even_number", "function join_words",
                                        "function fail_on"};
  EXPECT_EQ(info.functions, functions);
}

TEST(PluginHostTest, ReportsEachLoadErrorWithFileAndPlugin) {
  struct Case {
    const char* name;
    std::vector<PluginRequest> requests;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unknown name", requests({"nope"}),
       "error: plugin 'nope' not found (searched " + kDir + ")"},
      {"missing file", requests({"/no/such/plugin.so"}),
       "/no/such/plugin.so: error: plugin file not found"},
      {"not a shared library", requests({"not_a_library"}),
       file("not_a_library") + ": error: not a shared library"},
      {"no entry symbol", requests({"no_entry"}),
       file("no_entry") +
           ": error: no entry symbol 'zf_plugin_entry' (define it with ZF_PLUGIN_EXPORT so that it "
           "is exported)"},
      {"ABI mismatch", requests({"wrong_abi"}),
       file("wrong_abi") +
           ": error: plugin ABI version 99 does not match zeroforge's ABI version 1; rebuild the "
           "plugin against this zeroforge's zeroforge/plugin.h"},
      {"invalid name", requests({"bad_name"}),
       file("bad_name") +
           ": error: plugin name 'Bad Name' is invalid: use lower-case letters, digits and '_', "
           "starting with a letter"},
      {"duplicate plugin name", requests({"dup_name_a", "dup_name_b"}),
       file("dup_name_b") + ": error: plugin 'dup': a plugin named 'dup' is already loaded from " +
           file("dup_name_a")},
      {"duplicate function name", requests({"functions", "dup_function"}),
       file("dup_function") +
           ": error: plugin 'dup_function': filter 'shout' is already provided by plugin "
           "'functions' (" +
           file("functions") + ")"},
      {"one bad plugin fails the batch", requests({"c_plugin", "functions", "no_entry"}),
       file("no_entry") +
           ": error: no entry symbol 'zf_plugin_entry' (define it with ZF_PLUGIN_EXPORT so that it "
           "is exported)"},
      {"failing init",
       {{"c_plugin", {{"fail_init", true}}}},
       file("c_plugin") +
           ": error: plugin 'c_plugin': init failed: init refused: fail_init was set"},
      {"options not an object",
       {{"c_plugin", Json::array()}},
       file("c_plugin") + ": error: plugin 'c_plugin': options must be a JSON object, got array"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(load_error(c.requests), c.expected);
  }
}

TEST(PluginHostTest, RejectsTheSamePluginLoadedTwiceAcrossCalls) {
  PluginHost host(fixture_options());
  host.load(requests({"c_plugin"}));
  try {
    host.load(requests({file("c_plugin").c_str()}));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              file("c_plugin") +
                  ": error: plugin 'c_plugin': a plugin named 'c_plugin' is already "
                  "loaded from " +
                  file("c_plugin"));
  }
  EXPECT_EQ(host.plugins().size(), 1u);
}

TEST(PluginHostTest, ParsesPluginOptions) {
  PluginOption option = parse_plugin_option("site_fields.profile=site.json");
  EXPECT_EQ(option.plugin, "site_fields");
  EXPECT_EQ(option.options, Json({{"profile", "site.json"}}));
  EXPECT_EQ(option.origin, "--plugin-opt site_fields.profile=site.json");
  EXPECT_EQ(parse_plugin_option("memory.headroom.factor=1.25").options,
            Json({{"headroom", {{"factor", 1.25}}}}));
  for (const char* bad : {"noequals", "nodot=1", ".key=1", "name.=1", "a=b.c"}) {
    SCOPED_TRACE(bad);
    try {
      parse_plugin_option(bad);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::Usage);
      EXPECT_EQ(std::string(error.what()),
                std::string("error: expected NAME.KEY=VALUE in '--plugin-opt ") + bad + "'");
    }
  }
}

TEST(PluginHostTest, MergesCommandLineOptionsOverRequestOptions) {
  PluginHost host(fixture_options());
  host.load(
      {{"c_plugin", {{"a", 1}, {"nested", {{"x", "family"}, {"y", 2}}}}}},
      {parse_plugin_option("c_plugin.nested.x=cli"), parse_plugin_option("c_plugin.b=[1,2]")});
  Json expected = {{"a", 1}, {"nested", {{"x", "cli"}, {"y", 2}}}, {"b", {1, 2}}};
  EXPECT_EQ(host.plugins().at(0).options, expected);
  LayeredValues values;
  host.run_values_hooks(values);
  EXPECT_EQ(values.merged().at("c_options"), expected) << "the plugin sees its options";
}

TEST(PluginHostTest, RejectsAnOptionForAPluginThatIsNotLoaded) {
  EXPECT_EQ(load_error(requests({"c_plugin", "functions"}), {parse_plugin_option("memory.x=1")}),
            "error: '--plugin-opt memory.x=1' names plugin 'memory', which is not loaded (loaded: "
            "c_plugin, functions)");
  EXPECT_EQ(load_error({}, {parse_plugin_option("memory.x=1")}),
            "error: '--plugin-opt memory.x=1' names plugin 'memory', which is not loaded (no "
            "plugins are loaded)");
}

TEST(PluginHostTest, ValuesHookAddsALayerWithProvenanceAndAManifestNote) {
  PluginHost host(fixture_options());
  host.load(requests({"c_plugin"}));
  LayeredValues values;
  values.apply({LayerKind::Set, "--set stage=3"}, {{"stage", 3}});
  ValuesHookResult result = host.run_values_hooks(values, {{"tier", "small"}});
  EXPECT_EQ(values.merged(), Json({{"stage", 3}, {"c_seen", true}, {"c_options", Json::object()}}));
  ASSERT_NE(values.origin("/c_seen"), nullptr);
  EXPECT_EQ(values.origin("/c_seen")->kind, LayerKind::Plugin);
  EXPECT_EQ(values.origin("/c_seen")->label, "plugin c_plugin");
  EXPECT_EQ(values.origin("/stage")->label, "--set stage=3");
  EXPECT_EQ(result.manifest, Json({{"c_plugin", {{"lang", "C"}}}}));
}

TEST(PluginHostTest, KeepsWhatPluginsLog) {
  PluginHost host(fixture_options());
  std::vector<std::string> seen;
  host.on_message([&](const PluginMessage& m) { seen.push_back(m.plugin + ": " + m.text); });
  host.load(requests({"c_plugin"}));
  LayeredValues values;
  host.run_values_hooks(values);
  auto messages = host.messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].level, PluginLogLevel::Info);
  EXPECT_EQ(messages[0].text, "c_plugin initialised");
  EXPECT_EQ(messages[1].level, PluginLogLevel::Warning);
  EXPECT_EQ(messages[1].text, "values hook ran");
  EXPECT_EQ(seen, (std::vector<std::string>{"c_plugin: c_plugin initialised",
                                            "c_plugin: values hook ran"}));
}

TEST(PluginHostTest, RunsHooksInLoadOrderEachSeeingTheLastResult) {
  for (bool a_first : {true, false}) {
    SCOPED_TRACE(a_first ? "order_a, order_b" : "order_b, order_a");
    PluginHost host(fixture_options());
    host.load(a_first ? requests({"order_a", "order_b"}) : requests({"order_b", "order_a"}));
    const char* first = a_first ? "order_a" : "order_b";
    const char* second = a_first ? "order_b" : "order_a";

    LayeredValues values;
    ValuesHookResult result = host.run_values_hooks(values, {{"tier", "medium"}});
    EXPECT_EQ(values.merged().at("trace"), std::string("+") + first + "+" + second);
    EXPECT_EQ(values.merged().at(std::string(second) + "_saw"),
              Json({{"kind", "plugin"}, {"label", std::string("plugin ") + first}}));
    EXPECT_EQ(values.origin("/trace")->label, std::string("plugin ") + second);
    EXPECT_EQ(result.manifest.begin().key(), first);
    EXPECT_EQ(result.manifest.at(second), Json({{"context", {{"tier", "medium"}}}}));

    OutputHookResult out = host.run_output_hooks({{"trace", "t"}}, values.merged());
    EXPECT_EQ(out.config.at("trace"), std::string("t+") + first + "+" + second);
    ASSERT_EQ(out.fields.size(), 2u);
    EXPECT_EQ(out.fields[0].plugin, first);
    EXPECT_EQ(out.fields[1].plugin, second);
    EXPECT_EQ(out.fields[1].json_pointer, "/trace");
  }
}

TEST(PluginHostTest, OutputHookPatchesTheConfigAndRecordsTheFields) {
  PluginHost host(fixture_options());
  host.load(requests({"c_plugin"}));
  OutputHookResult out = host.run_output_hooks({{"stage", 2}, {"remove_me", "x"}}, Json::object());
  EXPECT_EQ(out.config, Json({{"stage", 2}, {"c_field", 1}}));
  ASSERT_EQ(out.fields.size(), 2u);
  EXPECT_EQ(out.fields[0].json_pointer, "/c_field");
  EXPECT_FALSE(out.fields[0].removed);
  EXPECT_EQ(out.fields[1].json_pointer, "/remove_me");
  EXPECT_TRUE(out.fields[1].removed);
  EXPECT_EQ(out.fields[1].plugin, "c_plugin");
}

// The what() of the error running the values hooks (`output` false) or output hooks raises.
std::string hook_error(std::vector<PluginRequest> reqs, bool output,
                       LayeredValues* values = nullptr) {
  PluginHost host(fixture_options());
  host.load(reqs);
  LayeredValues local;
  if (!values) values = &local;
  try {
    if (output) {
      host.run_output_hooks({{"stage", 1}}, Json::object());
    } else {
      host.run_values_hooks(*values);
    }
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Plugin);
    return error.what();
  }
  return "";
}

TEST(PluginHostTest, ReportsFailingHooksByPluginAndHook) {
  EXPECT_EQ(hook_error(requests({"failing_hook"}), false),
            file("failing_hook") +
                ": error: plugin 'failing_hook': values hook failed: deliberate failure in the "
                "values hook");
  EXPECT_EQ(
      hook_error(requests({"failing_hook"}), true),
      file("failing_hook") + ": error: plugin 'failing_hook': output hook failed: no message");
}

TEST(PluginHostTest, AFailingValuesHookChangesNoValues) {
  LayeredValues values;
  values.apply({LayerKind::Set, "--set a=1"}, {{"a", 1}});
  EXPECT_NE(hook_error(requests({"order_a", "failing_hook"}), false, &values), "");
  EXPECT_EQ(values.merged(), Json({{"a", 1}})) << "order_a's layer must not stay applied";
  EXPECT_EQ(values.layers().size(), 1u);
}

TEST(PluginHostTest, ReportsMalformedAndIllShapedHookResults) {
  struct Case {
    const char* name;
    Json options;
    bool output;
    std::string expected;
  };
  const std::string prefix = file("malformed_json") + ": error: plugin 'malformed_json': ";
  const std::vector<Case> cases = {
      {"not JSON", Json::object(), false,
       prefix +
           "values hook returned malformed JSON (line 1, column 24): trailing comma in object"},
      {"unknown key",
       {{"unknown_key", true}},
       false,
       prefix + "values hook returned unknown key 'valeus' (expected 'values', 'manifest', "
                "'findings', 'label')"},
      {"a label that is not one line",
       {{"bad_label", true}},
       false,
       prefix + "values hook returned \"label\" that is not a short line of text (1-64 "
                "characters, no control characters): \"auto\\nfit\""},
      {"findings without a message",
       {{"bad_findings", true}},
       false,
       prefix + "values hook returned \"findings\" that is not a list of {\"message\": \"...\", "
                "\"pointer\": \"/...\"}"},
      {"values not an object",
       {{"not_object", true}},
       false,
       prefix + "values hook returned \"values\" of type array, expected an object"},
      {"patch not an object", Json::object(), true,
       prefix + "output hook returned \"patch\" of type number, expected an object (RFC 7396 merge "
                "patch)"},
      // It used to become the config: `render` printed `5` and exited 0.
      {"replace not an object",
       {{"replace_scalar", true}},
       true,
       prefix + "output hook returned \"replace\" of type number, expected an object (the whole "
                "config)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(hook_error({{"malformed_json", c.options}}, c.output), c.expected);
  }
}

TEST(PluginHostTest, RefusesOptionsAPluginDoesNotRead) {
  // Each was accepted and silently changed nothing.
  struct Case {
    const char* name;
    std::vector<PluginRequest> requests;
    std::vector<PluginOption> options;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"a declared plugin, near a name it takes",
       {{"functions", Json::object()}},
       {parse_plugin_option("functions.sufix=!")},
       file("functions") +
           ": error: plugin 'functions': unknown option 'sufix'; did you mean 'suffix'? (it "
           "takes: suffix)"},
      {"a declared plugin, from the request",
       {{"malformed_json", {{"mode", "x"}}}},
       {},
       file("malformed_json") +
           ": error: plugin 'malformed_json': unknown option 'mode' (it takes: unknown_key "
           "bad_findings not_object bad_label replace_scalar)"},
      {"a plugin with neither option names nor init",
       {{"order_a", {{"x", 1}}}},
       {},
       file("order_a") + ": error: plugin 'order_a': unknown option 'x' (the plugin takes no "
                         "options)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(load_error(c.requests, c.options), c.expected);
  }
  // Declared names pass; a plugin with an init (c_plugin) checks its own.
  PluginHost host(fixture_options());
  EXPECT_NO_THROW(host.load({{"functions", {{"suffix", "!"}}}, {"c_plugin", {{"anything", 1}}}}));
}

TEST(PluginHostTest, RunsACommandAPluginServes) {
  PluginHost host(fixture_options());
  host.load(requests({"c_plugin"}));
  ASSERT_NE(host.find_command("c-echo"), nullptr);
  EXPECT_EQ(host.find_command("c-echo")->name, "c_plugin");
  EXPECT_EQ(host.find_command("estimate"), nullptr);
  CommandResult result = host.run_command("c-echo", {"--params", "7e9"});
  EXPECT_EQ(result.output, R"(["--params","7e9"])");
  EXPECT_EQ(result.exit_code, 3);
  try {
    host.run_command("estimate", {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "error: no loaded plugin provides command 'estimate'");
  }
}

}  // namespace
}  // namespace zf
