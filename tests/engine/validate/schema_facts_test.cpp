// SPDX-License-Identifier: MIT
// The generated schema tables (engine/tools/compile_schema.cpp): every node of the schema
// data has facts that say what the data says, every key is found by name, the JSON parts the
// rules read are the data's, and compile_schema refuses data the validator could not use.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "validate/rules.hpp"
#include "zeroforge/validator.hpp"

namespace {

using json = nlohmann::ordered_json;
using zf::validate::NodeFacts;
using zf::validate::ValueType;

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

// Compares one node's facts with its JSON, then its keys', recursively.
void expect_facts(const json& raw, const NodeFacts& facts, const std::string& where, int& nodes) {
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
  ASSERT_EQ(facts.keys.ordered.size(), keys.size());
  std::size_t k = 0;
  for (const auto& [name, child] : keys.items()) {
    EXPECT_EQ(facts.keys.ordered[k].name, name);
    const NodeFacts* child_facts = facts.key(name);
    ASSERT_NE(child_facts, nullptr) << name;
    EXPECT_EQ(child_facts, facts.keys.ordered[k].facts);
    if (child.is_object() && child.contains("alias_of")) {
      EXPECT_EQ(child_facts->canonical, facts.key(child.at("alias_of").get<std::string>()));
    }
    expect_facts(child, *child_facts, where + "/" + name, nodes);
    ++k;
  }
  EXPECT_EQ(facts.key("no such key"), nullptr);
}

TEST(SchemaFactsTest, EveryNodeSaysWhatTheDataSays) {
  int nodes = 0;
  expect_facts(zf::deepspeed_schema_data().at("root"), zf::validate::root_facts(), "/root", nodes);
  EXPECT_GT(nodes, 250);  // the whole tree was walked (278 nodes today), not a corner of it
}

TEST(SchemaFactsTest, TheJsonPartsAreTheData) {
  const std::pair<zf::validate::SchemaPart, const char*> parts[] = {
      {zf::validate::SchemaPart::Optimizers, "optimizers"},
      {zf::validate::SchemaPart::Schedulers, "schedulers"},
      {zf::validate::SchemaPart::HfTrainer, "hf_trainer"},
      {zf::validate::SchemaPart::NativeAuto, "native_auto"}};
  for (const auto& [part, name] : parts) {
    SCOPED_TRACE(name);
    EXPECT_EQ(zf::validate::schema_part(part), zf::deepspeed_schema_data().at(name));
  }
}

struct CompileCase {
  const char* name;
  const char* schema;
  const char* expected;  // stderr after "FILE: error: "
};

TEST(SchemaFactsTest, CompileSchemaRefusesDataTheValidatorCannotUse) {
  const char* parts = R"("optimizers": {}, "schedulers": {}, "hf_trainer": {}, "native_auto": {})";
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
      {"missing part", R"({"root": {}, "sections": {}})", "/optimizers: missing"},
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
