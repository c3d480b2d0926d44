// SPDX-License-Identifier: MIT
// The memory plugin's estimate record (plugins/memory/estimate_hook.cpp, and auto-fit's own
// record in auto_fit_hook.cpp) through the real ABI: what `zeroforge estimate --format json`
// prints for the config's stage, offload, micro batch and tier, recorded without changing a
// value, and published with the same figures as the SDK's memory estimate record, which the
// report reads; configs it cannot estimate; a bad option.
#include <gtest/gtest.h>

#include <cmath>

#include "report/estimate_record.hpp"
#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

// A PluginHost with the memory plugin loaded with `estimate` as its option.
std::unique_ptr<PluginHost> host_with(const Json& estimate) {
  auto host = std::make_unique<PluginHost>(PluginHostOptions{.use_environment = false});
  host->load(
      {PluginRequest{ZF_MEMORY_PLUGIN, {{"data_dir", ZF_SOURCE_DIR}, {"estimate", estimate}}}});
  return host;
}

// A medium-tier member of a family without auto-fit.
LayeredValues member(const Json& values) {
  LayeredValues out;
  out.apply({LayerKind::TemplateDefault, "deepspeed/config.json.j2"},
            {{"stage", 2},
             {"precision", "bf16"},
             {"offload_optimizer", "none"},
             {"offload_param", "none"},
             {"micro_batch_size", 1},
             {"world_size", nullptr},
             {"zero", {{"reduce_bucket_size", 5e8}, {"allgather_bucket_size", 5e8}}}});
  out.apply({LayerKind::Tier, "presets/tiers/medium.json"}, {{"gpus_per_node", 8},
                                                             {"nodes", 1},
                                                             {"gpu_memory_gib", 79.64},
                                                             {"cpu_memory_gib", 1024},
                                                             {"micro_batch_size", 4}});
  out.apply({LayerKind::Variant, "fam.json /axes/stage/0"}, values);
  return out;
}

const Json context = {
    {"template", "deepspeed/config.json.j2"}, {"family", "fam"}, {"tier", "medium"}};

// What `zeroforge estimate --format json` prints, less what only the command has: its
// suggestion, whether Ψ was derived, the tier it read (--tier) and the NVMe it may suggest.
Json estimate_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"estimate", "--format", "json"};
  all.insert(all.end(), args.begin(), args.end());
  auto r = test::run_cli(all);
  EXPECT_NE(r.exit_code, 2) << r.err;
  Json out = Json::parse(r.out);
  out.erase("suggestion");
  out["model"].erase("params_derived");
  EXPECT_TRUE(out.at("tier").is_null()) << "no --tier here";
  out.erase("tier");
  EXPECT_TRUE(out["inputs"].at("nvme_path").is_null()) << "no --nvme-path here";
  out["inputs"].erase("nvme_path");
  // The step time is the command's (the manifest's record does not carry it yet, #39).
  EXPECT_TRUE(out.contains("step"));
  out.erase("step");
  out["inputs"].erase("gradient_accumulation_steps");
  return out;
}

