// SPDX-License-Identifier: MIT
// The built-in DeepSpeed templates (templates/deepspeed/): every stage x precision x offload
// case in tests/golden/deepspeed/ against its reviewed expected.json, plus the DeepSpeed rules
// re-derived here (batch arithmetic with the world size, stage applicability, precision
// sections, "auto" only in HF mode), the validator's verdict, the HF reference shapes, and the
// refusal of combinations DeepSpeed would silently ignore.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const fs::path kSource = ZF_SOURCE_DIR;

class DeepSpeedTemplatesTest : public ::testing::Test {
 protected:
  DeepSpeedTemplatesTest() : env_({.search_path = {kSource / "templates"}}) {}

  // Template defaults < values, contract-checked, rendered and normalised.
  Json render(const std::string& name, const Json& values, ContractCheck* check = nullptr) const {
    SourcedValues layered;
    for (const auto& layer : load_template_defaults(env_, name).layers) layered.apply(layer);
    layered.apply(Layer{{LayerKind::ValuesFile, "values"}, values, "values.json", "", ""});
    if (check != nullptr) *check = check_deepspeed_values(layered.merged(), &layered);
    return env_.load(name)->render_json(Value::from_json(layered.merged()));
  }

  std::string render_error(const std::string& name, const Json& values) const {
    try {
      render(name, values);
    } catch (const Error& error) {
      return error.message();
    }
    return "";
  }

  Environment env_;
};

bool contains_auto(const Json& json) {
  if (json.is_string()) return json.get<std::string>() == "auto";
  if (!json.is_structured()) return false;
  for (const auto& item : json) {
    if (contains_auto(item)) return true;
  }
  return false;
}

// The rules of deepspeed-notes.md, re-derived from the values rather than read from the output.
void check_rules(const Json& values, const Json& config) {
  int stage = values.at("stage");
  std::string precision = values.value("precision", "bf16");
  std::string opt = values.value("offload_optimizer", "none");
  std::string param = values.value("offload_param", "none");
  if (!values.value("hf_auto", false)) {
    long long world = values.value("gpus_per_node", 1) * values.value("nodes", 1);
    long long micro = values.value("micro_batch_size", 1);
    long long accumulation = values.contains("global_batch_size")
                                 ? values.at("global_batch_size").get<long long>() / (micro * world)
                                 : values.value("gradient_accumulation", 1);
    EXPECT_EQ(config.at("train_batch_size"), micro * accumulation * world);
    EXPECT_EQ(config.at("train_micro_batch_size_per_gpu"), micro);
    EXPECT_EQ(config.at("gradient_accumulation_steps"), accumulation);
    EXPECT_FALSE(contains_auto(config)) << "\"auto\" outside HF mode";
    EXPECT_EQ(config.contains("fp16"), precision == "fp16");
    EXPECT_EQ(config.contains("bf16"), precision == "bf16");
    if (precision == "fp16") {
      const Json& fp16 = config.at("fp16");
      EXPECT_EQ(fp16.at("enabled"), true);
      EXPECT_EQ(fp16.at("loss_scale"), 0) << "dynamic loss scaling";
      for (auto key :
           {"initial_scale_power", "loss_scale_window", "hysteresis", "min_loss_scale"}) {
        EXPECT_TRUE(fp16.contains(key)) << key;
      }
    }
    if (precision == "bf16") {
      EXPECT_EQ(config.at("bf16"), Json({{"enabled", true}}));
    }
  }
  const Json& zero = config.at("zero_optimization");
  EXPECT_EQ(zero.at("stage"), stage);
  if (stage == 0) {
    EXPECT_EQ(zero, Json({{"stage", 0}})) << "no ZeRO knob has an effect at stage 0";
  }
  EXPECT_EQ(zero.contains("offload_optimizer"), opt != "none");
  EXPECT_EQ(zero.contains("offload_param"), param != "none");
  if (zero.contains("offload_param")) {
    EXPECT_EQ(stage, 3);
  }
  for (const auto& [key, value] : zero.items()) {
    bool stage3_only =
        key.starts_with("stage3_") || key == "sub_group_size" || key == "offload_param";
    bool stages12_only = key == "allgather_bucket_size" || key == "round_robin_gradients";
    if (stage3_only) {
      EXPECT_EQ(stage, 3) << key;
    }
    if (stages12_only) {
      EXPECT_TRUE(stage == 1 || stage == 2) << key;
    }
  }
  if (stage == 3) {
    for (auto key : {"stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
                     "stage3_max_live_parameters", "stage3_max_reuse_distance",
                     "stage3_gather_16bit_weights_on_model_save"}) {
      EXPECT_TRUE(zero.contains(key)) << key;
    }
  }
  bool nvme = opt == "nvme" || param == "nvme";
  EXPECT_EQ(config.contains("aio"), nvme);
  for (auto block : {"offload_optimizer", "offload_param"}) {
    if (!zero.contains(block)) continue;
    bool on_nvme = zero.at(block).at("device") == "nvme";
    EXPECT_EQ(zero.at(block).contains("nvme_path"), on_nvme) << block;
  }
}

