// SPDX-License-Identifier: MIT
// The DeepSpeed releases the validator judges by (engine/src/deepspeed/release.cpp): which it
// knows, how an unknown one is refused, whether a release reads a key and since when, and each
// release's own verdicts on keys and rules (spot-checked against DeepSpeed's source of
// 0.12.6, 0.14.5, 0.16.2, 0.16.9 and 0.18.9, with 0.19.6 for contrast).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

TEST(DeepSpeedReleasesTest, KnowsEveryReleaseFrom0120To0196) {
  const auto& versions = deepspeed_versions();
  ASSERT_EQ(versions.size(), 58U);  // 0.12.0-6, 0.13.0-5, 0.14.0-5, 0.15.0-4, 0.16.0-9, 0.17.0-6,
                                    // 0.18.0-9, 0.19.0-6
  EXPECT_EQ(versions.front(), "0.12.0");
  EXPECT_EQ(versions.back(), "0.19.6");
  for (const char* patch : {"0.12.6", "0.14.5", "0.16.2", "0.16.4", "0.16.9", "0.18.9"}) {
    EXPECT_NE(std::find(versions.begin(), versions.end(), patch), versions.end()) << patch;
  }
  // The newest is the one the schema data describes, and the default everywhere.
  EXPECT_EQ(deepspeed_schema_data().at("deepspeed").at("version"), versions.back());
  EXPECT_EQ(ValidateOptions{}.deepspeed_version, "");
}

TEST(DeepSpeedReleasesTest, RefusesAVersionItDoesNotKnowListingTheKnownOnes) {
  struct Case {
    const char* version;
    std::string message;
  };
  // Every release is listed, by minor release; DeepSpeed's patch releases have no gaps.
  const std::string known =
      "zeroforge knows 0.12.0-0.12.6, 0.13.0-0.13.5, 0.14.0-0.14.5, 0.15.0-0.15.4, "
      "0.16.0-0.16.9, 0.17.0-0.17.6, 0.18.0-0.18.9, 0.19.0-0.19.6";
  const Case cases[] = {
      {"0.11.2", "unknown DeepSpeed version \"0.11.2\"; " + known},
      {"0.19.7", "unknown DeepSpeed version \"0.19.7\"; " + known},
      {"0.16", "\"0.16\" is not a DeepSpeed version (X.Y.Z, e.g. 0.19.6); " + known},
      {"v0.16.2", "\"v0.16.2\" is not a DeepSpeed version (X.Y.Z, e.g. 0.19.6); " + known},
      {"0.16.2+cu121",
       "\"0.16.2+cu121\" is not a DeepSpeed version (X.Y.Z, e.g. 0.19.6); " + known},
      {"", "an empty DeepSpeed version; " + known},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.version);
    try {
      check_deepspeed_version(c.version);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(e.message(), c.message);
    }
  }
  EXPECT_NO_THROW(check_deepspeed_version("0.16.2"));
  ValidateOptions options;
  options.deepspeed_version = "0.11.2";
  EXPECT_THROW(validate_config(json::object(), options, "ds.json"), Error);
}

TEST(DeepSpeedReleasesTest, SaysWhetherAReleaseReadsAKeyAndSinceWhen) {
  struct Case {
    const char* pointer;
    const char* version;
    bool has;
    const char* since;  // the first later release that has it, or ""
  };
  const Case cases[] = {
      {"/zero_optimization/log_trace_cache_warnings", "0.16.2", false, "0.16.4"},
      {"/zero_optimization/log_trace_cache_warnings", "0.16.3", false, "0.16.4"},
      {"/zero_optimization/log_trace_cache_warnings", "0.16.4", true, ""},
      {"/zero_optimization/log_trace_cache_warnings", "", true, ""},
      {"/zero_optimization/offload_optimizer/super_offload", "0.17.6", false, "0.18.0"},
      {"/zero_optimization/offload_param/pin_memory", "0.12.0", true, ""},
      {"/zero_optimization/stage3_module_granularity_threshold", "0.15.4", false, "0.16.0"},
      {"/zero_optimization/module_granularity_threshold", "0.16.0", true, ""},  // the field name
      {"/compile/deepcompile", "0.14.0", false, "0.16.6"},    // compile is read, without it
      {"/compile/backend", "0.14.0", true, ""},               // 0.13.2 to 0.14.3
      {"/compile/backend", "0.15.0", false, ""},              // never again
      {"/compile", "0.15.0", false, "0.16.6"},                // not read from 0.14.4 to 0.16.5
      {"/bfloat16/check_grad_overflow", "0.17.1", true, ""},  // through the legacy alias
      {"/aio/thread_count", "0.16.4", false, ""},
      {"/gradient_allreduce_op", "0.19.5", false, "0.19.6"},
      {"/no_such_key", "0.19.6", false, ""},
      {"zero_optimization", "0.19.6", false, ""},  // not a JSON pointer
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.pointer) + " @ " + c.version);
    EXPECT_EQ(deepspeed_has_key(c.pointer, c.version), c.has);
    EXPECT_EQ(deepspeed_key_since(c.pointer, c.version), c.since);
  }
  EXPECT_THROW(deepspeed_has_key("/zero_optimization", "0.11.0"), Error);
}

