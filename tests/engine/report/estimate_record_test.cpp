// SPDX-License-Identifier: MIT
// The memory estimate record as the report reads it (engine/src/report/estimate_record.cpp):
// schema version 1 of zeroforge/memory_estimate.hpp, found by its key under any plugin's name,
// and every way a record can break it refused with the whole JSON pointer and the plugin.
#include "report/estimate_record.hpp"

#include <gtest/gtest.h>

#include <zeroforge/memory_estimate.hpp>

#include "support/docs_example.hpp"
#include "zeroforge/error.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

// Long enough that a pointer built in a small-string buffer would be cut or dangle.
const std::string kPlugin = "acme_cluster_memory_estimator_with_a_long_name";
const std::string kAt = "/configs/12/plugins/" + kPlugin + "/memory_estimate";

// docs/plugins.md's example record (every key of schema version 1), read from the page so
// that the documented example is one the report accepts.
Json valid_record() {
  return zf::test::plugins_doc_example("## The memory estimate record")
      .at("manifest")
      .at(std::string(zf::sdk::kMemoryEstimateKey));
}

Json entry_with(const Json& record, const std::string& plugin = kPlugin) {
  return {{"path", "small/a.json"},
          {"sha256", "1"},
          {"plugins",
           {{"site_fields", {{"profile", "site.json"}}}, {plugin, {{"memory_estimate", record}}}}}};
}

Config read(const Json& entry) {
  Config c;
  read_estimate_record(entry, "/configs/12", c);
  return c;
}

TEST(EstimateRecordTest, ReadsEveryFieldOfTheDocumentedExample) {
  const Config c = read(entry_with(valid_record()));
  ASSERT_TRUE(c.memory);
  const Memory& m = *c.memory;
  EXPECT_EQ(m.publisher, kPlugin);
  EXPECT_EQ(m.model, "acme-13b");
  EXPECT_EQ(m.assumptions, "sequence 2048, no activation checkpointing");
  EXPECT_EQ(m.command, "acme-estimate --model acme-13b");
  EXPECT_FALSE(m.step_is_peak);
  ASSERT_EQ(m.gpu.size(), 3u);
  EXPECT_STREQ(m.gpu[1].key, "activations");
  EXPECT_STREQ(m.gpu[1].label, "activations");
  EXPECT_EQ(m.gpu[1].bytes, 4294967296);
  EXPECT_EQ(m.gpu_total, 16106127360);
  EXPECT_EQ(m.gpu_capacity, 85899345920);
  EXPECT_EQ(m.gpu_usable, 81604378624);
  EXPECT_EQ(m.gpu_margin, 0.05);
  EXPECT_EQ(m.cpu_capacity, 0) << "null: none stated";
  EXPECT_EQ(m.gpus_per_node, 8);
  EXPECT_EQ(m.nodes, 2);
  ASSERT_TRUE(c.auto_fit);
  EXPECT_EQ(c.auto_fit->chosen, "ZeRO-2, optimizer on GPU, parameters on GPU");
  EXPECT_EQ(c.auto_fit->largest_fitting_micro_batch_size, 3);
  EXPECT_EQ(c.auto_fit->limited_by, "global_batch_size");
  EXPECT_EQ(c.auto_fit->pinned, std::vector<std::string>{"precision"});
  ASSERT_EQ(c.auto_fit->escalated.size(), 1u);
  EXPECT_EQ(c.auto_fit->escalated[0].gpu_bytes, 90194313216);
}

// Only `schema_version`, `model`, `gpu`, `host` and `cluster` (and in them `peak`, `parts`,
// `total_bytes`; `total_bytes`; both counts) are required.
TEST(EstimateRecordTest, TheOptionalFieldsMayBeLeftOut) {
  Json record = valid_record();
  for (const char* key : {"assumptions", "command", "fit"}) record.erase(key);
  for (const char* key : {"capacity_bytes", "usable_bytes", "margin"}) record["gpu"].erase(key);
  record["host"] = {{"total_bytes", 5}};
  const Config c = read(entry_with(record));
  ASSERT_TRUE(c.memory);
  EXPECT_EQ(c.memory->assumptions, "");
  EXPECT_EQ(c.memory->command, "");
  EXPECT_EQ(c.memory->gpu_capacity, 0);
  EXPECT_EQ(c.memory->gpu_usable, 0);
  EXPECT_EQ(c.memory->gpu_margin, 0.0);
  EXPECT_EQ(c.memory->cpu_total, 5);
  EXPECT_EQ(c.memory->nvme, 0);
  EXPECT_FALSE(c.auto_fit);
}