TEST_F(DeepSpeedTemplatesTest, MatchesEveryGoldenCaseAndDeepSpeedsRules) {
  fs::path golden = kSource / "tests" / "golden" / "deepspeed";
  std::set<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(golden)) cases.insert(entry.path());
  ASSERT_GE(cases.size(), 27u) << "stage x precision x offload";
  bool update = std::getenv("ZF_UPDATE_GOLDEN") != nullptr;
  for (const auto& dir : cases) {
    SCOPED_TRACE(dir.filename().string());
    Json values = parse_json_text(read_file(dir / "values.json"), "values.json");
    ContractCheck check;
    Json config = render("deepspeed/config.json.j2", values, &check);
    ASSERT_TRUE(check.ok()) << check.problems.front().what();
    std::string text = to_json_text(config);
    if (update) write_file_atomically(dir / "expected.json", text);
    EXPECT_EQ(text, read_file(dir / "expected.json"));
    check_rules(values, config);
    ValidateOptions options;
    options.world_size = check.facts.world_size;
    options.hf = check.facts.hf_auto;
    options.deepspeed_version = values.value("deepspeed_version", "");  // as generate does
    for (const auto& finding : validate_config(config, options, dir.filename().string())) {
      // HF mode keeps the reference's WarmupLR "auto" steps: the Trainer needs --warmup_steps
      // (docs/quickstart.md); a pinned release's known regression is about the release, not
      // the template; every other finding is a template bug.
      if (check.facts.hf_auto && finding.rule == "hf-warmup-auto") continue;
      if (finding.rule == "known-regression") continue;
      ADD_FAILURE() << format_finding(finding);
    }
  }
}

TEST_F(DeepSpeedTemplatesTest, NamedTemplatesAreTheBaseAtTheirStage) {
  for (int stage = 0; stage <= 3; ++stage) {
    SCOPED_TRACE(stage);
    std::string name = "deepspeed/zero" + std::to_string(stage) + ".json.j2";
    EXPECT_EQ(render(name, Json::object()), render("deepspeed/config.json.j2", {{"stage", stage}}));
    if (stage != 3) {
      EXPECT_EQ(render_error(name, {{"stage", 3}}),
                "'dict object' has no attribute 'zeroforge refuses these values: " + name +
                    " is ZeRO stage " + std::to_string(stage) + ", got stage=3'");
    }
  }
  // The contract's pins refuse another stage before rendering, where the change was written.
  for (std::string name :
       {"deepspeed/zero0.json.j2", "deepspeed/zero1.json.j2", "deepspeed/zero2.json.j2",
        "deepspeed/zero3.json.j2", "deepspeed/zero3-offload.json.j2"}) {
    SCOPED_TRACE(name);
    TemplatePins pins = load_template_defaults(env_, name).pins;
    ASSERT_EQ(pins.values.size(), 1u);
    int stage = static_cast<int>(pins.values.find("stage")->as_int());
    EXPECT_EQ(name.find("zero" + std::to_string(stage)), std::string("deepspeed/").size());
    EXPECT_TRUE(check_pinned_values(pins, {{"stage", stage}}).empty());
    EXPECT_TRUE(check_pinned_values(pins, {{"precision", "fp16"}}).empty());
    int other = (stage + 1) % 4;
    auto problems = check_pinned_values(pins, {{"stage", other}});
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].json_pointer(), "/stage");
    EXPECT_EQ(problems[0].message(),
              "stage=" + std::to_string(other) + ", but " + name +
                  " pins stage=" + std::to_string(stage) +
                  " (deepspeed/defaults.json /pinned); leave stage unset or render a template "
                  "that does not pin it");
  }
  EXPECT_TRUE(load_template_defaults(env_, "deepspeed/config.json.j2").pins.empty());
  Json offload = render("deepspeed/zero3-offload.json.j2", Json::object());
  EXPECT_EQ(offload.at("zero_optimization").at("offload_param").at("device"), "cpu");
  EXPECT_EQ(offload.at("zero_optimization").at("offload_optimizer").at("device"), "cpu");
  EXPECT_NE(render_error("deepspeed/zero3-offload.json.j2", {{"offload_param", "none"}}), "");
}