// What a release does with a key: accepts it, refuses the config (a pydantic section that
// forbids extras), or ignores it silently (a section read with .get, or the top level).
enum class Verdict { Accepted, Refused, Ignored };

const char* verdict_name(Verdict v) {
  return v == Verdict::Accepted ? "accepted" : v == Verdict::Refused ? "refused" : "ignored";
}

// The verdict on the key at `pointer` (or a section above it) of `config` by `version`.
Verdict verdict_of(const json& config, const std::string& pointer, const std::string& version) {
  ValidateOptions options;
  options.deepspeed_version = version;
  Verdict verdict = Verdict::Accepted;
  for (const auto& f : validate_config(config, options, "ds.json")) {
    const bool here = pointer == f.pointer || pointer.starts_with(f.pointer + "/");
    if (!here) continue;
    if (f.rule == "unknown-key") verdict = Verdict::Refused;
    if (f.rule == "ignored-key" && verdict == Verdict::Accepted) verdict = Verdict::Ignored;
  }
  return verdict;
}

// A ZeRO-3 config with CPU optimizer offload and bf16, with `patch` merged in.
json config_with(const json& patch) {
  json config = json::parse(R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}})");
  config.merge_patch(patch);
  return config;
}

// Each row read from DeepSpeed's own source of each release (zero/config.py,
// zero/offload_config.py, precision_config.py, runtime/config.py, compile/config.py, ...).
TEST(DeepSpeedReleasesTest, EachReleaseGivesItsOwnVerdictsOnKeys) {
  const std::vector<std::string> releases = {"0.12.6", "0.14.5", "0.16.2",
                                             "0.16.9", "0.18.9", "0.19.6"};
  constexpr Verdict A = Verdict::Accepted, R = Verdict::Refused, I = Verdict::Ignored;
  struct Row {
    const char* pointer;
    const char* patch;
    std::vector<Verdict> verdicts;  // one per release above
  };
  const Row rows[] = {
      {"/zero_optimization/zeropp_loco_param",
       R"({"zero_optimization": {"zeropp_loco_param": {"err_beta": 0.8, "reset_T": 1024}}})",
       {R, R, A, A, A, A}},
      {"/zero_optimization/log_trace_cache_warnings",
       R"({"zero_optimization": {"log_trace_cache_warnings": true}})",
       {R, R, R, A, A, A}},
      {"/zero_optimization/stage3_module_granularity_threshold",
       R"({"zero_optimization": {"stage3_module_granularity_threshold": 100}})",
       {R, R, A, A, A, A}},
      {"/zero_optimization/enable_sanity_checks",
       R"({"zero_optimization": {"enable_sanity_checks": true}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/allgather_sequential",
       R"({"zero_optimization": {"allgather_sequential": true}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/stage3_use_all_reduce_for_fetch_params",
       R"({"zero_optimization": {"stage3_use_all_reduce_for_fetch_params": true}})",
       {R, A, A, A, A, A}},
      {"/zero_optimization/save_muon_momentum_buffer_in_memory",
       R"({"zero_optimization": {"save_muon_momentum_buffer_in_memory": true}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/zenflow",
       R"({"zero_optimization": {"zenflow": {"topk_ratio": 0.1}}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/offload_optimizer/super_offload",
       R"({"zero_optimization": {"offload_optimizer": {"super_offload": true}}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/offload_optimizer/cpuadam_cores_perc",
       R"({"zero_optimization": {"offload_optimizer": {"cpuadam_cores_perc": 0.5}}})",
       {R, R, R, R, A, A}},
      {"/zero_optimization/offload_optimizer/ratio",
       R"({"zero_optimization": {"offload_optimizer": {"ratio": 0.5}}})",
       {A, A, A, A, A, A}},
      // bf16 was read with .get until 0.17.1 (extra keys ignored), a strict model since.
      {"/bf16/check_grad_overflow",
       R"({"bf16": {"check_grad_overflow": true}})",
       {I, I, I, I, A, A}},
      {"/bf16/loss_scale", R"({"bf16": {"loss_scale": 0}})", {I, I, I, I, R, R}},
      {"/fp16/use_dynamic_scaling",
       R"({"fp16": {"enabled": false, "use_dynamic_scaling": true}})",
       {I, I, I, I, R, R}},
      {"/bf16/immediate_grad_update",
       R"({"bf16": {"immediate_grad_update": true}})",
       {I, A, A, A, A, A}},
      // compile: torch.compile's keys 0.13.2-0.14.3, not read 0.14.4-0.16.5, DeepCompile since.
      {"/compile/deepcompile", R"({"compile": {"deepcompile": true}})", {I, I, I, A, A, A}},
      {"/compile/backend", R"({"compile": {"backend": "inductor"}})", {I, I, I, R, R, R}},
      {"/gradient_allreduce_op", R"({"gradient_allreduce_op": "mean"})", {I, I, I, I, I, A}},
      {"/torch_autocast", R"({"torch_autocast": {"enabled": false}})", {I, I, I, I, A, A}},
      {"/tensor_parallel", R"({"tensor_parallel": {"autotp_size": 2}})", {I, I, I, A, A, A}},
      {"/aio/thread_count", R"({"aio": {"thread_count": 2}})", {A, A, A, I, I, I}},
      {"/aio/intra_op_parallelism", R"({"aio": {"intra_op_parallelism": 2}})", {I, I, I, A, A, A}},
      {"/seq_parallel_comm_data_type",
       R"({"seq_parallel_comm_data_type": "bf16"})",
       {A, A, A, I, I, I}},
      // Read inside quantize_training (when compression_training quantizes weights) in every
      // release, never at the top level: config.py rebinds param_dict before 0.19.3.
      {"/eigenvalue", R"({"eigenvalue": {"enabled": false}})", {I, I, I, I, I, I}},
      {"/quantize_training", R"({"quantize_training": {"enabled": false}})", {A, A, A, A, A, A}},
      {"/comet", R"({"comet": {"enabled": false}})", {I, A, A, A, A, A}},
  };
  for (const auto& row : rows) {
    ASSERT_EQ(row.verdicts.size(), releases.size()) << row.pointer;
    const json config = config_with(json::parse(row.patch));
    for (std::size_t i = 0; i < releases.size(); ++i) {
      SCOPED_TRACE(std::string(row.pointer) + " @ " + releases[i]);
      EXPECT_STREQ(verdict_name(verdict_of(config, row.pointer, releases[i])),
                   verdict_name(row.verdicts[i]));
    }
  }
}