// The memory estimate record the plugin published beside its own `estimate`, as the report
// reads it (engine/src/report/estimate_record.cpp): the same figures, part by part.
report::Config published(const Json& memory) {
  report::Config config;
  read_estimate_record({{"plugins", {{"memory", memory}}}}, "/configs/0", config);
  EXPECT_TRUE(config.memory);
  if (!config.memory) return config;
  const Json& e = memory.at("estimate");
  const report::Memory& m = *config.memory;
  const bool step = e["optimizer_step"]["is_peak"].get<bool>();
  std::vector<std::pair<std::string, std::int64_t>> parts;
  for (const report::Segment& s : m.gpu) parts.emplace_back(s.key, s.bytes);
  std::vector<std::pair<std::string, std::int64_t>> expected = {
      {"model-states", e["model_states"]["gpu_bytes"]},
      {"working-set", e["stage3_working_set"]["gpu_bytes"]},
      {"buffers", e["comm_buffers"]["gpu_bytes"]}};
  if (step) {
    expected.emplace_back("optimizer-step", e["optimizer_step"]["gpu_bytes"]);
    expected.emplace_back("kept-activations", e["optimizer_step"]["unreused_activation_bytes"]);
  } else {
    expected.emplace_back("activations", e["activations"]["gpu_bytes"]);
    expected.emplace_back("headroom", e["headroom"]["gpu_bytes"]);
  }
  expected.emplace_back("cuda-context", e["cuda_context"]["gpu_bytes"]);
  EXPECT_EQ(parts, expected);
  EXPECT_EQ(m.step_is_peak, step);
  EXPECT_EQ(m.publisher, "memory");
  EXPECT_EQ(m.command, "zeroforge estimate");
  EXPECT_EQ(m.model, e["model"]["name"]);
  EXPECT_EQ(m.gpu_total, e["total"]["gpu_bytes"]);
  EXPECT_EQ(m.gpu_capacity, e["capacity"]["gpu_bytes"]);
  EXPECT_EQ(m.gpu_usable, e["capacity"]["gpu_usable_bytes"]);
  EXPECT_EQ(m.gpu_margin, e["inputs"]["gpu_memory_margin"]);
  EXPECT_EQ(m.cpu_total, e["total"]["cpu_bytes"]);
  EXPECT_EQ(m.cpu_capacity, e["capacity"]["cpu_bytes"]);
  EXPECT_EQ(m.nvme, e["model_states"]["nvme_bytes"]);
  EXPECT_EQ(m.gpus_per_node, e["inputs"]["gpus_per_node"]);
  EXPECT_EQ(m.nodes, e["inputs"]["nodes"]);
  EXPECT_EQ(m.assumptions,
            "sequence " + e["model"]["seq_len"].dump() + ", activation checkpointing " +
                e["inputs"]["activation_checkpointing"].get<std::string>() + ", " +
                e["inputs"]["attention"].get<std::string>() + " attention, " +
                e["inputs"]["loss"].get<std::string>() + " loss, fragmentation headroom " +
                std::to_string(std::lround(e["inputs"]["headroom"].get<double>() * 100)) +
                "% of activations");
  return config;
}