TEST_F(DeepSpeedTemplatesTest, TheTemplateItselfRefusesSilentlyIgnoredCombinations) {
  struct Case {
    const char* values;
    const char* message;
  };
  const Case cases[] = {
      {R"({"stage": 2, "offload_param": "cpu"})",
       "offload_param=cpu takes effect only at stage 3 (stage=2)"},
      {R"({"stage": 0, "offload_optimizer": "cpu"})",
       "offload_optimizer=cpu takes effect only at stage 1-3 (stage=0)"},
      {R"({"stage": 1, "offload_optimizer": "nvme", "nvme_path": "/n"})",
       "offload_optimizer=nvme is treated as cpu below stage 3 (stage=1)"},
      {R"({"stage": 3, "offload_param": "nvme"})", "NVMe offload needs nvme_path"},
      {R"({"stage": 3, "zero": {"round_robin_gradients": true}})",
       "zero.round_robin_gradients takes effect only at stage 1-2 (stage=3)"},
      {R"({"global_batch_size": 30, "micro_batch_size": 4})",
       "global_batch_size=30 is not a multiple of micro_batch_size x world_size = 4 x 1"},
      {R"({"stage": 2, "zero": {"quantized_gradients": true}})",
       "zero.quantized_gradients (ZeRO++) takes effect only at stage 3 (stage=2)"},
      {R"({"stage": 3, "zero": {"hpz_partition_size": 4}})",
       "zero.hpz_partition_size is set but zero.hpz is false"},
      {R"({"stage": 3, "gpus_per_node": 8, "zero": {"hpz": true}})",
       "the hpZ partition 8 must be 2 or more, below world_size 8 and divide both it and "
       "gpus_per_node 8"},
      {R"({"stage": 3, "gpus_per_node": 8, "nodes": 3, "world_size": 12,
           "zero": {"quantized_gradients": true}})",
       "zero.quantized_gradients needs whole nodes: world_size 12 is not a multiple of "
       "gpus_per_node 8"},
      {R"({"stage": 2, "zero": {"log_trace_cache_warnings": true}})",
       "zero.log_trace_cache_warnings takes effect only at stage 3 (stage=2)"},
      {R"({"stage": 3, "deepspeed_version": "0.16.2", "zero": {"log_trace_cache_warnings": true}})",
       "zero.log_trace_cache_warnings needs DeepSpeed 0.16.4 or newer; deepspeed_version is "
       "0.16.2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.values);
    EXPECT_EQ(render_error("deepspeed/config.json.j2", Json::parse(c.values)),
              std::string("'dict object' has no attribute 'zeroforge refuses these values: ") +
                  c.message + "'");
  }
}

