// SPDX-License-Identifier: MIT
// zf::migrate_config, one case per rewrite kind and per refusal: the notes it makes (code and
// pointer), the config it gives (key order included) and that the target's validator accepts
// it; a config that needs nothing comes back byte for byte; the source release inferred; and
// the errors it throws for input that is not a config.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "zeroforge/migrate.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;
using Located = std::pair<std::string, std::string>;  // code, pointer

struct Case {
  const char* name;
  const char* input;
  const char* from;  // "" = inferred
  const char* to;
  bool drop_unknown;
  const char* want_from;
  std::vector<Located> notes;
  std::vector<Located> refusals;
  const char* output;  // the migrated config; nullptr: refused (the input comes back)
};

const std::vector<Case>& cases() {
  static const std::vector<Case> table = {
      {"float for an integer, pydantic 1 to 2",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": 4718592.5}})",
       "0.14.5",
       "0.15.0",
       false,
       "0.14.5",
       {{"migrate.integer", "/zero_optimization/stage3_prefetch_bucket_size"}},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": 4718592}})"},
      {"thread_count renamed intra_op_parallelism",
       R"({"train_batch_size": 8, "aio": {"thread_count": 4, "queue_depth": 8}})",
       "0.16.3",
       "0.16.4",
       false,
       "0.16.3",
       {{"migrate.renamed", "/aio/thread_count"}},
       {},
       R"({"train_batch_size": 8, "aio": {"intra_op_parallelism": 4, "queue_depth": 8}})"},
      {"intra_op_parallelism back to thread_count",
       R"({"train_batch_size": 8, "aio": {"intra_op_parallelism": 4}})",
       "0.16.4",
       "0.16.3",
       false,
       "0.16.4",
       {{"migrate.renamed", "/aio/intra_op_parallelism"}},
       {},
       R"({"train_batch_size": 8, "aio": {"thread_count": 4}})"},
      {"seq_parallel_comm_data_type renamed",
       R"({"train_batch_size": 8, "seq_parallel_comm_data_type": "bf16"})",
       "0.16.4",
       "0.16.5",
       false,
       "0.16.4",
       {{"migrate.renamed", "/seq_parallel_comm_data_type"}},
       {},
       R"({"train_batch_size": 8, "seq_parallel_communication_data_type": "bf16"})"},
      {"cpu_offload true is offload_optimizer cpu",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2, "cpu_offload": true, "overlap_comm": true}})",
       "0.19.6",
       "0.19.6",
       false,
       "0.19.6",
       {{"migrate.renamed", "/zero_optimization/cpu_offload"}},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}, "overlap_comm": true}})"},
      {"cpu_offload false is no offload",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2, "cpu_offload": false}})",
       "0.19.6",
       "0.19.6",
       false,
       "0.19.6",
       {{"migrate.renamed", "/zero_optimization/cpu_offload"}},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2}})"},
      {"cpu_offload_param and the fp16 gather spelling",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "cpu_offload_param": true, "cpu_offload_use_pin_memory": true, "stage3_gather_fp16_weights_on_model_save": true}})",
       "0.19.6",
       "0.19.6",
       false,
       "0.19.6",
       {{"migrate.renamed", "/zero_optimization/cpu_offload_param"},
        {"migrate.renamed", "/zero_optimization/cpu_offload_use_pin_memory"},
        {"migrate.renamed", "/zero_optimization/stage3_gather_fp16_weights_on_model_save"}},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}, "stage3_gather_16bit_weights_on_model_save": true}})"},
      {"fp16 loss scaling inside bf16, which becomes strict",
       R"({"train_batch_size": 8, "bf16": {"enabled": true, "loss_scale": 0, "hysteresis": 2}})",
       "0.17.0",
       "0.17.1",
       false,
       "0.17.0",
       {{"migrate.misplaced", "/bf16/loss_scale"},
        {"migrate.misplaced", "/bf16/hysteresis"},
        {"migrate.default", "/bf16/immediate_grad_update"}},
       {},
       R"({"train_batch_size": 8, "bf16": {"enabled": true, "immediate_grad_update": true}})"},
      {"a section the source never read, strict in the target",
       R"({"train_batch_size": 8, "compile": {"disable": false, "backend": "inductor"}})",
       "0.16.5",
       "0.16.6",
       false,
       "0.16.5",
       {{"migrate.misplaced", "/compile/disable"}, {"migrate.misplaced", "/compile/backend"}},
       {},
       R"({"train_batch_size": 8, "compile": {}})"},
      {"a key the target does not know is refused",
       R"({"train_batch_size": 8, "tensor_parallel": {"autotp_size": 2}})",
       "0.19.6",
       "0.16.2",
       false,
       "0.19.6",
       {},
       {{"migrate.unknown-key", "/tensor_parallel"}},
       nullptr},
      {"... and dropped with drop_unknown",
       R"({"train_batch_size": 8, "tensor_parallel": {"autotp_size": 2}})",
       "0.19.6",
       "0.16.2",
       true,
       "0.19.6",
       {{"migrate.dropped", "/tensor_parallel"}, {"migrate.default", "/gradient_clipping"}},
       {},
       R"({"train_batch_size": 8, "gradient_clipping": 1.0})"},
      {"a float an old dict section used as written has no integer",
       R"({"train_batch_size": 8, "fp16": {"enabled": true, "initial_scale_power": 16.5}})",
       "0.16.9",
       "0.17.1",
       false,
       "0.16.9",
       {},
       {{"migrate.no-equivalent", "/fp16/initial_scale_power"}},
       nullptr},
      {"both spellings with different values",
       R"({"train_batch_size": 8, "aio": {"thread_count": 4, "intra_op_parallelism": 2}})",
       "0.16.3",
       "0.16.4",
       false,
       "0.16.3",
       {},
       {{"migrate.conflict", "/aio/thread_count"}},
       nullptr},
      {"a default that changed is written out",
       R"({"train_batch_size": 8})",
       "0.19.2",
       "0.19.3",
       false,
       "0.19.2",
       {{"migrate.default", "/gradient_clipping"}},
       {},
       R"({"train_batch_size": 8, "gradient_clipping": 0.0})"},
      {"... but not where the key has no effect in the target",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "none"}}})",
       "0.19.4",
       "0.19.5",
       false,
       "0.19.4",
       {},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "none"}}})"},
      {"a check the target adds, with no rewrite",
       R"({"train_batch_size": 8, "gradient_clipping": 1.0, "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 0}}})",
       "0.19.2",
       "0.19.3",
       false,
       "0.19.2",
       {},
       {{"migrate.target-refuses", "/scheduler/params/warmup_num_steps"}},
       nullptr},
      {"inferred: the newest release that reads every key",
       R"({"train_batch_size": 8, "aio": {"thread_count": 4}})",
       "",
       "0.19.6",
       false,
       "0.16.3",
       {{"migrate.renamed", "/aio/thread_count"}, {"migrate.default", "/gradient_clipping"}},
       {},
       R"({"train_batch_size": 8, "aio": {"intra_op_parallelism": 4}, "gradient_clipping": 0.0})"},
      {"inferred: the newest release",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "log_trace_cache_warnings": true}})",
       "",
       "0.16.4",
       false,
       "0.19.6",
       {{"migrate.default", "/gradient_clipping"}},
       {},
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "log_trace_cache_warnings": true}, "gradient_clipping": 1.0})"},
      {"no release accepts it",
       R"({"zero_optimization": {"stage": 2}})",
       "",
       "0.19.6",
       false,
       "",
       {},
       {{"migrate.invalid-source", ""}},
       nullptr},
      {"--from refuses it",
       R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, "log_trace_cache_warnings": true}})",
       "0.16.2",
       "0.19.6",
       false,
       "0.16.2",
       {},
       {{"migrate.invalid-source", "/zero_optimization/log_trace_cache_warnings"}},
       nullptr},
  };
  return table;
}

