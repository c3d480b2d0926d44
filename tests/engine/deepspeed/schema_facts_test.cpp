// SPDX-License-Identifier: MIT
// The generated schema tables (engine/tools/compile_schema.cpp): every node of the schema
// data has facts that say what the data says, every key is found by name, the JSON parts the
// rules read are the data's, and compile_schema refuses data the validator could not use.
#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deepspeed/rules.hpp"
#include "support/cli_runner.hpp"
#include "zeroforge/validator.hpp"

namespace {

using json = nlohmann::ordered_json;
using zf::deepspeed::NodeFacts;
using zf::deepspeed::ValueType;

// The node with a `$ref` resolved as the validator sees it: the section, the referring node's
// own fields over it.
json resolved(const json& node) {
  if (!node.is_object() || !node.contains("$ref")) return node;
  json out = zf::deepspeed_schema_data().at("sections").at(node.at("$ref").get<std::string>());
  for (const auto& [key, value] : node.items()) {
    if (key != "$ref") out[key] = value;
  }
  return out;
}

ValueType type_named(const std::string& name) {
  if (name == "integer") return ValueType::Integer;
  if (name == "number") return ValueType::Number;
  if (name == "boolean") return ValueType::Boolean;
  if (name == "string") return ValueType::String;
  if (name == "array") return ValueType::Array;
  if (name == "object") return ValueType::Object;
  return ValueType::Any;
}

// Compares one node's facts with its JSON, then its keys', recursively. With a `release`, the
// JSON is the data as that release saw it (deepspeed_schema_data_at) and the facts are the
// tables' for it: only the keys present then, each as it was then (NodeFacts::at).
void expect_facts(const json& raw, const NodeFacts& facts, const std::string& where, int& nodes,
                  std::optional<zf::deepspeed::ReleaseIndex> release = std::nullopt) {
  SCOPED_TRACE(where);
  ++nodes;
  const json node = resolved(raw);
  if (!node.is_object()) return;
  EXPECT_EQ(facts.section, node.contains("keys") || node.contains("kind"));
  const std::string kind = node.value("kind", "dict");
  EXPECT_EQ(facts.kind, kind == "pydantic" ? NodeFacts::Kind::Pydantic
                        : kind == "open"   ? NodeFacts::Kind::Open
                                           : NodeFacts::Kind::Dict);
  EXPECT_EQ(facts.legacy_bool, node.value("legacy_bool", false));
  EXPECT_EQ(facts.nullable, node.value("nullable", false));
  EXPECT_EQ(facts.strict_int, node.value("strict_int", false));
  EXPECT_EQ(facts.legacy, node.value("legacy", false));
  EXPECT_EQ(facts.alias, node.contains("alias_of"));
  EXPECT_EQ(facts.alias_of, node.value("alias_of", ""));
  EXPECT_EQ(facts.deprecated, node.contains("deprecated"));
  EXPECT_EQ(facts.deprecated_why, node.value("deprecated", ""));
  EXPECT_EQ(facts.replaced_by, node.value("replaced_by", ""));
  EXPECT_EQ(facts.doc, node.value("doc", ""));
  std::vector<ValueType> types;
  if (auto t = node.find("type"); t != node.end()) {
    for (const auto& each : t->is_array() ? *t : json::array({*t}))
      types.push_back(type_named(each.get<std::string>()));
  }
  EXPECT_EQ(std::vector<ValueType>(facts.types.begin(), facts.types.end()), types);
  unsigned mask = 0;
  for (ValueType type : types) mask |= 1U << static_cast<unsigned>(type);
  EXPECT_EQ(facts.type_mask, mask);
  EXPECT_EQ(facts.any_type, types.empty() || (mask & 1U) != 0);
  for (const char* bound : {"min", "max"}) {
    const auto& value = std::string(bound) == "min" ? facts.min : facts.max;
    const auto& text = std::string(bound) == "min" ? facts.min_text : facts.max_text;
    if (node.contains(bound)) {
      ASSERT_TRUE(value.has_value()) << bound;
      EXPECT_EQ(*value, node.at(bound).get<double>());
      EXPECT_EQ(text, node.at(bound).dump());
    } else {
      EXPECT_FALSE(value.has_value()) << bound;
    }
  }
  EXPECT_EQ(facts.has_enum, node.contains("enum"));
  if (node.contains("enum")) {
    const json& choices = node.at("enum");
    ASSERT_EQ(facts.enum_values.size(), choices.size());
    for (std::size_t i = 0; i < choices.size(); ++i) {
      EXPECT_EQ(facts.enum_values[i].text, choices[i].dump());
      if (choices[i].is_string()) {
        EXPECT_EQ(facts.enum_values[i].string, choices[i].get<std::string>());
      }
      if (choices[i].is_number()) {
        EXPECT_EQ(facts.enum_values[i].number, choices[i].get<double>());
      }
    }
  }
  EXPECT_EQ(facts.has_stages, node.contains("stages"));
  if (node.contains("stages")) {
    unsigned stages = 0;
    for (const auto& stage : node.at("stages")) stages |= 1U << stage.get<int>();
    EXPECT_EQ(facts.stage_mask, stages);
  }
  EXPECT_EQ(facts.no_effect.has_value(), node.contains("no_effect"));
  if (facts.no_effect) {
    EXPECT_EQ(*facts.no_effect, node.at("no_effect").get<std::string>());
  }
  EXPECT_EQ(facts.default_text.has_value(), node.contains("default"));
  if (facts.default_text) {
    EXPECT_EQ(*facts.default_text, node.at("default").dump());
  }
  const json removed = node.value("removed", json::object());
  ASSERT_EQ(facts.removed.size(), removed.size());
  std::size_t r = 0;
  for (const auto& [name, why] : removed.items()) {
    EXPECT_EQ(facts.removed[r].name, name);
    EXPECT_EQ(facts.removed[r].why, why.get<std::string>());
    ++r;
  }
  const json keys = node.value("keys", json::object());
  std::vector<zf::deepspeed::KeySlot> present;
  for (const auto& slot : facts.keys.ordered) {
    if (!release || slot.facts->present_at(*release)) present.push_back(slot);
  }
  ASSERT_EQ(present.size(), keys.size());
  std::size_t k = 0;
  for (const auto& [name, child] : keys.items()) {
    EXPECT_EQ(present[k].name, name);
    const NodeFacts* child_facts = facts.key(name);
    ASSERT_NE(child_facts, nullptr) << name;
    EXPECT_EQ(child_facts, present[k].facts);
    if (child.is_object() && child.contains("alias_of")) {
      EXPECT_EQ(child_facts->canonical, facts.key(child.at("alias_of").get<std::string>()));
    }
    expect_facts(child, release ? child_facts->at(*release) : *child_facts, where + "/" + name,
                 nodes, release);
    ++k;
  }
  EXPECT_EQ(facts.key("no such key"), nullptr);
}

TEST(SchemaFactsTest, EveryNodeSaysWhatTheDataSays) {
  int nodes = 0;
  expect_facts(zf::deepspeed_schema_data().at("root"), zf::deepspeed::root_facts(), "/root", nodes);
  EXPECT_GT(nodes, 250);  // the whole tree was walked (278 nodes today), not a corner of it
}

// The tables serve every release: for each one, the keys present and their facts are the
// data's as that release saw it (the newest facts with the release history applied).
TEST(SchemaFactsTest, EveryReleaseSeesWhatTheDataSays) {
  const auto& versions = zf::deepspeed_versions();
  ASSERT_EQ(zf::deepspeed::releases().size(), versions.size());
  for (std::size_t r = 0; r < versions.size(); ++r) {
    SCOPED_TRACE(versions[r]);
    const auto release = static_cast<zf::deepspeed::ReleaseIndex>(r);
    const json data = zf::deepspeed_schema_data_at(versions[r]);
    EXPECT_EQ(data.at("deepspeed").at("version"), versions[r]);
    EXPECT_EQ(data.at("deepspeed").at("commit"), zf::deepspeed::releases()[r].commit);
    int nodes = 0;
    expect_facts(data.at("root"), zf::deepspeed::root_facts().at(release), "/root", nodes, release);
    EXPECT_GT(nodes, 180);  // 189 in 0.12.0: the whole tree was walked
  }
}

// Features (DeepSpeed's optimizer and scheduler names, checks) exist where the history says.
TEST(SchemaFactsTest, FeaturesFollowTheHistory) {
  const json& releases = zf::deepspeed_schema_data().at("releases");
  std::map<std::string, std::vector<std::pair<std::string, bool>>> events;
  for (const auto& change : releases.at("changes")) {
    for (const char* field : {"added", "removed"}) {
      for (const auto& name : change.value(field, json::array())) {
        if (!name.get<std::string>().starts_with("/"))
          events[name.get<std::string>()].emplace_back(change.at("release").get<std::string>(),
                                                       std::string(field) == "added");
      }
    }
  }
  ASSERT_FALSE(events.empty());
  const auto& versions = zf::deepspeed_versions();
  for (const auto& [name, list] : events) {
    SCOPED_TRACE(name);
    bool present = !list.front().second;  // present from the oldest unless first added
    std::size_t next = 0;
    for (std::size_t r = 0; r < versions.size(); ++r) {
      if (next < list.size() && list[next].first == versions[r]) present = list[next++].second;
      EXPECT_EQ(zf::deepspeed::feature_at(name, static_cast<zf::deepspeed::ReleaseIndex>(r)),
                present)
          << versions[r];
    }
  }
  EXPECT_TRUE(zf::deepspeed::feature_at("optimizer:adam", 0));  // never changed: every release
}

TEST(SchemaFactsTest, TheJsonPartsAreTheData) {
  const std::pair<zf::deepspeed::SchemaPart, const char*> parts[] = {
      {zf::deepspeed::SchemaPart::Optimizers, "optimizers"},
      {zf::deepspeed::SchemaPart::Schedulers, "schedulers"},
      {zf::deepspeed::SchemaPart::HfTrainer, "hf_trainer"},
      {zf::deepspeed::SchemaPart::NativeAuto, "native_auto"}};
  for (const auto& [part, name] : parts) {
    SCOPED_TRACE(name);
    EXPECT_EQ(zf::deepspeed::schema_part(part), zf::deepspeed_schema_data().at(name));
  }
}

struct CompileCase {
  const char* name;
  const char* schema;
  const char* expected;  // stderr after "FILE: error: "
};

TEST(SchemaFactsTest, CompileSchemaRefusesDataTheValidatorCannotUse) {
  const char* parts = R"("optimizers": {}, "schedulers": {}, "hf_trainer": {}, "native_auto": {},
      "releases": {"known": [{"version": "0.1.0", "commit": "c1"}, {"version": "0.2.0", "commit": "c2"}],
                   "changes": []})";
  const CompileCase cases[] = {
      {"unknown type", R"({"root": {"keys": {"a": {"type": "int"}}}, "sections": {}, %})",
       "/root/keys/a/type: unknown type \"int\""},
      {"stage outside 0-3", R"({"root": {"keys": {"a": {"stages": [1, 4]}}}, "sections": {}, %})",
       "/root/keys/a/stages: a ZeRO stage is 0, 1, 2 or 3, found 4"},
      {"alias of no sibling", R"({"root": {"keys": {"a": {"alias_of": "b"}}}, "sections": {}, %})",
       "/root/keys/a/alias_of: no sibling key \"b\""},
      {"reference to no section", R"({"root": {"keys": {"a": {"$ref": "s"}}}, "sections": {}, %})",
       "/root/keys/a/$ref: no section \"s\""},
      {"unknown kind", R"({"root": {"kind": "strict"}, "sections": {}, %})",
       "/root/kind: unknown kind \"strict\""},
      {"missing part",
       R"({"root": {}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "c"}], "changes": []}})",
       "/optimizers: missing"},
      // The release history (release_history.hpp).
      {"no history", R"({"root": {}, "sections": {}})", "/releases: missing"},
      {"no releases", R"({"root": {}, "sections": {}, "releases": {"known": [], "changes": []}})",
       "/releases/known: expected the releases, oldest first"},
      {"malformed version",
       R"({"root": {}, "sections": {}, "releases": {"known": [{"version": "0.16", "commit": "c"}], "changes": []}})",
       "/releases/known/0/version: \"0.16\" is not X.Y.Z"},
      {"releases out of order",
       R"({"root": {}, "sections": {}, "releases": {"known": [{"version": "0.10.0", "commit": "a"},
          {"version": "0.9.1", "commit": "b"}], "changes": []}})",
       "/releases/known/1/version: 0.9.1 does not follow 0.10.0"},
      {"another newest release",
       R"({"root": {}, "sections": {}, "deepspeed": {"version": "0.3.0"},
          "releases": {"known": [{"version": "0.2.0", "commit": "b"}], "changes": []}})",
       "/deepspeed/version: the data describes 0.3.0 but the newest release in /releases/known is "
       "0.2.0"},
      {"change at an unknown release",
       R"({"root": {"keys": {"a": {}}}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"}],
          "changes": [{"release": "0.1.1", "added": ["/a"]}]}})",
       "/releases/changes/0/release: \"0.1.1\" is not in /releases/known"},
      {"change in the oldest release",
       R"({"root": {"keys": {"a": {}}}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"}],
          "changes": [{"release": "0.1.0", "added": ["/a"]}]}})",
       "/releases/changes/0/release: 0.1.0 is not after the release before it"},
      {"a key the data lacks",
       R"({"root": {"keys": {"a": {}}}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"},
          {"version": "0.2.0", "commit": "b"}], "changes": [{"release": "0.2.0", "added": ["/b"]}]}})",
       "/releases/changes/0/added/0: the data has no key /b"},
      {"neither key nor feature",
       R"({"root": {}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"},
          {"version": "0.2.0", "commit": "b"}], "changes": [{"release": "0.2.0", "removed": ["muon"]}]}})",
       "/releases/changes/0/removed/0: \"muon\" is neither a JSON pointer nor optimizer:, "
       "scheduler: or check:"},
      {"added twice",
       R"({"root": {"keys": {"a": {}}}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"},
          {"version": "0.2.0", "commit": "b"}, {"version": "0.3.0", "commit": "c"}],
          "changes": [{"release": "0.2.0", "added": ["/a"]}, {"release": "0.3.0", "added": ["/a"]}]}})",
       "/releases/changes: /a is added in 0.3.0 but is there already"},
      {"a change that does not end at the data",
       R"({"root": {"keys": {"a": {"default": 2}}}, "sections": {}, "releases": {"known": [{"version": "0.1.0", "commit": "a"},
          {"version": "0.2.0", "commit": "b"}], "changes": [{"release": "0.2.0", "changed": {"/a": {"default": [1, 3]}}}]}})",
       "/releases/changes/0/changed/~1a/default: the value after 0.2.0 is 2 in the data, not 3"},
  };
  zf::test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string text = c.schema;
    if (auto at = text.find('%'); at != std::string::npos) text.replace(at, 1, parts);
    auto input = dir.write("schema.json", text);
    auto result = zf::test::run_program(ZF_COMPILE_SCHEMA_PATH,
                                        {input.string(), (dir.path() / "t.cpp").string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, input.string() + ": error: " + c.expected + "\n");
  }
}

}  // namespace
