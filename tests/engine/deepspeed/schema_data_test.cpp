// SPDX-License-Identifier: MIT
// The compiled-in schema data (engine/src/deepspeed/deepspeed_schema.json): it parses, names
// the DeepSpeed it was read from, is well formed, and is what the validator uses.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace {

using json = nlohmann::ordered_json;

TEST(SchemaDataTest, CompiledInTextIsTheSourceFile) {
  json on_disk = json::parse(zf::read_file(std::filesystem::path(ZF_SOURCE_DIR) /
                                           "engine/src/deepspeed/deepspeed_schema.json"));
  EXPECT_EQ(zf::deepspeed_schema_data(), on_disk) << "rebuild: the embedded schema data is stale";
}

TEST(SchemaDataTest, RecordsTheDeepSpeedVersionItWasReadFrom) {
  const json& data = zf::deepspeed_schema_data();
  EXPECT_EQ(data.at("deepspeed").at("version"), "0.19.6");
  EXPECT_EQ(data.at("deepspeed").at("commit"), "edaa7221267243c7be7fb49c5d5f5c4fb97b4641");
  EXPECT_EQ(data.at("hf_trainer").at("fills").size(), 19u);  // the Trainer's 19 "auto" keys
}

// Every ZeRO key says at which stages it acts; every alias points at a real key.
TEST(SchemaDataTest, ZeroKeysHaveStagesAndAliasesResolve) {
  const json& zero = zf::deepspeed_schema_data().at("sections").at("zero_optimization");
  for (const auto& [key, node] : zero.at("keys").items()) {
    SCOPED_TRACE(key);
    if (node.contains("alias_of")) {
      EXPECT_TRUE(zero.at("keys").contains(node.at("alias_of").get<std::string>()));
    } else {
      EXPECT_TRUE(node.contains("stages"));
    }
  }
}

// The validator links each alias to the key it names, in the same section.
TEST(SchemaDataTest, EveryAliasNamesASibling) {
  const json& data = zf::deepspeed_schema_data();
  std::vector<std::pair<std::string, const json*>> sections = {{"/root", &data.at("root")}};
  for (const auto& [name, section] : data.at("sections").items())
    sections.emplace_back("/sections/" + name, &section);
  while (!sections.empty()) {
    auto [where, section] = sections.back();
    sections.pop_back();
    if (!section->contains("keys")) continue;
    const json& keys = section->at("keys");
    for (const auto& [key, node] : keys.items()) {
      SCOPED_TRACE(where + "/" + key);
      if (node.contains("alias_of")) {
        EXPECT_TRUE(keys.contains(node.at("alias_of").get<std::string>()));
      }
      if (node.contains("keys")) sections.emplace_back(where + "/" + key, &node);
    }
  }
}

// The validator reads its knowledge from the data: a key listed there is accepted, one that
// is not is rejected, and the DeepSpeed commit shows up in the JSON Schema.
TEST(SchemaDataTest, IsWhatTheValidatorAndTheJsonSchemaUse) {
  const json& keys = zf::deepspeed_schema_data().at("sections").at("zero_optimization").at("keys");
  json config = {{"train_micro_batch_size_per_gpu", 1}, {"zero_optimization", {{"stage", 3}}}};
  for (const auto& [key, node] : keys.items()) {
    if (node.contains("deprecated") || node.contains("alias_of") || node.contains("no_effect"))
      continue;
    if (node.value("type", "") == "boolean" && node.contains("default") &&
        node.at("default").is_boolean()) {
      config["zero_optimization"][key] = node.at("default");
    }
  }
  for (const auto& f : zf::validate_config(config, {}, "c.json")) {
    EXPECT_NE(f.rule, "unknown-key") << zf::format_finding(f);
  }
  config["zero_optimization"]["not_a_zero_key"] = true;
  bool rejected = false;
  for (const auto& f : zf::validate_config(config, {}, "c.json")) {
    rejected =
        rejected || (f.rule == "unknown-key" && f.pointer == "/zero_optimization/not_a_zero_key");
  }
  EXPECT_TRUE(rejected);
  EXPECT_EQ(zf::deepspeed_json_schema().at("x-deepspeed-commit"),
            "edaa7221267243c7be7fb49c5d5f5c4fb97b4641");
}

TEST(SchemaDataTest, EveryRuleIsDocumented) {
  std::string docs = zf::read_file(std::filesystem::path(ZF_SOURCE_DIR) / "docs/validate.md");
  for (const auto& rule : zf::validation_rules()) {
    EXPECT_NE(docs.find(std::string("### `") + rule.id + "`"), std::string::npos)
        << "docs/validate.md has no entry for " << rule.id;
  }
}

}  // namespace