std::vector<Located> located(const std::vector<MigrationNote>& notes) {
  std::vector<Located> out;
  for (const auto& n : notes) out.emplace_back(n.code, n.pointer);
  return out;
}

std::vector<Located> located(const std::vector<Diagnostic>& refusals) {
  std::vector<Located> out;
  for (const auto& d : refusals) out.emplace_back(d.code, d.json_pointer);
  return out;
}

TEST(MigrateConfigTest, EachRewriteAndRefusal) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    MigrateOptions options;
    options.to = c.to;
    options.from = c.from;
    options.drop_unknown = c.drop_unknown;
    const ConfigMigration m = migrate_config(c.input, "ds.json", options);
    EXPECT_EQ(m.from, c.want_from);
    EXPECT_EQ(m.inferred, std::string(c.from).empty());
    EXPECT_EQ(located(m.notes), c.notes);
    EXPECT_EQ(located(m.refusals), c.refusals);
    for (const auto& d : m.refusals) {
      EXPECT_EQ(d.where.file, "ds.json");
      EXPECT_EQ(d.severity, Severity::Error);
    }
    if (c.output == nullptr) {
      EXPECT_EQ(m.text, c.input) << "refused: the input comes back";
      continue;
    }
    EXPECT_EQ(m.config.dump(), Json::parse(c.output).dump());
    EXPECT_EQ(Json::parse(m.text).dump(), m.config.dump());
    ValidateOptions at_target;
    at_target.deepspeed_version = c.to;
    EXPECT_FALSE(has_errors(validate_config(m.config, at_target, "ds.json")));
    if (c.notes.empty()) {
      EXPECT_EQ(m.text, c.input) << "nothing to change: byte for byte";
    }
  }
}