// The findings of `config` at `version`, but known-regression's (its own test below): these
// tests are about keys and rules that follow the release.
std::vector<std::string> lines(const json& config, const std::string& version) {
  ValidateOptions options;
  options.deepspeed_version = version;
  std::vector<std::string> out;
  for (const auto& f : validate_config(config, options, "ds.json"))
    if (f.rule != "known-regression") out.push_back(format_finding(f));
  return out;
}

TEST(DeepSpeedReleasesTest, NamesTheReleaseAndTheOnesThatHaveTheKey) {
  EXPECT_EQ(lines(config_with(
                      json::parse(R"({"zero_optimization": {"log_trace_cache_warnings": true}})")),
                  "0.16.2"),
            std::vector<std::string>{
                "ds.json: /zero_optimization/log_trace_cache_warnings: error [unknown-key]: "
                "\"log_trace_cache_warnings\" is not a key of /zero_optimization, which DeepSpeed "
                "0.16.2 validates strictly: it refuses the config; it is a key of DeepSpeed 0.16.4 "
                "or newer"});
  EXPECT_EQ(lines(config_with(json::parse(R"({"compile": {"deepcompile": true}})")), "0.12.6"),
            std::vector<std::string>{
                "ds.json: /compile: warning [ignored-key]: DeepSpeed 0.12.6 does not read "
                "\"compile\" at the top level and silently ignores it; it is a key of DeepSpeed "
                "0.13.2 to 0.14.3 and 0.16.6 or newer"});
  EXPECT_EQ(lines(config_with(json::parse(R"({"compile": {"backend": "inductor"}})")), "0.19.6"),
            std::vector<std::string>{
                "ds.json: /compile/backend: error [unknown-key]: \"backend\" is not a key of "
                "/compile, which DeepSpeed validates strictly: it refuses the config (pass the "
                "backend to engine.compile(backend=...)); it is a key of DeepSpeed 0.13.2 to "
                "0.14.3"});
  EXPECT_EQ(lines(config_with(json::parse(R"({"aio": {"thread_count": 2}})")), "0.18.9"),
            std::vector<std::string>{
                "ds.json: /aio/thread_count: warning [ignored-key]: DeepSpeed 0.18.9 does not read "
                "\"thread_count\" in /aio and silently ignores it; it is a key of DeepSpeed 0.16.3 "
                "or older"});
}