// Every golden case rendered for every DeepSpeed release zeroforge knows, each judged by its
// own release: a key that release does not read (refused in a strict section, ignored
// elsewhere) or any other finding is a template bug. A new release in the schema data is
// covered without a change here.
TEST_F(DeepSpeedTemplatesTest, WritesOnlyKeysTheReleaseReads) {
  fs::path golden = kSource / "tests" / "golden" / "deepspeed";
  std::vector<Json> cases;
  for (const auto& entry : fs::directory_iterator(golden)) {
    cases.push_back(parse_json_text(read_file(entry.path() / "values.json"), "values.json"));
  }
  for (const std::string& version : deepspeed_versions()) {
    for (Json values : cases) {
      SCOPED_TRACE(version + " " + values.dump());
      const bool trace =
          values.contains("zero") && values.at("zero").value("log_trace_cache_warnings", false);
      if (trace && !deepspeed_has_key("/zero_optimization/log_trace_cache_warnings", version))
        continue;  // refused before rendering (ReleaseFeaturesAreRefusedBeforeRendering)
      values["deepspeed_version"] = version;
      ContractCheck check;
      Json config = render("deepspeed/config.json.j2", values, &check);
      ASSERT_TRUE(check.ok()) << check.problems.front().what();
      ValidateOptions options;
      options.world_size = check.facts.world_size;
      options.hf = check.facts.hf_auto;
      options.deepspeed_version = version;
      for (const auto& finding : validate_config(config, options, "config.json")) {
        if (check.facts.hf_auto && finding.rule == "hf-warmup-auto") continue;
        if (finding.rule == "known-regression") continue;  // the release's, not the template's
        ADD_FAILURE() << format_finding(finding);
      }
    }
  }
}

TEST_F(DeepSpeedTemplatesTest, AioNamesItsThreadsAsTheReleaseDoes) {
  // DeepSpeed 0.16.4 renamed aio.thread_count to intra_op_parallelism (swap_tensor/constants.py).
  const Json values = {{"stage", 3},
                       {"offload_param", "nvme"},
                       {"nvme_path", "/local_nvme"},
                       {"aio", {{"intra_op_parallelism", 4}}}};
  struct Case {
    const char* version;  // "" = the default, the newest
    const char* key;
  };
  for (const Case& c : {Case{"0.12.0", "thread_count"}, Case{"0.16.3", "thread_count"},
                        Case{"0.16.4", "intra_op_parallelism"}, Case{"", "intra_op_parallelism"}}) {
    SCOPED_TRACE(c.version);
    Json asked = values;
    if (*c.version != '\0') asked["deepspeed_version"] = c.version;
    const Json aio = render("deepspeed/config.json.j2", asked).at("aio");
    EXPECT_EQ(aio.at(c.key), 4);
    EXPECT_EQ(aio.size(), 5u) << aio.dump();
  }
}

TEST_F(DeepSpeedTemplatesTest, ReleaseFeaturesAreRefusedBeforeRendering) {
  struct Case {
    const char* values;
    const char* pointer;
    const char* message;  // "" = accepted
  };
  const Case cases[] = {
      {R"({"stage": 3, "deepspeed_version": "0.16.2", "zero": {"log_trace_cache_warnings": true}})",
       "/zero/log_trace_cache_warnings",
       "zero.log_trace_cache_warnings needs DeepSpeed 0.16.4 or newer; deepspeed_version is "
       "0.16.2"},
      {R"({"stage": 3, "deepspeed_version": "0.16.4", "zero": {"log_trace_cache_warnings": true}})",
       "", ""},
      {R"({"stage": 3, "zero": {"log_trace_cache_warnings": true}})", "", ""},  // the newest
      {R"({"stage": 3, "deepspeed_version": "0.12.0", "zero": {"log_trace_cache_warnings": false}})",
       "", ""},  // not asked for
      {R"({"stage": 2, "zero": {"log_trace_cache_warnings": true}})",
       "/zero/log_trace_cache_warnings",
       "zero.log_trace_cache_warnings takes effect only at ZeRO stage 3 (its parameter "
       "coordinator keeps the trace cache), but stage=2 (values file values.json); DeepSpeed would "
       "silently ignore it"},
      {R"({"deepspeed_version": "0.11.2"})", "/deepspeed_version",
       "deepspeed_version: unknown DeepSpeed version \"0.11.2\"; zeroforge knows 0.12.0-0.12.6, "
       "0.13.0-0.13.5, 0.14.0-0.14.5, 0.15.0-0.15.4, 0.16.0-0.16.9, 0.17.0-0.17.6, "
       "0.18.0-0.18.9, 0.19.0-0.19.6"},
      {R"({"deepspeed_version": 0.16})", "/deepspeed_version",
       "deepspeed_version must be a DeepSpeed release such as \"0.19.6\" (a string) or null for "
       "the newest, got 0.16"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.values);
    SourcedValues layered;
    for (const auto& layer : load_template_defaults(env_, "deepspeed/config.json.j2").layers)
      layered.apply(layer);
    layered.apply(Layer{
        {LayerKind::ValuesFile, "values.json"}, Json::parse(c.values), "values.json", "", ""});
    ContractCheck check = check_deepspeed_values(layered.merged(), &layered);
    if (*c.message == '\0') {
      EXPECT_TRUE(check.ok()) << check.problems.front().what();
      continue;
    }
    ASSERT_EQ(check.problems.size(), 1u) << check.problems.front().what();
    EXPECT_EQ(check.problems[0].json_pointer(), c.pointer);
    EXPECT_EQ(check.problems[0].message(), c.message);
  }
}

