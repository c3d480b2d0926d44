// SPDX-License-Identifier: MIT
// yaml_flow_text (engine/src/generate/yaml_text.cpp): the exact text for each kind of value, and
// PyYAML (YAML 1.1) reading every one back as the value written, where it reads the plain
// spellings YAML 1.2 readers such as go-yaml take as numbers (`1e+20`, `1.0e20`) as strings.
#include "generate/yaml_text.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

// What PyYAML's safe_load makes of each line of `file` as a JSON list, or nullopt without
// PyYAML (a failure under CI=true, where setup.sh --test installs it).
std::optional<Json> pyyaml_read(const std::filesystem::path& file) {
  if (std::system("python3 -c 'import yaml' 2>/dev/null") != 0) {
    if (const char* ci = std::getenv("CI"); ci != nullptr && std::string(ci) == "true")
      ADD_FAILURE() << "python3 with PyYAML is missing, and in CI it must be";
    std::cerr << "[  SKIPPED ] python3 with PyYAML is not available\n";
    return std::nullopt;
  }
  const std::string command =
      "python3 -c 'import json, sys, yaml; print(json.dumps([yaml.safe_load(l) for l in "
      "open(sys.argv[1], encoding=\"utf-8\").read().split(\"\\n\") if l]))' '" +
      file.string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  return Json::parse(out);
}

TEST(YamlTextTest, WritesEachKindOfValueByOneRule) {
  struct Case {
    const char* name;
    Json value;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"a float with an exponent", 1e20, "1.0e+20"},
      {"a small float", 2.5e-7, "2.5e-07"},
      {"a float", 0.5, "0.5"},
      {"a negative float", -1.5e300, "-1.5e+300"},
      {"an integral float", 3.0, "3.0"},
      {"an integer", 17, "17"},
      {"a large integer", std::uint64_t{18446744073709551615u}, "18446744073709551615"},
      {"words YAML 1.1 reads as booleans", Json::array({"yes", "no", "on", "off", "y"}),
       R"(["yes", "no", "on", "off", "y"])"},
      {"words read as null or numbers",
       Json::array({"~", "null", "0o17", "017", "1e+20", "1_000", "1:30", ".inf"}),
       R"(["~", "null", "0o17", "017", "1e+20", "1_000", "1:30", ".inf"])"},
      {"controls and line breaks", "a\nb\tc\x1b d\u0085e\u2028f\ufeffg\uffff",
       R"("a\nb\tc\u001b d\u0085e\u2028f\ufeffg\uffff")"},
      {"quotes and backslashes", "say \"hi\" \\ #", R"("say \"hi\" \\ #")"},
      {"other characters as they are", "caf\u00e9 \U0001F600", "\"caf\u00e9 \U0001F600\""},
      {"booleans and null", Json::array({true, false, nullptr}), "[true, false, null]"},
      {"a volume", Json::parse(R"({"name": "d", "emptyDir": {"sizeLimit": 1e20, "medium": "on"}})"),
       R"({"name": "d", "emptyDir": {"sizeLimit": 1.0e+20, "medium": "on"}})"},
      {"empty", Json::parse(R"({"a": {}, "b": []})"), R"({"a": {}, "b": []})"},
  };
  test::TempDir dir;
  std::string lines;
  Json expected = Json::array();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(yaml_flow_text(c.value), c.text);
    lines += "v: " + yaml_flow_text(c.value) + "\n";
    expected.push_back(Json{{"v", c.value}});
  }
  // The plain spellings JSON writers give (Python's json, tojson): YAML 1.2 (go-yaml, kubectl)
  // reads floats, PyYAML strings.
  lines += "v: 1e+20\nv: 1.0e20\n";
  expected.push_back(Json{{"v", "1e+20"}});
  expected.push_back(Json{{"v", "1.0e20"}});
  auto read = pyyaml_read(dir.write("values.yaml", lines));
  if (!read) return;
  ASSERT_EQ(read->size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ((*read)[i], expected[i]);
  }
}

TEST(YamlTextTest, SpellsAFloatWithAPointAndASignedExponent) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1e+20", "1.0e+20"}, {"1E20", "1.0E+20"}, {"1.5e-05", "1.5e-05"},
      {"2e5", "2.0e+5"},    {"0.25", "0.25"},    {"100", "100.0"},
  };
  for (const auto& [json, yaml] : cases) {
    SCOPED_TRACE(json);
    EXPECT_EQ(yaml_float_text(json), yaml);
  }
}

}  // namespace
}  // namespace zf::pipeline
