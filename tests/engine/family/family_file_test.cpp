// SPDX-License-Identifier: MIT
// Family files (engine/src/family/family_file.cpp): the format of docs/families.md and its
// errors, each naming the file and the JSON pointer.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/family.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

std::string parse_error(const std::string& text) {
  try {
    parse_family(Json::parse(text), "f.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// The diagnostic code of the error parse_family throws for `text`, or "".
std::string parse_code(const std::string& text) {
  try {
    parse_family(Json::parse(text), "f.json");
  } catch (const Error& error) {
    return to_diagnostic(error).code;
  }
  return "";
}

TEST(FamilyFileTest, ReadsEveryField) {
  Family family = parse_family(Json::parse(R"({
    "name": "demo", "description": "d", "template": "deepspeed/config.json.j2",
    "values": {"precision": "bf16"},
    "axes": {"stage": [2, 3], "zero.reduce_bucket_size": [1, 2]},
    "include": [{"stage": 1, "tier": "small"}],
    "exclude": [{"stage": 2, "tier": "medium"}],
    "tiers": ["small", {"name": "medium", "values": {"micro_batch_size": 2}}],
    "plugins": ["memory", {"name": "site_fields", "options": {"profile": "x.json"}}],
    "companions": ["torchrun", "hf-args"],
    "output": "{{ tier }}/{{ stage }}.json"})"),
                               "f.json");
  EXPECT_EQ(family.name, "demo");
  EXPECT_EQ(family.template_name, "deepspeed/config.json.j2");
  ASSERT_EQ(family.axes.size(), 2u);
  EXPECT_EQ(family.axes[1].key, "zero.reduce_bucket_size");
  ASSERT_EQ(family.tiers.size(), 2u);
  EXPECT_EQ(family.tiers[1].values, Json({{"micro_batch_size", 2}}));
  ASSERT_EQ(family.plugins.size(), 2u);
  EXPECT_EQ(family.plugins[1].options, Json({{"profile", "x.json"}}));
  EXPECT_EQ(family.output, "{{ tier }}/{{ stage }}.json");
  EXPECT_EQ(family.companions, (std::vector<std::string>{"torchrun", "hf-args"}));
}

TEST(FamilyFileTest, ATierFileIsNamedAfterItsStemAndMatchedByEither) {
  Family family = parse_family(Json::parse(R"({
    "name": "team", "template": "t",
    "axes": {"stage": [2, 3]},
    "tiers": ["../../tiers/a100x8.json", {"name": "small"}, "h100x32.json"],
    "exclude": [{"tier": "../../tiers/a100x8.json", "stage": 2}, {"tier": "h100x32", "stage": 3}],
    "include": [{"tier": "a100x8", "stage": 1}]})"),
                               "teams/vision/family.json");
  ASSERT_EQ(family.tiers.size(), 3u);
  EXPECT_EQ(family.tiers[0].ref, "../../tiers/a100x8.json");
  EXPECT_EQ(family.tiers[0].name, "a100x8");
  EXPECT_EQ(family.tiers[1].ref, "small");
  EXPECT_EQ(family.tiers[1].name, "small");
  EXPECT_EQ(family.tiers[2].name, "h100x32");
  EXPECT_TRUE(family.tiers[0].matches("a100x8"));
  EXPECT_TRUE(family.tiers[0].matches("../../tiers/a100x8.json"));
  EXPECT_FALSE(family.tiers[0].matches("tiers/a100x8.json"));
}

TEST(FamilyFileTest, DefaultsTheOutputPattern) {
  Family family = parse_family(Json::parse(R"({"name": "a", "template": "t.json.j2"})"), "f.json");
  EXPECT_EQ(family.output, "{% if tier %}{{ tier }}/{% endif %}{{ variant }}.json");
  EXPECT_TRUE(family.axes.empty());
}

TEST(FamilyFileTest, ReportsEachMistakeWithFileAndPointer) {
  struct Case {
    const char* name;
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"not an object", "[]", "f.json: /: error: a family must be a JSON object, got array"},
      {"values_files not a list", R"({"name": "a", "template": "t", "values_files": "x.json"})",
       "f.json: /values_files: error: values_files must be a list of JSON values files "
       "(relative to the family file), got \"x.json\""},
      {"a values file not a path", R"({"name": "a", "template": "t", "values_files": [3]})",
       "f.json: /values_files/0: error: a values file must be a non-empty path, got 3"},
      {"a values file that is not there",
       R"({"name": "a", "template": "t", "values_files": ["no-such-values.json"]})",
       "f.json: /values_files/0: error: values file 'no-such-values.json' not found: no file "
       "no-such-values.json (the path is relative to the family file)"},
      {"missing name", R"({"template": "t"})", "f.json: /: error: missing field 'name'"},
      {"missing template", R"({"name": "a"})", "f.json: /: error: missing field 'template'"},
      {"unknown field", R"({"name": "a", "template": "t", "axis": {}})",
       "f.json: /axis: error: unknown field 'axis' (expected name, description, template, "
       "template_dirs, contract, output, values, values_files, axes, include, exclude, tiers, "
       "plugins, companions); did you mean 'axes'?"},
      {"misspelt field", R"({"name": "a", "template": "t", "template_dir": ["x"]})",
       "f.json: /template_dir: error: unknown field 'template_dir' (expected name, description, "
       "template, template_dirs, contract, output, values, values_files, axes, include, "
       "exclude, tiers, plugins, companions); did you mean 'template_dirs'?"},
      {"unknown field, nothing near", R"({"name": "a", "template": "t", "owner": "me"})",
       "f.json: /owner: error: unknown field 'owner' (expected name, description, template, "
       "template_dirs, contract, output, values, values_files, axes, include, exclude, tiers, "
       "plugins, companions)"},
      {"misspelt plugin field",
       R"({"name": "a", "template": "t", "plugins": [{"name": "memory", "option": {}}]})",
       "f.json: /plugins/0/option: error: unknown field 'option' in a plugin (expected name, "
       "options); did you mean 'options'?"},
      {"template_dirs not a list", R"({"name": "a", "template": "t", "template_dirs": "x"})",
       "f.json: /template_dirs: error: template_dirs must be a list of directories (relative to "
       "the family file), got \"x\""},
      {"template_dirs entry empty", R"({"name": "a", "template": "t", "template_dirs": ["a", ""]})",
       "f.json: /template_dirs/1: error: a template directory must be a non-empty string, got "
       "\"\""},
      {"companions not a list", R"({"name": "a", "template": "t", "companions": "deepspeed"})",
       "f.json: /companions: error: companions must be a list of companion kinds (deepspeed, "
       "torchrun, accelerate, hf-args, hostfile, deepspeed-env, slurm, kubernetes), got "
       "\"deepspeed\""},
      {"unknown companion", R"({"name": "a", "template": "t", "companions": ["torchrn"]})",
       "f.json: /companions/0: error: unknown companion 'torchrn' (expected deepspeed, torchrun, "
       "accelerate, hf-args, hostfile, deepspeed-env, slurm, kubernetes); did you mean "
       "'torchrun'?"},
      {"companion not a string", R"({"name": "a", "template": "t", "companions": [1]})",
       "f.json: /companions/0: error: a companion must be one of deepspeed, torchrun, "
       "accelerate, hf-args, hostfile, deepspeed-env, slurm, kubernetes, got 1"},
      {"companion twice",
       R"({"name": "a", "template": "t", "companions": ["hf-args", "deepspeed", "hf-args"]})",
       "f.json: /companions/2: error: companion 'hf-args' is listed twice"},
      {"bad name", R"({"name": "a b", "template": "t"})",
       "f.json: /name: error: name must use letters, digits, '-', '_' and '.', got \"a b\""},
      {"empty axis", R"({"name": "a", "template": "t", "axes": {"stage": []}})",
       "f.json: /axes/stage: error: empty axis 'stage': the product would have no variants"},
      {"axis not a list", R"({"name": "a", "template": "t", "axes": {"stage": 3}})",
       "f.json: /axes/stage: error: an axis must be a list of values, got 3"},
      {"duplicate axis value", R"({"name": "a", "template": "t", "axes": {"stage": [2, 2]}})",
       "f.json: /axes/stage/1: error: duplicate value 2 in axis 'stage'"},
      {"tier axis", R"({"name": "a", "template": "t", "axes": {"tier": ["small"]}})",
       "f.json: /axes/tier: error: 'tier' is not an axis: list the tiers under /tiers"},
      {"bad axis key", R"({"name": "a", "template": "t", "axes": {"zero..x": [1]}})",
       "f.json: /axes/zero..x: error: 'zero..x' is not a value name (a dotted path such as "
       "zero.stage)"},
      {"exclude of no axis",
       R"({"name": "a", "template": "t", "axes": {"stage": [2]}, "exclude": [{"stages": 2}]})",
       "f.json: /exclude/0/stages: error: 'stages' is not an axis (exclude matches axis values and "
       "'tier')"},
      {"exclude of no value",
       R"({"name": "a", "template": "t", "axes": {"stage": [2]}, "exclude": [{"stage": 4}]})",
       "f.json: /exclude/0/stage: error: 4 is not a value of axis 'stage'"},
      {"exclude of unknown tier",
       R"({"name": "a", "template": "t", "tiers": ["small"], "exclude": [{"tier": "huge"}]})",
       "f.json: /exclude/0/tier: error: tier 'huge' is not one of the family's tiers"},
      {"empty include", R"({"name": "a", "template": "t", "include": [{}]})",
       "f.json: /include/0: error: an include entry must be a non-empty values object, got {}"},
      {"duplicate tier", R"({"name": "a", "template": "t", "tiers": ["small", "small"]})",
       "f.json: /tiers/1: error: tier 'small' is listed twice"},
      {"two tier files with one stem",
       R"({"name": "a", "template": "t",
           "tiers": ["../../site-a/tiers/a100x8.json", "../../site-b/tiers/a100x8.json"]})",
       "f.json: /tiers/1: error: tier '../../site-b/tiers/a100x8.json' is named 'a100x8', as is "
       "'../../site-a/tiers/a100x8.json' (/tiers/0): a tier is named after its file stem; rename "
       "one of the files"},
      {"a tier file named like a tier on the search path",
       R"({"name": "a", "template": "t", "tiers": ["small", {"name": "tiers/small.json"}]})",
       "f.json: /tiers/1: error: tier 'tiers/small.json' is named 'small', as is 'small' "
       "(/tiers/0): a tier is named after its file stem; rename one of the files"},
      {"tier path without a file name", R"({"name": "a", "template": "t", "tiers": ["tiers/"]})",
       "f.json: /tiers/0: error: tier file 'tiers/' has no file name"},
      {"empty tiers", R"({"name": "a", "template": "t", "tiers": []})",
       "f.json: /tiers: error: empty tier list: leave out 'tiers' for configs without a tier"},
      {"bad tier field", R"({"name": "a", "template": "t", "tiers": [{"name": "s", "value": {}}]})",
       "f.json: /tiers/0/value: error: unknown field 'value' in a tier (expected name, values); "
       "did you mean 'values'?"},
      {"bad plugin", R"({"name": "a", "template": "t", "plugins": [3]})",
       "f.json: /plugins/0: error: a plugin must be a name, a path or {\"name\", \"options\"}, got "
       "3"},
      {"values not an object", R"({"name": "a", "template": "t", "values": [1]})",
       "f.json: /values: error: values must be an object, got [1]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(parse_error(c.text), c.expected);
    EXPECT_EQ(parse_code(c.text), "family.invalid") << "a problem of the family file itself";
  }
}