// A null knob leaves its key to DeepSpeed's default; `batch_keys` and a list in `hf_auto` choose
// keys one by one; `extra` is merged into the objects the template writes (docs/values.md).
TEST_F(DeepSpeedTemplatesTest, NullKnobsAreLeftOutAndExtraIsMergedIntoWhatTheTemplateWrites) {
  const Json nothing = Json::parse(R"({"stage": null, "batch_keys": [], "gradient_clipping": null,
      "steps_per_print": null, "wall_clock_breakdown": null, "optimizer": null,
      "scheduler": null, "precision": "fp32"})");
  struct Case {
    const char* name;
    const char* values;  // over `nothing`
    const char* expected;
  };
  const Case cases[] = {
      {"every key left out", "{}", "{}"},
      {"a micro batch, stage 0 and passthrough",
       R"({"stage": 0, "batch_keys": ["train_micro_batch_size_per_gpu"], "micro_batch_size": 4,
           "precision": "bf16",
           "extra": {"zero_optimization": {"allgather_partitions": true},
                     "zero_allow_untested_optimizer": true, "fp16": {"enabled": false},
                     "bf16": {"immediate_grad_update": true}}})",
       R"({"train_micro_batch_size_per_gpu": 4, "fp16": {"enabled": false},
           "bf16": {"enabled": true, "immediate_grad_update": true},
           "zero_optimization": {"stage": 0, "allgather_partitions": true},
           "zero_allow_untested_optimizer": true})"},
      {"some keys left to the Trainer (LLaMA-Factory's ds_z3_fp8_config shape)",
       R"({"stage": 3, "offload_optimizer": "cpu", "precision": "bf16",
           "batch_keys": ["train_micro_batch_size_per_gpu", "gradient_accumulation_steps"],
           "hf_auto": ["train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                       "gradient_clipping", "bf16.enabled"],
           "offload": {"pin_memory": false},
           "zero": {"overlap_comm": false, "reduce_scatter": null, "reduce_bucket_size": 12845056,
                    "stage3_prefetch_bucket_size": 11560550,
                    "stage3_param_persistence_threshold": 35840},
           "extra": {"zero_optimization": {"offload_optimizer": {"fast_init": true}}}})",
       R"({"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
           "gradient_clipping": "auto", "bf16": {"enabled": "auto"},
           "zero_optimization": {"stage": 3,
             "offload_optimizer": {"device": "cpu", "pin_memory": false, "fast_init": true},
             "overlap_comm": false, "contiguous_gradients": true, "sub_group_size": 1000000000,
             "stage3_prefetch_bucket_size": 11560550, "stage3_param_persistence_threshold": 35840,
             "stage3_max_live_parameters": 1000000000, "stage3_max_reuse_distance": 1000000000,
             "stage3_gather_16bit_weights_on_model_save": true, "reduce_bucket_size": 12845056}})"},
      {"fp16 with a static loss scale, optimizer parameters left out and added",
       R"({"stage": 1, "precision": "fp16", "batch_keys": ["train_batch_size"],
           "micro_batch_size": 2, "gradient_accumulation": 8,
           "fp16": {"loss_scale": 128, "hysteresis": null, "loss_scale_window": null,
                    "initial_scale_power": null, "min_loss_scale": null},
           "optimizer": {"type": "Adam", "lr": 0.001, "betas": null, "eps": null,
                         "weight_decay": null},
           "zero": {"overlap_comm": null, "contiguous_gradients": null, "reduce_scatter": null,
                    "allgather_bucket_size": null, "reduce_bucket_size": null},
           "extra": {"optimizer": {"params": {"torch_adam": true}, "legacy_fusion": false},
                     "fp16": {"auto_cast": false}}})",
       R"({"train_batch_size": 16, "fp16": {"enabled": true, "loss_scale": 128, "auto_cast": false},
           "optimizer": {"type": "Adam", "params": {"lr": 0.001, "torch_adam": true},
                         "legacy_fusion": false},
           "zero_optimization": {"stage": 1}})"},
      {"NVMe without an aio block, checkpointing without profile, a wandb entity",
       R"({"stage": 3, "offload_param": "nvme", "nvme_path": "/nvme", "aio": null,
           "activation_checkpointing": {"partition_activations": true, "profile": null},
           "monitor": {"wandb": {"project": "p"}},
           "zero": {"overlap_comm": null, "contiguous_gradients": null, "reduce_scatter": null,
                    "sub_group_size": null, "stage3_prefetch_bucket_size": null,
                    "stage3_param_persistence_threshold": null,
                    "stage3_max_live_parameters": null, "stage3_max_reuse_distance": null,
                    "stage3_gather_16bit_weights_on_model_save": null,
                    "reduce_bucket_size": null},
           "offload": {"param_buffer_size": null, "param_max_in_cpu": null},
           "extra": {"aio": {"block_size": 262144}, "wandb": {"entity": "e"},
                     "activation_checkpointing": {"cpu_checkpointing": false}}})",
       R"({"zero_optimization": {"stage": 3,
             "offload_param": {"device": "nvme", "nvme_path": "/nvme", "buffer_count": 5,
                               "pin_memory": true}},
           "aio": {"block_size": 262144},
           "activation_checkpointing": {"partition_activations": true, "cpu_checkpointing": false},
           "wandb": {"enabled": true, "project": "p", "entity": "e"}})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Json values = nothing;
    const Json patch = Json::parse(c.values);
    for (const auto& [key, value] : patch.items()) values[key] = value;
    ContractCheck check;
    Json config = render("deepspeed/config.json.j2", values, &check);
    EXPECT_TRUE(check.ok()) << check.problems.front().what();
    EXPECT_EQ(to_json_text(config), to_json_text(Json::parse(c.expected)));
  }
}