// Rules that follow a release: checks DeepSpeed gained or lost, optimizer and scheduler names,
// pydantic 1's conversions, and keys a release lacks, which the other rules then leave alone.
TEST(DeepSpeedReleasesTest, RulesFollowTheRelease) {
  struct Case {
    const char* name;
    const char* patch;
    const char* version;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"warmup 0 refused from 0.19.3",
       R"({"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 0}}})",
       "0.19.3",
       {"ds.json: /scheduler/params/warmup_num_steps: error [warmup-steps]: DeepSpeed >= 0.19.3 "
        "requires warmup_num_steps to be a positive integer, found 0; write a whole number of "
        "steps > 0"}},
      {"warmup 0 taken before",
       R"({"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 0}}})",
       "0.19.2",
       {}},
      {"WarmupCosineLR from 0.12.3",
       R"({"scheduler": {"type": "WarmupCosineLR", "params": {"total_num_steps": 10}}})",
       "0.12.2",
       {"ds.json: /scheduler/type: error [scheduler-type]: \"WarmupCosineLR\" is neither a "
        "DeepSpeed 0.12.2 scheduler (LRRangeTest, OneCycle, WarmupLR, WarmupDecayLR) nor one of "
        "torch.optim.lr_scheduler: DeepSpeed fails at initialize (\"DeepSpeed does not recognize "
        "LR scheduler\")"}},
      {"WarmupCosineLR in 0.12.3",
       R"({"scheduler": {"type": "WarmupCosineLR", "params": {"total_num_steps": 10}}})",
       "0.12.3",
       {}},
      // LAMB needs dynamic loss scaling (DeepSpeedEngine._do_sanity_check); what the engine reads
      // as the loss scale changed in 0.17.1 (check:loss-scale-from-fp16-section).
      {"lamb with a static fp16 loss scale",
       R"({"optimizer": {"type": "Lamb"}, "fp16": {"enabled": true, "loss_scale": 128},
           "bf16": {"enabled": false}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.16.9",
       {"ds.json: /fp16/loss_scale: error [lamb-loss-scale]: DeepSpeed 0.16.9's initialize "
        "asserts \"DeepSpeed lamb optimizer requires dynamic loss scaling\" for \"Lamb\": "
        "fp16.loss_scale is 128; set fp16.loss_scale to 0 (dynamic) or remove it"}},
      {"lamb with a dynamic fp16 loss scale",
       R"({"optimizer": {"type": "Lamb"}, "fp16": {"enabled": true, "loss_scale": 0},
           "bf16": {"enabled": false}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.16.9",
       {}},
      {"lamb with bf16 before 0.17.1",
       R"({"optimizer": {"type": "OneBitLamb"}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.17.0",
       {"ds.json: /optimizer/type: error [lamb-loss-scale]: DeepSpeed 0.17.0's initialize "
        "asserts \"DeepSpeed onebitlamb optimizer requires dynamic loss scaling\" for "
        "\"OneBitLamb\": with bf16 (and fp16 not enabled) its loss scale is a static 1.0; use "
        "DeepSpeed 0.17.1 or newer (it reads fp16.loss_scale instead), or fp16 with dynamic loss "
        "scaling"}},
      {"lamb with bf16 from 0.17.1",
       R"({"optimizer": {"type": "lamb"}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.17.1",
       {}},
      {"a disabled fp16 section's loss scale before 0.17.1",
       R"({"optimizer": {"type": "Lamb"}, "fp16": {"enabled": false, "loss_scale": 64},
           "bf16": {"enabled": false}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.17.0",
       {}},
      {"a disabled fp16 section's loss scale from 0.17.1",
       R"({"optimizer": {"type": "Lamb"}, "fp16": {"enabled": false, "loss_scale": 64},
           "bf16": {"enabled": false}, "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.17.1",
       {"ds.json: /fp16/loss_scale: error [lamb-loss-scale]: DeepSpeed 0.17.1's initialize "
        "asserts \"DeepSpeed lamb optimizer requires dynamic loss scaling\" for \"Lamb\": "
        "fp16.loss_scale is 64, which it reads although fp16 is not enabled; set "
        "fp16.loss_scale to 0 (dynamic) or remove it"}},
      // fp16's loss_scale_window and min_loss_scale refuse booleans from 0.19.3 (a validator in
      // precision_config.py); pydantic took true as 1 before.
      {"a boolean loss_scale_window from 0.19.3",
       R"({"fp16": {"enabled": true, "loss_scale_window": true}, "bf16": {"enabled": false}})",
       "0.19.3",
       {"ds.json: /fp16/loss_scale_window: error [type]: DeepSpeed 0.19.3 refuses a boolean here "
        "(\"fp16.loss_scale_window must be an integer, not bool\"); write the integer you mean"}},
      {"a boolean min_loss_scale before",
       R"({"fp16": {"enabled": true, "min_loss_scale": true}, "bf16": {"enabled": false}})",
       "0.19.2",
       {}},
      // pydantic 1 looks an enum's value up among its members as written: measured with
      // DeepSpeed 0.14.5, which refuses both (pydantic 2 takes "2" as 2).
      {"a quoted stage under pydantic 1",
       R"({"zero_optimization": {"stage": "2"}})",
       "0.14.5",
       {"ds.json: /zero_optimization/stage: error [enum]: \"2\" is not one of 0, 1, 2, 3; "
        "DeepSpeed 0.14.5 (pydantic 1) compares the value with them as written: write the member "
        "itself"}},
      {"a fractional stage under pydantic 1",
       R"({"zero_optimization": {"stage": 1.5, "offload_optimizer": null}})",
       "0.14.5",
       {"ds.json: /zero_optimization/stage: error [enum]: 1.5 is not one of 0, 1, 2, 3; "
        "DeepSpeed 0.14.5 (pydantic 1) compares the value with them as written: write the member "
        "itself"}},
      {"a quoted stage under pydantic 2", R"({"zero_optimization": {"stage": "2"}})", "0.19.6", {}},
      {"muon is DeepSpeed's from 0.17.6",
       R"({"optimizer": {"type": "muon", "params": {"lr": 0.01}}})",
       "0.17.6",
       {}},
      {"muon before",
       R"({"optimizer": {"type": "muon", "params": {"lr": 0.01}}})",
       "0.16.9",
       {"ds.json: /optimizer/type: error [optimizer-type]: \"muon\" is neither one of "
        "DeepSpeed 0.16.9's optimizers nor a torch.optim class (DeepSpeed looks other names up "
        "in torch.optim as written): initialize asserts \"muon is not a supported DeepSpeed "
        "Optimizer\"; did you mean \"Muon\"?"}},
      {"torch's Muon under ZeRO before 0.17.6",
       R"({"optimizer": {"type": "Muon", "params": {"lr": 0.01}}})",
       "0.16.9",
       {"ds.json: /optimizer/type: error [optimizer-zero]: ZeRO (stage 3) refuses the untested "
        "optimizer \"Muon\" at initialize; set \"zero_allow_untested_optimizer\": true or use "
        "Adam, AdamW or Adagrad"}},
      {"fp16 master weights: stage 2 only before 0.18.3",
       R"({"bf16": null, "fp16": {"enabled": true, "fp16_master_weights_and_grads": true}})",
       "0.16.2",
       {"ds.json: /fp16/fp16_master_weights_and_grads: error [master-weights]: "
        "fp16_master_weights_and_grads is only supported with ZeRO stage 2 in DeepSpeed 0.16.2 "
        "(\"only supported with ZeRO Stage 2 for now\"; stages 1-3 from 0.18.3 on); it refuses "
        "it at stage 3"}},
      {"fp16 master weights at stage 3 from 0.18.3",
       R"({"bf16": null, "fp16": {"enabled": true, "fp16_master_weights_and_grads": true}})",
       "0.18.3",
       {}},
      {"pydantic 1 truncates a float for an integer",
       R"({"zero_optimization": {"reduce_bucket_size": 500000000.5}})",
       "0.14.5",
       {"ds.json: /zero_optimization/reduce_bucket_size: warning [type]: DeepSpeed 0.14.5 "
        "(pydantic 1) truncates 500000000.5 to 500000000 without a word; write the integer you "
        "mean"}},
      {"pydantic 2 refuses it",
       R"({"zero_optimization": {"reduce_bucket_size": 500000000.5}})",
       "0.15.0",
       {"ds.json: /zero_optimization/reduce_bucket_size: error [type]: expected an integer, found "
        "500000000.5 (not a whole number)"}},
      {"a key the release lacks is judged by no other rule",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true},
           "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.18.2",
       {"ds.json: /bf16/bf16_master_weights_and_grads: error [unknown-key]: "
        "\"bf16_master_weights_and_grads\" is not a key of /bf16, which DeepSpeed 0.18.2 validates "
        "strictly: it refuses the config; it is a key of DeepSpeed 0.18.3 or newer"}},
      {"the same key where the release has it",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true},
           "zero_optimization": {"stage": 0, "offload_optimizer": null}})",
       "0.18.3",
       {"ds.json: /bf16/bf16_master_weights_and_grads: error [master-weights]: "
        "bf16_master_weights_and_grads is only supported with ZeRO stage 1, 2 or 3; DeepSpeed "
        "refuses it at stage 0"}},
      // _configure_master_weights (base_optimizer.py) and the ZeRO optimizers' validators.
      {"bf16 optimizer states may stay on the GPU from 0.18.3 (DeepSpeed's own example)",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
                    "bf16_optimizer_states": true},
           "zero_optimization": {"stage": 2, "offload_optimizer": null}})",
       "0.18.3",
       {}},
      {"... and at 0.19.6",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
                    "bf16_optimizer_states": true},
           "zero_optimization": {"stage": 2, "offload_optimizer": null}})",
       "0.19.6",
       {}},
      {"bf16 master weights with fp32 states need the optimizer offloaded",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true},
           "zero_optimization": {"stage": 2, "offload_optimizer": null}})",
       "0.19.6",
       {"ds.json: /bf16/bf16_master_weights_and_grads: error [master-weights]: "
        "bf16_master_weights_and_grads needs zero_optimization.offload_optimizer.device \"cpu\" "
        "at stage 2 (with DeepSpeedCPUAdam) unless bf16_optimizer_states is true too; DeepSpeed "
        "refuses it otherwise at initialize"}},
      {"stage 3 offloads to NVMe with DeepSpeedCPUAdam too",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true},
           "zero_optimization": {"offload_optimizer": {"device": "nvme", "nvme_path": "/n"}},
           "optimizer": {"type": "AdamW", "params": {"lr": 0.0001}}})",
       "0.19.6",
       {}},
      {"offloaded states are held to the validator from 0.19.1: Lion builds DeepSpeedCPULion",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
                    "bf16_optimizer_states": true},
           "optimizer": {"type": "Lion", "params": {"lr": 0.0001}}})",
       "0.19.1",
       {"ds.json: /bf16/bf16_optimizer_states: error [master-weights]: bf16_optimizer_states "
        "needs DeepSpeedCPUAdam, which DeepSpeed builds for an offloaded \"Adam\" or \"AdamW\" "
        "without torch_adam; with \"Lion\" it refuses the config at initialize (\"Master "
        "weights feature requires ZeRO Offload with DeepSpeedCPUAdam\")"}},
      {"... not before",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
                    "bf16_optimizer_states": true},
           "optimizer": {"type": "Lion", "params": {"lr": 0.0001}}})",
       "0.19.0",
       {}},
      {"torch_adam builds torch's AdamW, which the validator refuses",
       R"({"bf16": {"enabled": true, "bf16_master_weights_and_grads": true},
           "optimizer": {"type": "AdamW", "params": {"lr": 0.0001, "torch_adam": true}}})",
       "0.18.9",
       {"ds.json: /bf16/bf16_master_weights_and_grads: error [master-weights]: "
        "bf16_master_weights_and_grads needs DeepSpeedCPUAdam, which DeepSpeed builds for an "
        "offloaded \"Adam\" or \"AdamW\" without torch_adam; with torch_adam it refuses the "
        "config at initialize (\"Master weights feature requires ZeRO Offload with "
        "DeepSpeedCPUAdam\")"}},
      // fp16 is read with get_scalar_param (a dict) before 0.17.1, by a pydantic model since.
      {"fp16.min_loss_scale 1e-10 is read as written before 0.17.1",
       R"({"bf16": null, "fp16": {"enabled": true, "min_loss_scale": 1e-10}})",
       "0.17.0",
       {"ds.json: /fp16/min_loss_scale: warning [type]: DeepSpeed 0.17.0 reads 1e-10 as written "
        "(this section has no validating model in this release), but later releases validate "
        "the section strictly and refuse a number that is not an integer here"}},
      {"... and refused from 0.17.1",
       R"({"bf16": null, "fp16": {"enabled": true, "min_loss_scale": 1e-10}})",
       "0.17.1",
       {"ds.json: /fp16/min_loss_scale: error [type]: expected an integer, found 1e-10 (not a "
        "whole number)"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lines(config_with(json::parse(c.patch)), c.version), c.expected);
  }
}