TEST(MigrateConfigTest, AConfigThatNeedsNothingComesBackByteForByte) {
  const std::string text = "{ \"train_batch_size\" : 8 ,\n\t\"steps_per_print\": 1e3 }  \n";
  MigrateOptions options;
  options.to = "0.19.6";
  const ConfigMigration m = migrate_config(text, "ds.json", options);
  EXPECT_TRUE(m.refusals.empty());
  EXPECT_FALSE(m.changed());
  EXPECT_EQ(m.text, text);
}

TEST(MigrateConfigTest, NotesAndRefusalsSayWhatAndWhy) {
  MigrateOptions options;
  options.to = "0.16.4";
  options.from = "0.16.3";
  ConfigMigration m =
      migrate_config(R"({"train_batch_size": 8, "aio": {"thread_count": 4}})", "ds.json", options);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_EQ(format_migration_note(m.notes[0]),
            "ds.json: /aio/thread_count: note [migrate.renamed]: /aio/thread_count 4 -> "
            "/aio/intra_op_parallelism 4: DeepSpeed 0.16.4 renamed aio.thread_count "
            "intra_op_parallelism (deepspeed/runtime/swap_tensor/constants.py)");
  EXPECT_EQ(migration_note_to_json(m.notes[0]).dump(),
            R"({"file":"ds.json","code":"migrate.renamed","pointer":"/aio/thread_count",)"
            R"("old":{"pointer":"/aio/thread_count","value":4},)"
            R"("new":{"pointer":"/aio/intra_op_parallelism","value":4},)"
            R"("reason":"DeepSpeed 0.16.4 renamed aio.thread_count intra_op_parallelism )"
            R"x((deepspeed/runtime/swap_tensor/constants.py)"})x");

  options.to = "0.16.2";
  options.from = "0.19.6";
  m = migrate_config(R"({"train_batch_size": 8, "tensor_parallel": {"autotp_size": 2}})", "ds.json",
                     options);
  ASSERT_EQ(m.refusals.size(), 1u);
  EXPECT_EQ(to_string(m.refusals[0]),
            "ds.json: /tensor_parallel: error: DeepSpeed 0.16.2 does not know "
            "\"tensor_parallel\" at the top level; it is a key of DeepSpeed 0.16.4 or newer: no "
            "equivalent; remove it, or pass --drop-unknown to drop it");
}

TEST(MigrateConfigTest, ThrowsForInputThatIsNotAConfig) {
  MigrateOptions options;
  options.to = "0.19.6";
  try {
    (void)migrate_config("{\"a\": }", "bad.json", options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Json);
    EXPECT_STREQ(e.what(), "bad.json:1:7: error: expected a JSON value, found '}'");
  }
  try {
    (void)migrate_config("[1]", "list.json", options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Values);
    EXPECT_STREQ(e.what(), "list.json: /: error: a DeepSpeed config is a JSON object, found array");
  }
  options.to = "0.11.0";
  EXPECT_THROW((void)migrate_config("{}", "x.json", options), Error);
  options.to = "";
  EXPECT_THROW((void)migrate_config("{}", "x.json", options), Error);
  options.to = "0.19.6";
  options.from = "0.16";
  EXPECT_THROW((void)migrate_config("{}", "x.json", options), Error);
}

}  // namespace
}  // namespace zf