TEST_F(DeepSpeedTemplatesTest, ExtraMayNotContradictWhatTheTemplateWrites) {
  struct Case {
    const char* values;
    const char* message;
  };
  const Case cases[] = {
      {R"({"extra": {"zero_optimization": {"stage": 3}}})",
       "extra.zero_optimization.stage would replace a key the template writes from its values: "
       "set that value instead (docs/values.md), or leave the key out of extra"},
      {R"({"extra": {"train_batch_size": 64}})",
       "extra.train_batch_size would replace a key the template writes from its values: set that "
       "value instead (docs/values.md), or leave the key out of extra"},
      {R"({"precision": "fp16", "extra": {"fp16": {"loss_scale": 128}}})",
       "extra.fp16.loss_scale would replace a key the template writes from its values: set that "
       "value instead (docs/values.md), or leave the key out of extra"},
      {R"({"offload_optimizer": "cpu", "extra": {"zero_optimization": {"offload_optimizer": 1}}})",
       "extra.zero_optimization.offload_optimizer must be an object: the template writes "
       "zero_optimization.offload_optimizer as one, got 1"},
      {R"({"extra": {"zero_optimization": true}})",
       "extra.zero_optimization must be an object: the template writes zero_optimization as one, "
       "got true"},
      {R"({"extra": [1]})", "extra must be an object (keys merged into the config), got [1]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.values);
    EXPECT_EQ(render_error("deepspeed/config.json.j2", Json::parse(c.values)),
              std::string("'dict object' has no attribute 'zeroforge refuses these values: ") +
                  c.message + "'");
  }
  // What the template does not write at that stage may come from extra.
  Json config =
      render("deepspeed/config.json.j2", Json::parse(R"({"stage": 3, "extra": {"zero_optimization":
                                       {"allgather_bucket_size": 200000000}}})"));
  EXPECT_EQ(config.at("zero_optimization").at("allgather_bucket_size"), 200000000);
}