// known-regression: the pinned release's regressions that the stage meets, none unpinned.
TEST(DeepSpeedReleasesTest, APinnedReleaseWithAKnownRegressionIsReported) {
  struct Case {
    const char* version;  // "" = not pinned
    int stage;
    bool bf16;
    std::vector<std::string> sources;  // the issues the findings cite
  };
  const Case cases[] = {
      {"", 2, true, {}},
      {"0.16.2", 3, true, {"#7499"}},
      {"0.16.2", 2, true, {}},
      {"0.15.3", 3, true, {}},
      {"0.18.0", 2, false, {"#7718"}},
      {"0.18.3", 2, false, {}},
      {"0.18.3", 2, true, {"#8224"}},
      {"0.18.5", 2, true, {"#7885", "#8224"}},
      {"0.19.6", 2, false, {}},
      {"0.19.6", 3, true, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.version) + " stage " + std::to_string(c.stage));
    json config = {{"train_micro_batch_size_per_gpu", 1},
                   {"zero_optimization", {{"stage", c.stage}}}};
    config[c.bf16 ? "bf16" : "fp16"] = {{"enabled", true}};
    ValidateOptions options;
    options.world_size = 1;
    options.deepspeed_version = c.version;
    std::vector<std::string> cited;
    for (const Finding& f : validate_config(config, options, "ds.json")) {
      if (f.rule != "known-regression") continue;
      EXPECT_EQ(f.pointer, "/zero_optimization/stage");
      const auto at = f.message.find('#');
      cited.push_back(f.message.substr(at, 5));
    }
    EXPECT_EQ(cited, c.sources);
  }
}

}  // namespace
}  // namespace zf