// A family file read from disk: what is wrong with the file itself has the code
// `family.invalid` (docs/cli.md), not the catch-all `values.invalid` of values layered over it.
// The path is longer than std::string's small buffer, so a message that outlived it would show.
TEST(FamilyFileTest, LoadingCodesTheFilesOwnMistakesFamilyInvalid) {
  test::TempDir dir;
  const std::string file =
      "platform-team-deepspeed-configurations/families-under-review/llama-70b-finetune.json";
  struct Case {
    const char* name;
    const char* text;
    const char* expected;  // after "PATH: "
  };
  const Case cases[] = {
      {"not an object", R"(["llama-70b"])", "/: error: a family must be a JSON object, got array"},
      {"unknown field", R"({"name": "llama-70b", "template": "deepspeed/config.json.j2",
                            "tier": "a100x8"})",
       "/tier: error: unknown field 'tier' (expected name, description, template, "
       "template_dirs, contract, output, values, values_files, axes, include, exclude, tiers, "
       "plugins, companions); did you mean 'tiers'?"},
      {"mistyped field", R"({"name": "llama-70b", "template": "deepspeed/config.json.j2",
                             "axes": {"stage": "2,3"}})",
       "/axes/stage: error: an axis must be a list of values, got \"2,3\""},
      {"missing field", R"({"name": "llama-70b"})", "/: error: missing field 'template'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.write(file, c.text).string();
    try {
      load_family(path);
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      const Diagnostic d = to_diagnostic(error);
      EXPECT_EQ(d.code, "family.invalid");
      EXPECT_EQ(d.kind, ErrorKind::Values);
      EXPECT_EQ(d.where.file, path);
      EXPECT_EQ(to_string(d), path + ": " + c.expected);
      EXPECT_EQ(to_string(d), error.what());
    }
  }
}