TEST(EstimateHookTest, RecordsWhatEstimatePrintsForTheConfigAsItStandsAndChangesNoValue) {
  auto host = host_with({{"model", "llama-2-7b"}, {"activation_checkpointing", "full"}});
  struct Case {
    Json values;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases = {
      {{{"stage", 1}}, {"--stage", "1"}},
      {{{"stage", 3}, {"offload_optimizer", "cpu"}, {"offload_param", "cpu"}},
       {"--stage", "3", "--offload-optimizer", "cpu", "--offload-param", "cpu"}},
      {{{"stage", 2}, {"precision", "fp16"}, {"micro_batch_size", 9}},
       {"--stage", "2", "--precision", "fp16", "--micro-batch-size", "9"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.values.dump());
    LayeredValues values = member(c.values);
    const Json before = values.merged();
    const std::size_t layers = values.layers().size();
    ValuesHookResult result = host->run_values_hooks(values, context);
    EXPECT_TRUE(result.findings.empty());
    EXPECT_EQ(values.merged(), before);
    EXPECT_EQ(values.layers().size(), layers) << "no plugin layer";
    std::vector<std::string> args = {"--model",
                                     "llama-2-7b",
                                     "--activation-checkpointing",
                                     "full",
                                     "--gpus-per-node",
                                     "8",
                                     "--nodes",
                                     "1",
                                     "--gpu-memory-gib",
                                     "79.64",
                                     "--cpu-memory-gib",
                                     "1024",
                                     "--micro-batch-size",
                                     "4"};
    args.insert(args.end(), c.args.begin(), c.args.end());  // a later flag wins
    EXPECT_EQ(result.manifest.at("memory").at("estimate"), estimate_cli(args));
    EXPECT_FALSE(published(result.manifest.at("memory")).auto_fit);
  }
}

TEST(EstimateHookTest, AStringOptionNamesTheModel) {
  auto host = host_with("gpt2-xl");
  LayeredValues values = member({{"stage", 2}});
  ValuesHookResult result = host->run_values_hooks(values, context);
  EXPECT_EQ(result.manifest.at("memory").at("estimate"),
            estimate_cli({"--model", "gpt2-xl", "--stage", "2", "--gpus-per-node", "8",
                          "--gpu-memory-gib", "79.64", "--cpu-memory-gib", "1024",
                          "--micro-batch-size", "4"}));
}

TEST(EstimateHookTest, ValuesItCannotEstimateAreRecordedAsSkippedForTheContractToReport) {
  auto host = host_with("llama-2-7b");
  struct Case {
    Json values;
    std::string skipped;
  };
  const std::vector<Case> cases = {
      {{{"stage", "two"}},
       "/stage: expected a stage 0-3, got \"two\" (set by variant fam.json /axes/stage/0)"},
      {{{"stage", 2}, {"offload_param", "cpu"}}, "offload_param takes effect only at stage 3"},
      // Sizes near the 64-bit limit: checked products, never wrapped ones (issue 22).
      {{{"stage", 2}, {"gpus_per_node", 4611686018427387904LL}, {"nodes", 2}},
       "/nodes: gpus_per_node x nodes = 4611686018427387904 x 2 is beyond 64-bit integers "
       "(9223372036854775807) (set by variant fam.json /axes/stage/0)"},
      {{{"stage", 2}, {"gpus_per_node", 9223372036854775807LL}},
       "gpus_per_node=9223372036854775807 x nodes=1 is beyond any cluster this estimator "
       "describes (at most 1000000 GPUs)"},
      {{{"stage", 2}, {"micro_batch_size", 9223372036854775807LL}},
       "the activations of this shape and micro batch exceed 8 EiB; check the sizes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.values.dump());
    LayeredValues values = member(c.values);
    ValuesHookResult result = host->run_values_hooks(values, context);
    EXPECT_EQ(result.manifest.at("memory").at("estimate"), Json({{"skipped", c.skipped}}));
    EXPECT_EQ(result.manifest.at("memory").at("memory_estimate"),
              Json({{"schema_version", 1}, {"skipped", c.skipped}}));
  }
}

TEST(EstimateHookTest, ABadOptionIsAnErrorNamingIt) {
  struct Case {
    Json option;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"model", "llama-9b"}}, "option estimate.model: unknown model preset 'llama-9b'"},
      {{{"seq_len", 4}},
       "option estimate.model: the estimate needs the model: a preset name "
       "(llama-2-7b) or its shape"},
      {{{"model", "gpt2"}, {"stages", {1}}},
       "option estimate.stages: unknown key 'stages' (expected model, seq_len, "
       "activation_checkpointing, attention, loss, headroom, cuda_context_gib)"},
      {{{"model", "gpt2"}, {"activation_checkpointing", "some"}},
       "option estimate.activation_checkpointing: expected none, selective or full, got \"some\""},
      {{{"model", {{"layers", 2}}}}, "option estimate.model."},
      // A shape's sizes near the 64-bit limit are refused, never multiplied (issue 22).
      {{{"model",
         {{"layers", 2},
          {"hidden", 64},
          {"heads", 1},
          {"vocab", 10},
          {"seq_len", 10},
          {"positions", 9223372036854775807LL}}}},
       "option estimate.model: positions=9223372036854775807 is beyond any model this estimator "
       "describes (max 10000000)"},
      {{{"model",
         {{"layers", 10000000},
          {"hidden", 2000000},
          {"heads", 1},
          {"vocab", 10},
          {"seq_len", 10}}}},
       "option estimate.model: the parameter count of layers=10000000 x 48000026000000 per layer "
       "is beyond 64-bit integers (9223372036854775807); check the sizes"},
      {42, "option estimate: expected a model preset name or an object with \"model\", got 42"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.option.dump());
    auto host = host_with(c.option);
    LayeredValues values = member({{"stage", 2}});
    try {
      host->run_values_hooks(values, context);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("values hook failed: " + c.message), std::string::npos)
          << e.what();
    }
  }
}