// Key sets of two JSON objects, recursively, as pointers.
void collect_keys(const Json& json, const std::string& pointer, std::set<std::string>& out) {
  if (!json.is_object()) return;
  for (const auto& [key, value] : json.items()) {
    out.insert(pointer + "/" + key);
    collect_keys(value, pointer + "/" + key, out);
  }
}

void collect_autos(const Json& json, const std::string& pointer, std::set<std::string>& out) {
  if (json.is_string() && json.get<std::string>() == "auto") out.insert(pointer);
  if (!json.is_object()) return;
  for (const auto& [key, value] : json.items()) collect_autos(value, pointer + "/" + key, out);
}

TEST_F(DeepSpeedTemplatesTest, HfModeHasTheShapeOfTheTransformersReferenceConfigs) {
  struct Case {
    const char* reference;
    Json values;
    std::set<std::string> only_in_reference;  // with the reason below
    std::set<std::string> only_in_ours;
  };
  const Case cases[] = {
      // allgather_partitions is read nowhere since DeepSpeed 0.5.9.
      {"ds_config_zero2.json",
       {{"stage", 2}, {"offload_optimizer", "cpu"}, {"hf_auto", true}},
       {"/zero_optimization/allgather_partitions"},
       {}},
      // The reference spells the deprecated stage3_gather_fp16_weights_on_model_save and has no
      // bf16 section; we write the current spelling, reduce_scatter, and bf16 "auto" (the
      // Trainer fills both precision sections from --fp16/--bf16).
      {"ds_config_zero3.json",
       {{"stage", 3}, {"offload_optimizer", "cpu"}, {"offload_param", "cpu"}, {"hf_auto", true}},
       {"/zero_optimization/stage3_gather_fp16_weights_on_model_save"},
       {"/zero_optimization/stage3_gather_16bit_weights_on_model_save",
        "/zero_optimization/reduce_scatter", "/bf16", "/bf16/enabled"}},
  };
  const fs::path peer_dir = kSource / "tests" / "data" / "peer-configs";
  for (const auto& c : cases) {
    SCOPED_TRACE(c.reference);
    Json reference = Json::parse(read_file(peer_dir / "transformers" / c.reference));
    Json ours = render("deepspeed/config.json.j2", c.values);
    std::set<std::string> theirs_keys, our_keys;
    collect_keys(reference, "", theirs_keys);
    collect_keys(ours, "", our_keys);
    std::set<std::string> missing, extra;
    for (const auto& k : theirs_keys) {
      if (!our_keys.contains(k)) missing.insert(k);
    }
    for (const auto& k : our_keys) {
      if (!theirs_keys.contains(k)) extra.insert(k);
    }
    EXPECT_EQ(missing, c.only_in_reference);
    EXPECT_EQ(extra, c.only_in_ours);
    std::set<std::string> their_autos, our_autos;
    collect_autos(reference, "", their_autos);
    collect_autos(ours, "", our_autos);
    for (const auto& pointer : their_autos) EXPECT_TRUE(our_autos.contains(pointer)) << pointer;
    ValidateOptions hf;
    hf.hf = true;
    hf.world_size = 1;
    for (const auto& finding : validate_config(ours, hf, c.reference)) {
      if (finding.severity == Severity::Error) ADD_FAILURE() << format_finding(finding);
    }
  }
}

}  // namespace
}  // namespace zf