TEST(EstimateRecordTest, EveryPartTheSdkNamesHasItsOwnPatternKey) {
  Json parts = Json::array();
  for (std::string_view part : zf::sdk::kMemoryEstimateParts)
    parts.push_back({{"part", std::string(part)}, {"bytes", 1}});
  Json record = valid_record();
  record["gpu"]["parts"] = parts;
  record["gpu"]["total_bytes"] = parts.size();
  const Config c = read(entry_with(record));
  ASSERT_TRUE(c.memory);
  std::vector<std::string> keys;
  for (const Segment& s : c.memory->gpu) keys.push_back(s.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"model-states", "working-set", "buffers", "activations",
                                            "headroom", "optimizer-step", "kept-activations",
                                            "cuda-context"}));
}

TEST(EstimateRecordTest, ASkippedRecordSaysWhyThereIsNoChart) {
  const Config c = read(entry_with({{"schema_version", 1}, {"skipped", "no model for stage 7"}}));
  EXPECT_FALSE(c.memory);
  EXPECT_EQ(c.no_memory,
            "the " + kPlugin + " plugin could not estimate this config: no model for stage 7");
}

TEST(EstimateRecordTest, NoRecordMeansNothingNamedAModel) {
  for (const Json& entry :
       {Json{{"path", "a.json"}}, Json{{"path", "a.json"}, {"plugins", {{"memory", 3}}}},
        Json{{"path", "a.json"}, {"plugins", {{"memory", {{"estimate", {{"model", "x"}}}}}}}}}) {
    SCOPED_TRACE(entry.dump());
    const Config c = read(entry);
    EXPECT_FALSE(c.memory);
    EXPECT_EQ(c.no_memory,
              "nothing names a model for this config (no auto_fit.model in its values, no "
              "--model), so there is nothing to estimate its memory from");
  }
}

// A change to the record at a JSON pointer (RFC 6901), or its removal.
struct Case {
  const char* name;
  const char* pointer;  // into the record
  Json value;           // null with `erase`: remove it
  bool erase;
  std::string at;  // the error's pointer below the record
  std::string message;
};