TEST(EstimateHookTest, AutoFitRecordsItsChoiceAsEstimatePrintsItAndEachRejectedRungsNeed) {
  auto host = host_with("gpt2");  // auto-fit's own model wins over the option
  LayeredValues values;
  values.apply({LayerKind::TemplateDefault, "deepspeed/config.json.j2"},
               {{"stage", 2},
                {"precision", "bf16"},
                {"offload_optimizer", "none"},
                {"offload_param", "none"},
                {"micro_batch_size", 1},
                {"global_batch_size", nullptr},
                {"gradient_accumulation", nullptr},
                {"world_size", nullptr}});
  values.apply(
      {LayerKind::Tier, "presets/tiers/small.json"},
      {{"gpus_per_node", 1}, {"nodes", 1}, {"gpu_memory_gib", 23.98}, {"cpu_memory_gib", 128}});
  values.apply({LayerKind::Family, "fam.json"},
               {{"global_batch_size", 512},
                {"auto_fit", {{"model", "llama-2-7b"}, {"activation_checkpointing", "full"}}}});
  ValuesHookResult result = host->run_values_hooks(values, context);
  ASSERT_TRUE(result.findings.empty());
  const Json& memory = result.manifest.at("memory");
  const Json& note = memory.at("auto_fit");
  const Json& merged = values.merged();
  auto rung_args = [](const Json& rung) {
    return std::vector<std::string>{"--model",
                                    "llama-2-7b",
                                    "--activation-checkpointing",
                                    "full",
                                    "--gpu-memory-gib",
                                    "23.98",
                                    "--cpu-memory-gib",
                                    "128",
                                    "--stage",
                                    rung["stage"].dump(),
                                    "--offload-optimizer",
                                    rung["offload_optimizer"],
                                    "--offload-param",
                                    rung["offload_param"],
                                    "--micro-batch-size",
                                    rung["micro_batch_size"].dump()};
  };
  EXPECT_EQ(memory.at("estimate"), estimate_cli(rung_args(note)));
  EXPECT_EQ(note["stage"], merged["stage"]);
  EXPECT_EQ(note["micro_batch_size"], merged["micro_batch_size"]);
  ASSERT_FALSE(note["escalated"].empty());
  for (const auto& rung : note["escalated"]) {
    SCOPED_TRACE(rung.dump());
    const Json e = estimate_cli(rung_args(rung));
    EXPECT_EQ(rung["gpu_bytes"], e["total"]["gpu_bytes"]);
    EXPECT_EQ(rung["gpu_capacity_bytes"], e["capacity"]["gpu_bytes"]);
    EXPECT_EQ(rung["cpu_bytes"], e["total"]["cpu_bytes"]);
    EXPECT_EQ(rung["cpu_capacity_bytes"], e["capacity"]["cpu_bytes"]);
    EXPECT_EQ(e["fits"], false);
  }
  // The report's trail: the same rungs, in the same order, with the same figures.
  const report::Config config = published(memory);
  ASSERT_TRUE(config.auto_fit);
  const report::AutoFit& fit = *config.auto_fit;
  EXPECT_EQ(fit.chosen, "ZeRO-" + note["stage"].dump() + ", optimizer on " +
                            (note["offload_optimizer"] == "cpu" ? "CPU" : "GPU") +
                            ", parameters on GPU");
  EXPECT_EQ(fit.micro_batch_size, note["micro_batch_size"]);
  EXPECT_EQ(fit.largest_fitting_micro_batch_size, note["largest_fitting_micro_batch_size"]);
  EXPECT_EQ(fit.limited_by, note["micro_batch_limited_by"]);
  EXPECT_EQ(fit.pinned, note["pinned"].get<std::vector<std::string>>());
  ASSERT_EQ(fit.escalated.size(), note["escalated"].size());
  for (std::size_t i = 0; i < fit.escalated.size(); ++i) {
    const Json& rung = note["escalated"][i];
    EXPECT_EQ(fit.escalated[i].micro_batch_size, rung["micro_batch_size"]);
    EXPECT_EQ(fit.escalated[i].gpu_bytes, rung["gpu_bytes"]);
    EXPECT_EQ(fit.escalated[i].gpu_usable, rung["gpu_usable_bytes"]);
    EXPECT_EQ(fit.escalated[i].cpu_bytes, rung["cpu_bytes"]);
    EXPECT_EQ(fit.escalated[i].cpu_capacity, rung["cpu_capacity_bytes"]);
    EXPECT_EQ(fit.escalated[i].reason, rung["reason"]);
  }
}

}  // namespace
}  // namespace zf
