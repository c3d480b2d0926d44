// SPDX-License-Identifier: MIT
// read_fit_assumptions (engine/src/generate/fit_assumptions.cpp): the SDK's fit assumptions
// record found under any plugin's name, and every way out of the schema refused with the
// plugin and the pointer inside its annotation.
#include "generate/fit_assumptions.hpp"

#include <gtest/gtest.h>

#include "support/docs_example.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/fit_assumptions.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

// A long plugin name: the error's location is built from it.
const std::string kPlugin = "acme_corporation_long_named_fitter";

// docs/plugins.md's example record (every key of schema version 1), read from the page so
// that the documented example is one the companions accept.
Json valid() {
  return zf::test::plugins_doc_example("## The fit assumptions record")
      .at("manifest")
      .at(std::string(zf::sdk::kFitAssumptionsKey));
}

TEST(FitAssumptionsTest, FindsTheRecordUnderAnyPluginsName) {
  const Json plugins = {{"site_fields", {{"profile", "site.json"}}},
                        {kPlugin, {{"other", 1}, {"fit_assumptions", valid()}}}};
  const std::optional<FitAssumptions> fit = read_fit_assumptions(plugins);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->plugin, kPlugin);
  EXPECT_EQ(fit->activation_checkpointing, "full");
  EXPECT_EQ(fit->attention, "flash");
  EXPECT_EQ(fit->loss, "fused");
  EXPECT_EQ(fit->seq_len, 8192);
}

TEST(FitAssumptionsTest, NoRecordIsNoFit) {
  // `auto_fit` is the memory plugin's own layout: not read.
  const Json plugins = {{"memory", {{"auto_fit", {{"model", {{"seq_len", 4096}}}}}}}};
  EXPECT_FALSE(read_fit_assumptions(plugins).has_value());
  EXPECT_FALSE(read_fit_assumptions(Json::object()).has_value());
  EXPECT_FALSE(read_fit_assumptions(nullptr).has_value());
}

TEST(FitAssumptionsTest, RefusesARecordOutsideTheSchemaNamingThePluginAndPointer) {
  struct Case {
    const char* name;
    Json patch;  // merge patch over valid(); a non-object replaces the record
    std::string pointer;
    std::string message;
  };
  const std::string head = "the companions cannot read its fit assumptions record: ";
  const std::vector<Case> cases = {
      {"not an object", "full", "/fit_assumptions", head + "expected an object, got \"full\""},
      {"unknown key",
       {{"seqlen", 4096}},
       "/fit_assumptions/seqlen",
       head + "unknown key 'seqlen' (expected schema_version, activation_checkpointing, "
              "attention, loss, seq_len); did you mean 'seq_len'?"},
      {"missing version",
       {{"schema_version", nullptr}},
       "/fit_assumptions/schema_version",
       head + "missing"},
      {"newer version",
       {{"schema_version", 2}},
       "/fit_assumptions/schema_version",
       head + "schema version 2 is not one this zeroforge reads (1); build the plugin against this "
              "zeroforge's zeroforge/fit_assumptions.hpp"},
      {"unknown checkpointing",
       {{"activation_checkpointing", "partial"}},
       "/fit_assumptions/activation_checkpointing",
       head + "expected none, selective or full, got \"partial\""},
      {"unknown attention",
       {{"attention", "flash_attention_2"}},
       "/fit_assumptions/attention",
       head + "expected eager, sdpa or flash, got \"flash_attention_2\""},
      {"loss not a string",
       {{"loss", true}},
       "/fit_assumptions/loss",
       head + "expected hf or fused, got true"},
      {"missing loss", {{"loss", nullptr}}, "/fit_assumptions/loss", head + "missing"},
      {"zero sequence",
       {{"seq_len", 0}},
       "/fit_assumptions/seq_len",
       head + "expected an integer >= 1, got 0"},
      {"fractional sequence",
       {{"seq_len", 4096.5}},
       "/fit_assumptions/seq_len",
       head + "expected an integer >= 1, got 4096.5"},
      {"sequence beyond int64",
       {{"seq_len", 18446744073709551615ULL}},
       "/fit_assumptions/seq_len",
       head + "expected an integer >= 1, got 18446744073709551615"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Json record = valid();
    record.merge_patch(c.patch);
    try {
      read_fit_assumptions({{kPlugin, {{"fit_assumptions", record}}}});
      ADD_FAILURE() << "accepted " << record.dump();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Plugin);
      EXPECT_EQ(e.where().file, "plugin " + kPlugin);
      EXPECT_EQ(e.json_pointer(), c.pointer);
      EXPECT_EQ(e.message(), c.message);
    }
  }
}

TEST(FitAssumptionsTest, TwoPluginsPublishingOneForAConfigIsAnErrorNamingBoth) {
  const Json plugins = {{"memory", {{"fit_assumptions", valid()}}},
                        {kPlugin, {{"fit_assumptions", valid()}}}};
  try {
    read_fit_assumptions(plugins);
    ADD_FAILURE() << "two records accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "plugin " + kPlugin);
    EXPECT_EQ(e.json_pointer(), "/fit_assumptions");
    EXPECT_EQ(e.message(),
              "the companions cannot read its fit assumptions record: a second fit assumptions "
              "record for this config: plugin 'memory' published one too; load one plugin that "
              "fits configs");
  }
}

}  // namespace
}  // namespace zf::pipeline