TEST(EstimateRecordTest, RefusesARecordOutsideTheSchemaNamingThePointerAndThePlugin) {
  const Json big = Json::parse("18446744073709551615");
  const std::string parts =
      "model_states, stage3_working_set, comm_buffers, activations, fragmentation, "
      "optimizer_step, kept_activations or cuda_context";
  const std::vector<Case> cases = {
      {"no version", "/schema_version", nullptr, true, "/schema_version", "missing"},
      {"a newer version", "/schema_version", 3, false, "/schema_version",
       "schema version 3 is not one this zeroforge reads (1 to 2); build the plugin against this "
       "zeroforge's zeroforge/memory_estimate.hpp"},
      {"a version as text", "/schema_version", "1", false, "/schema_version",
       "expected an integer >= 1, got \"1\""},
      {"a misspelt key", "/asumptions", "x", false, "/asumptions",
       "unknown key 'asumptions' (expected schema_version, model, assumptions, command, gpu, "
       "host, cluster, fit); did you mean 'assumptions'?"},
      {"no model", "/model", nullptr, true, "/model", "missing"},
      {"an empty model", "/model", "", false, "/model", "expected the model's name, got \"\""},
      {"assumptions as a list", "/assumptions", Json::array({"a"}), false, "/assumptions",
       "expected a string, got [\"a\"]"},
      {"no gpu", "/gpu", nullptr, true, "/gpu", "missing"},
      {"gpu as a number", "/gpu", 3, false, "/gpu", "expected an object, got 3"},
      {"an unknown peak", "/gpu/peak", "backward", false, "/gpu/peak",
       "expected forward_backward or optimizer_step, got \"backward\""},
      {"parts as an object", "/gpu/parts", Json::object(), false, "/gpu/parts",
       "expected a list, got {}"},
      {"no parts", "/gpu/parts", Json::array(), false, "/gpu/parts",
       "expected at least one part, got []"},
      {"an unknown part", "/gpu/parts/1/part", "flash_attention", false, "/gpu/parts/1/part",
       "expected " + parts + ", got \"flash_attention\""},
      {"a part twice", "/gpu/parts/2/part", "model_states", false, "/gpu/parts/2/part",
       "part 'model_states' is listed twice (also at /gpu/parts/0)"},
      {"a part with a unit", "/gpu/parts/0/unit", "GiB", false, "/gpu/parts/0/unit",
       "unknown key 'unit' (expected part, bytes)"},
      {"negative bytes", "/gpu/parts/1/bytes", -5, false, "/gpu/parts/1/bytes",
       "expected an integer >= 0, got -5"},
      {"fractional bytes", "/gpu/parts/1/bytes", 1.5, false, "/gpu/parts/1/bytes",
       "expected an integer >= 0, got 1.5"},
      {"bytes past 64 bits", "/gpu/parts/1/bytes", big, false, "/gpu/parts/1/bytes",
       "expected an integer >= 0, got 18446744073709551615"},
      {"bytes in GiB", "/gpu/parts/1/bytes", 4.0, false, "/gpu/parts/1/bytes",
       "expected an integer >= 0, got 4.0"},
      {"parts that do not add up", "/gpu/total_bytes", 16106127361, false, "/gpu/total_bytes",
       "the parts add up to 16106127360, not 16106127361"},
      {"parts past 64 bits", "/gpu/parts/0/bytes", INT64_MAX, false, "/gpu/total_bytes",
       "the parts add up to more than 2^63 - 1 bytes"},
      {"usable above the capacity", "/gpu/usable_bytes", 85899345921, false, "/gpu/usable_bytes",
       "expected at most the capacity (85899345920), got 85899345921"},
      {"usable without a capacity", "/gpu/capacity_bytes", nullptr, false, "/gpu/usable_bytes",
       "a usable memory needs the capacity, and /gpu/capacity_bytes is null"},
      {"a margin in percent", "/gpu/margin", 5, false, "/gpu/margin",
       "expected a fraction from 0 to below 1, got 5"},
      {"no host", "/host", nullptr, true, "/host", "missing"},
      {"a host capacity as text", "/host/capacity_bytes", "1 TiB", false, "/host/capacity_bytes",
       "expected an integer >= 0, got \"1 TiB\""},
      {"no nodes", "/cluster/nodes", 0, false, "/cluster/nodes", "expected an integer >= 1, got 0"},
      {"a world size", "/cluster/world_size", 16, false, "/cluster/world_size",
       "unknown key 'world_size' (expected gpus_per_node, nodes)"},
      {"a fit without its rung", "/fit/chosen", nullptr, true, "/fit/chosen", "missing"},
      {"stage 4", "/fit/chosen/stage", 4, false, "/fit/chosen/stage",
       "expected a ZeRO stage 0-3, got 4"},
      {"an unknown device", "/fit/tried/0/rung/offload_param", "disk", false,
       "/fit/tried/0/rung/offload_param", "expected none, cpu or nvme, got \"disk\""},
      {"a tried rung without a reason", "/fit/tried/0/reason", nullptr, true, "/fit/tried/0/reason",
       "missing"},
      {"a kept value that is no name", "/fit/kept/1", 7, false, "/fit/kept/1",
       "expected a string, got 7"},
      {"a micro batch of 0", "/fit/micro_batch_size", 0, false, "/fit/micro_batch_size",
       "expected an integer >= 1, got 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Json record = valid_record();
    const Json::json_pointer at(c.pointer);
    if (c.erase) {
      record.at(at.parent_pointer()).erase(at.back());
    } else {
      record[at] = c.value;
    }
    try {
      read(entry_with(record));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Plugin);
      EXPECT_EQ(std::string(e.what()),
                "manifest.json: " + kAt + c.at + ": error: the family report cannot read it: " +
                    c.message + " (a plugin named '" + kPlugin + "' wrote it)");
    }
  }
}

TEST(EstimateRecordTest, RefusesARecordThatIsNoObjectOrASkipWithMore) {
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json::array({1}), ": error: the family report cannot read it: expected an object, got [1]"},
      {{{"schema_version", 1}, {"skipped", 3}},
       "/skipped: error: the family report cannot read it: expected a string, got 3"},
      {{{"schema_version", 1}, {"skipped", "why"}, {"model", "x"}},
       "/model: error: the family report cannot read it: unknown key 'model' (expected "
       "schema_version, skipped)"},
  };
  for (const auto& [record, expected] : cases) {
    SCOPED_TRACE(record.dump());
    try {
      read(entry_with(record));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "manifest.json: " + kAt + expected + " (a plugin named '" +
                                           kPlugin + "' wrote it)");
    }
  }
}