// A path with a NUL (JSON's \u0000) was cut short where the system ends a C string: tier
// "medium.json\u0000x" read medium.json. Every string of a family that names a file or
// directory is refused at its pointer instead (issue #36).
TEST(FamilyFileTest, RefusesANulInEveryPathAtItsPointer) {
  struct Case {
    const char* name;
    std::string fields;  // the family's fields after name
    std::string pointer;
    std::string path;  // the path as the message quotes it
    std::string cut;   // what the system would have read
  };
  const std::vector<Case> cases = {
      {"tier file", R"("template": "t", "tiers": ["medium.json\u0000x"])", "/tiers/0",
       R"(medium.json\u0000x)", "medium.json"},
      {"tier name", R"("template": "t", "tiers": ["small", {"name": "big\u0000"}])",
       "/tiers/1/name", R"(big\u0000)", "big"},
      {"template", R"("template": "deepspeed/config.json.j2\u0000.bak")", "/template",
       R"(deepspeed/config.json.j2\u0000.bak)", "deepspeed/config.json.j2"},
      {"template dir", R"("template": "t", "template_dirs": ["ok", "team\u0000/x"])",
       "/template_dirs/1", R"(team\u0000/x)", "team"},
      {"values file", R"("template": "t", "values_files": ["shared.json\u0000.bak"])",
       "/values_files/0", R"(shared.json\u0000.bak)", "shared.json"},
      {"output", R"("template": "t", "output": "{{ tier }}\u0000.json")", "/output",
       R"({{ tier }}\u0000.json)", "{{ tier }}"},
      {"plugin path", R"("template": "t", "plugins": ["./libx.so\u0000y"])", "/plugins/0",
       R"(./libx.so\u0000y)", "./libx.so"},
      {"plugin name", R"("template": "t", "plugins": [{"name": "memory\u0000"}])",
       "/plugins/0/name", R"(memory\u0000)", "memory"},
      {"site profile",
       R"("template": "t", "plugins": [{"name": "site_fields",
           "options": {"profile": "/etc/site.json\u0000.txt"}}])",
       "/plugins/0/options/profile", R"(/etc/site.json\u0000.txt)", "/etc/site.json"},
      {"nested option", R"("template": "t", "plugins": [{"name": "p",
           "options": {"inputs": ["a", {"file": "\u0000"}]}}])",
       "/plugins/0/options/inputs/1/file", R"(\u0000)", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string text = R"({"name": "n", )" + c.fields + "}";
    const std::size_t at = c.cut.size();
    EXPECT_EQ(parse_error(text),
              "f.json: " + c.pointer + ": error: path \"" + c.path +
                  "\" contains a NUL byte (U+0000) at byte " + std::to_string(at) +
                  ", where the system would end it (it would read \"" + c.cut + "\")");
    EXPECT_EQ(parse_code(text), "family.invalid");
  }
  // A NUL elsewhere is not a path's: a value is the template's to use.
  EXPECT_EQ(parse_error(R"({"name": "n", "template": "t", "values": {"note": "a\u0000b"}})"), "");
}

}  // namespace
}  // namespace zf