// Two estimators for one config would draw two different bars in one row: the second is
// refused, naming where the first one is.
TEST(EstimateRecordTest, RefusesASecondEstimateForOneConfig) {
  Json entry = entry_with(valid_record());
  entry["plugins"]["memory"] = {{"memory_estimate", valid_record()}};
  try {
    read(entry);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "manifest.json: /configs/12/plugins/memory/memory_estimate: error: the family "
              "report cannot read it: a second memory estimate for this config: plugin '" +
                  kPlugin + "' published one at " + kAt +
                  "; load one estimator (a plugin named 'memory' wrote it)");
  }
}

}  // namespace
}  // namespace zf::report

namespace zf::report {
namespace {

// The documented example with version 2's ranking added to its fit.
Json ranked_record() {
  Json record = valid_record();
  record["schema_version"] = 2;
  auto candidate = [](int stage, double tokens, double seconds) {
    return Json{
        {"rung", {{"stage", stage}, {"offload_optimizer", "none"}, {"offload_param", "none"}}},
        {"activation_checkpointing", "full"},
        {"micro_batch_size", 2},
        {"gradient_accumulation", 4},
        {"tokens_per_second", tokens},
        {"seconds", seconds},
        {"parts",
         {{"compute", seconds / 2},
          {"communication", seconds / 2},
          {"offload", 0},
          {"optimizer", 0}}}};
  };
  record["fit"]["objective"] = "fastest";
  record["fit"]["candidates"] = 7;
  record["fit"]["ranking"] = Json::array({candidate(2, 1000.5, 2), candidate(3, 900, 2.2)});
  return record;
}

TEST(EstimateRecordRankingTest, VersionTwoReadsTheRankingFastestFirst) {
  const Config c = read(entry_with(ranked_record()));
  ASSERT_TRUE(c.auto_fit);
  EXPECT_EQ(c.auto_fit->objective, "fastest");
  EXPECT_EQ(c.auto_fit->candidates, 7);
  ASSERT_EQ(c.auto_fit->ranking.size(), 2u);
  EXPECT_EQ(c.auto_fit->ranking[0].stage, 2);
  EXPECT_EQ(c.auto_fit->ranking[0].optimizer_on, "GPU");
  EXPECT_EQ(c.auto_fit->ranking[0].tokens_per_second, 1000.5);
  ASSERT_EQ(c.auto_fit->ranking[1].parts.size(), 4u);
  EXPECT_EQ(c.auto_fit->ranking[1].parts[1].first, "communication");
  EXPECT_DOUBLE_EQ(c.auto_fit->ranking[1].parts[1].second, 1.1);
  // Version 1 records (every one without a ranking) still read.
  EXPECT_TRUE(read(entry_with(valid_record())).auto_fit);
}

TEST(EstimateRecordRankingTest, RefusesARankingOutsideTheSchema) {
  const std::vector<Case> cases = {
      {"a ranking in version 1", "/schema_version", 1, false, "/fit/objective",
       "a key of schema version 2, in a record that says schema_version 1"},
      {"an unknown objective", "/fit/objective", "cheapest", false, "/fit/objective",
       "expected fastest, got \"cheapest\""},
      {"slower first", "/fit/ranking/1/tokens_per_second", 2000, false,
       "/fit/ranking/1/tokens_per_second",
       "the ranking is fastest first, and this candidate is faster than the one before"},
      {"more shown than timed", "/fit/candidates", 1, false, "/fit/ranking",
       "lists 2 candidates of 1"},
      {"a part missing", "/fit/ranking/0/parts/offload", nullptr, true,
       "/fit/ranking/0/parts/offload", "missing"},
      {"an unknown part", "/fit/ranking/0/parts/idle", 1, false, "/fit/ranking/0/parts/idle",
       "unknown key 'idle' (expected compute, communication, offload, optimizer)"},
      {"negative seconds", "/fit/ranking/0/seconds", -1, false, "/fit/ranking/0/seconds",
       "expected a number >= 0, got -1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Json record = ranked_record();
    const Json::json_pointer at(c.pointer);
    if (c.erase) {
      record.at(at.parent_pointer()).erase(at.back());
    } else {
      record[at] = c.value;
    }
    try {
      read(entry_with(record));
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "manifest.json: " + kAt + c.at + ": error: the family report cannot read it: " +
                    c.message + " (a plugin named '" + kPlugin + "' wrote it)");
    }
  }
}

}  // namespace
}  // namespace zf::report
