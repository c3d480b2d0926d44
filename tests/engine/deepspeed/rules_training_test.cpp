// SPDX-License-Identifier: MIT
// Optimizer and scheduler parameters against the constructors DeepSpeed 0.19.6 calls (the
// `optimizers` and `schedulers` schema data): each optimizer type with a parameter it takes and
// one it refuses, the classes that change with optimizer offload, and the schedulers.
#include <gtest/gtest.h>

#include "zeroforge/validator.hpp"

namespace {

using json = nlohmann::ordered_json;

struct Case {
  const char* name;
  json config;  // merged over a config with only the micro batch
  std::vector<std::string> expected;
};

std::vector<std::string> lines(const json& extra) {
  json config = {{"train_micro_batch_size_per_gpu", 1}};
  config.update(extra);
  std::vector<std::string> out;
  for (const auto& f : zf::validate_config(config, {}, "ds.json"))
    out.push_back(zf::format_finding(f));
  return out;
}

json optimizer(const char* type, json params) {
  return {{"optimizer", {{"type", type}, {"params", std::move(params)}}}};
}

// ZeRO-2 with the optimizer states offloaded to CPU memory.
json offloaded(json config, json zero_extra = json::object()) {
  json zero = {{"stage", 2}, {"offload_optimizer", {{"device", "cpu"}}}};
  zero.update(zero_extra);
  config["zero_optimization"] = zero;
  return config;
}

const std::string kTypeError = ": it fails at initialize (TypeError: unexpected keyword argument)";

TEST(ValidateOptimizerParamsTest, EachOptimizerTypeTakesItsOwnParameters) {
  const std::vector<Case> cases = {
      {"adam",
       optimizer("Adam", {{"lr", 1e-4}, {"bias_correction", true}, {"torch_adam", false}}),
       {}},
      {"adam-momentum",
       optimizer("Adam", {{"lr", 1e-4}, {"momentum", 0.9}}),
       {"ds.json: /optimizer/params/momentum: error [optimizer-params]: \"Adam\" makes DeepSpeed "
        "build FusedAdam (without optimizer offload), which does not take \"momentum\"" +
        kTypeError +
        "; it takes lr, bias_correction, betas, eps, weight_decay, amsgrad, set_grad_none, "
        "torch_adam, adam_w_mode"}},
      {"adamw-typo",
       optimizer("AdamW", {{"weight_decy", 0.01}}),
       {"ds.json: /optimizer/params/weight_decy: error [optimizer-params]: \"AdamW\" makes "
        "DeepSpeed build FusedAdam (without optimizer offload), which does not take "
        "\"weight_decy\"" +
        kTypeError + "; did you mean \"weight_decay\"?"}},
      {"adam-amsgrad",
       optimizer("adam", {{"amsgrad", true}}),
       {"ds.json: /optimizer/params/amsgrad: error [optimizer-params]: \"adam\" makes DeepSpeed "
        "build FusedAdam (without optimizer offload): FusedAdam does not support the AMSGrad "
        "variant (RuntimeError) at initialize; remove \"amsgrad\" or set it false"}},
      {"adam-amsgrad-false", optimizer("Adam", {{"amsgrad", false}}), {}},
      {"adam-params-given",
       optimizer("Adam", {{"params", json::array()}}),
       {"ds.json: /optimizer/params/params: error [optimizer-params]: \"Adam\" makes DeepSpeed "
        "build FusedAdam (without optimizer offload), and passes it \"params\" itself: given "
        "again it fails at initialize (TypeError: multiple values for argument \"params\"); "
        "remove it"}},
      {"adam-torch",
       optimizer("Adam", {{"torch_adam", true}, {"bias_correction", true}}),
       {"ds.json: /optimizer/params/bias_correction: error [optimizer-params]: \"Adam\" makes "
        "DeepSpeed build torch.optim.AdamW (with torch_adam), which does not take "
        "\"bias_correction\"" +
        kTypeError +
        "; it takes lr, betas, eps, weight_decay, amsgrad, maximize, foreach, capturable, "
        "differentiable, fused, torch_adam, adam_w_mode"}},
      {"adam-torch-adam-mode",
       optimizer("Adam",
                 {{"torch_adam", true}, {"adam_w_mode", false}, {"decoupled_weight_decay", true}}),
       {}},
      {"adagrad",
       optimizer("Adagrad", {{"lr_decay", 0.0}, {"initial_accumulator_value", 0.1}}),
       {}},
      {"adagrad-betas",
       optimizer("Adagrad", {{"betas", {0.9, 0.99}}}),
       {"ds.json: /optimizer/params/betas: error [optimizer-params]: \"Adagrad\" makes DeepSpeed "
        "build torch.optim.Adagrad (without optimizer offload), which does not take \"betas\"" +
        kTypeError +
        "; it takes lr, lr_decay, weight_decay, initial_accumulator_value, eps, foreach, "
        "maximize, differentiable, fused"}},
      {"lamb", optimizer("Lamb", {{"max_coeff", 10.0}, {"min_coeff", 0.01}}), {}},
      {"lamb-adam-w-mode",
       optimizer("Lamb", {{"adam_w_mode", true}}),
       {"ds.json: /optimizer/params/adam_w_mode: error [optimizer-params]: \"Lamb\" makes "
        "DeepSpeed build FusedLamb, which does not take \"adam_w_mode\"" +
        kTypeError +
        "; it takes lr, bias_correction, betas, eps, eps_inside_sqrt, weight_decay, max_coeff, "
        "min_coeff, amsgrad"}},
      {"onebitadam", optimizer("OneBitAdam", {{"freeze_step", 400}, {"cuda_aware", false}}), {}},
      {"onebitadam-deepspeed",
       optimizer("OneBitAdam", {{"deepspeed", nullptr}}),
       {"ds.json: /optimizer/params/deepspeed: error [optimizer-params]: \"OneBitAdam\" makes "
        "DeepSpeed build OnebitAdam, and passes it \"deepspeed\" itself: given again it fails at "
        "initialize (TypeError: multiple values for argument \"deepspeed\"); remove it"}},
      {"zerooneadam", optimizer("ZeroOneAdam", {{"var_freeze_step", 1000}}), {}},
      {"zerooneadam-typo",
       optimizer("ZeroOneAdam", {{"var_freeze_steps", 1000}}),
       {"ds.json: /optimizer/params/var_freeze_steps: error [optimizer-params]: \"ZeroOneAdam\" "
        "makes DeepSpeed build ZeroOneAdam, which does not take \"var_freeze_steps\"" +
        kTypeError + "; did you mean \"var_freeze_step\"?"}},
      {"onebitlamb", optimizer("OneBitLamb", {{"coeff_beta", 0.9}}), {}},
      {"onebitlamb-typo",
       optimizer("OneBitLamb", {{"factor_mx", 4.0}}),
       {"ds.json: /optimizer/params/factor_mx: error [optimizer-params]: \"OneBitLamb\" makes "
        "DeepSpeed build OnebitLamb, which does not take \"factor_mx\"" +
        kTypeError + "; did you mean \"factor_max\"?"}},
      {"lion", optimizer("Lion", {{"betas", {0.9, 0.99}}, {"set_grad_none", true}}), {}},
      {"lion-eps",
       optimizer("Lion", {{"eps", 1e-8}}),
       {"ds.json: /optimizer/params/eps: error [optimizer-params]: \"Lion\" makes DeepSpeed "
        "build FusedLion (without optimizer offload), which does not take \"eps\"" +
        kTypeError + "; it takes lr, betas, weight_decay, set_grad_none"}},
      {"muon", optimizer("Muon", {{"momentum", 0.95}, {"muon_lr", 0.02}, {"adam_lr", 3e-4}}), {}},
      {"muon-ignored",
       optimizer("Muon", {{"lr", 0.02}, {"nesterov", true}}),
       {"ds.json: /optimizer/params/nesterov: warning [optimizer-param-ignored]: \"Muon\" makes "
        "DeepSpeed build MuonWithAuxAdam, which reads only lr, momentum, weight_decay, muon_lr, "
        "ns_method, betas, eps, adam_lr from params: \"nesterov\" is silently ignored"}},
      {"mup-not-checked", optimizer("MuAdam", {{"anything", 1}}), {}},
      {"torch-sgd-not-checked", optimizer("SGD", {{"momentum", 0.9}, {"nesterov", true}}), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lines(c.config), c.expected);
  }
}

TEST(ValidateOptimizerParamsTest, OptimizerOffloadChangesTheClass) {
  const std::vector<Case> cases = {
      {"cpu-adam-states", offloaded(optimizer("AdamW", {{"fp32_optimizer_states", false}})), {}},
      {"fused-adam-states",
       optimizer("AdamW", {{"fp32_optimizer_states", false}}),
       {"ds.json: /optimizer/params/fp32_optimizer_states: error [optimizer-params]: \"AdamW\" "
        "makes DeepSpeed build FusedAdam (without optimizer offload), which does not take "
        "\"fp32_optimizer_states\"" +
        kTypeError + "; DeepSpeedCPUAdam (built with optimizer offload) takes it"}},
      {"cpu-adam-set-grad-none",
       offloaded(optimizer("Adam", {{"set_grad_none", true}})),
       {"ds.json: /optimizer/params/set_grad_none: error [optimizer-params]: \"Adam\" makes "
        "DeepSpeed build DeepSpeedCPUAdam (with optimizer offload), which does not take "
        "\"set_grad_none\"" +
        kTypeError + "; FusedAdam (built without optimizer offload) takes it"}},
      {"cpu-adam-amsgrad", offloaded(optimizer("Adam", {{"amsgrad", true}})), {}},
      {"cpu-adam-adamw-mode",
       offloaded(optimizer("AdamW", {{"adamw_mode", true}})),
       {"ds.json: /optimizer/params/adamw_mode: error [optimizer-params]: \"AdamW\" makes "
        "DeepSpeed build DeepSpeedCPUAdam (with optimizer offload), and passes it \"adamw_mode\" "
        "itself: given again it fails at initialize (TypeError: multiple values for argument "
        "\"adamw_mode\"); remove it"}},
      {"zenflow-overlap-step",
       offloaded(optimizer("Adam", {{"overlap_step", true}}), {{"zenflow", json::object()}}),
       {"ds.json: /optimizer/params/overlap_step: error [optimizer-params]: \"Adam\" makes "
        "DeepSpeed build ZenFlowCPUAdam (with optimizer offload and ZenFlow), and passes it "
        "\"overlap_step\" itself: given again it fails at initialize (TypeError: multiple values "
        "for argument \"overlap_step\"); remove it"}},
      {"nvme-is-offload-too",
       [] {
         json config = optimizer("Adam", {{"set_grad_none", true}});
         config["zero_optimization"] = {
             {"stage", 3}, {"offload_optimizer", {{"device", "nvme"}, {"nvme_path", "/nvme"}}}};
         return config;
       }(),
       {"ds.json: /optimizer/params/set_grad_none: error [optimizer-params]: \"Adam\" makes "
        "DeepSpeed build DeepSpeedCPUAdam (with optimizer offload), which does not take "
        "\"set_grad_none\"" +
        kTypeError + "; FusedAdam (built without optimizer offload) takes it"}},
      {"cpu-adagrad-lr-decay",
       offloaded(optimizer("Adagrad", {{"lr_decay", 0.1}})),
       {"ds.json: /optimizer/params/lr_decay: error [optimizer-params]: \"Adagrad\" makes "
        "DeepSpeed build DeepSpeedCPUAdagrad (with optimizer offload), which does not take "
        "\"lr_decay\"" +
        kTypeError + "; torch.optim.Adagrad (built without optimizer offload) takes it"}},
      {"cpu-lion", offloaded(optimizer("Lion", {{"fp32_optimizer_states", true}})), {}},
      {"cpu-lion-set-grad-none",
       offloaded(optimizer("Lion", {{"set_grad_none", true}})),
       {"ds.json: /optimizer/params/set_grad_none: error [optimizer-params]: \"Lion\" makes "
        "DeepSpeed build DeepSpeedCPULion (with optimizer offload), which does not take "
        "\"set_grad_none\"" +
        kTypeError + "; FusedLion (built without optimizer offload) takes it"}},
      {"offload-none-is-not-offload",
       [] {
         json config = optimizer("Adam", {{"fp32_optimizer_states", true}});
         config["zero_optimization"] = {{"stage", 2}, {"offload_optimizer", {{"device", "none"}}}};
         return config;
       }(),
       {"ds.json: /optimizer/params/fp32_optimizer_states: error [optimizer-params]: \"Adam\" "
        "makes DeepSpeed build FusedAdam (without optimizer offload), which does not take "
        "\"fp32_optimizer_states\"" +
        kTypeError + "; DeepSpeedCPUAdam (built with optimizer offload) takes it"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lines(c.config), c.expected);
  }
}

TEST(ValidateOptimizerParamsTest, UnknownTypesAreLookedUpInTorchOptim) {
  const std::vector<Case> cases = {
      {"lower-case-torch-name",
       optimizer("sgd", {{"lr", 0.1}}),
       {"ds.json: /optimizer/type: error [optimizer-type]: \"sgd\" is neither one of "
        "DeepSpeed's optimizers nor a torch.optim class (DeepSpeed looks other names up in "
        "torch.optim as written): initialize asserts \"sgd is not a supported DeepSpeed "
        "Optimizer\"; did you mean \"SGD\"?"}},
      {"near-miss",
       optimizer("Lamb2", {{"lr", 0.1}}),
       {"ds.json: /optimizer/type: error [optimizer-type]: \"Lamb2\" is neither one of "
        "DeepSpeed's optimizers nor a torch.optim class (DeepSpeed looks other names up in "
        "torch.optim as written): initialize asserts \"Lamb2 is not a supported DeepSpeed "
        "Optimizer\"; did you mean \"lamb\"?"}},
      {"deepspeed-names-any-case", optimizer("ADAMW", {{"lr", 0.1}}), {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lines(c.config), c.expected);
  }
}

json scheduler(const char* type, json params) {
  json section = {{"type", type}};
  if (!params.is_null()) section["params"] = std::move(params);
  return {{"scheduler", section}};
}

TEST(ValidateSchedulerParamsTest, SchedulersTakeTheirConstructorsKeywords) {
  const std::vector<Case> cases = {
      {"warmup", scheduler("WarmupLR", {{"warmup_max_lr", 1e-3}, {"warmup_num_steps", 10}}), {}},
      {"warmup-total",
       scheduler("WarmupLR", {{"total_num_steps", 100}}),
       {"ds.json: /scheduler/params/total_num_steps: error [scheduler-params]: WarmupLR does not "
        "take \"total_num_steps\" (the constructor fails at initialize); remove it"}},
      {"warmup-optimizer",
       scheduler("WarmupLR", {{"optimizer", "adam"}}),
       {"ds.json: /scheduler/params/optimizer: error [scheduler-params]: DeepSpeed passes "
        "\"optimizer\" to WarmupLR itself: given again it fails at initialize (TypeError: "
        "multiple values); remove it"}},
      {"no-params",
       scheduler("WarmupLR", nullptr),
       {"ds.json: /scheduler: error [required-key]: DeepSpeed builds WarmupLR with "
        "**scheduler.params, so a scheduler without params fails at initialize (TypeError: "
        "argument after ** must be a mapping); add \"params\""}},
      {"one-cycle", scheduler("OneCycle", {{"cycle_min_lr", 1e-5}, {"cycle_max_lr", 1e-3}}), {}},
      {"one-cycle-needs-max",
       scheduler("OneCycle", {{"cycle_min_lr", 1e-5}}),
       {"ds.json: /scheduler/params: error [required-key]: OneCycle needs cycle_max_lr; add it "
        "(the constructor has no default for it)"}},
      {"decay-needs-total",
       scheduler("WarmupDecayLR", {{"warmup_num_steps", 10}}),
       {"ds.json: /scheduler/params: error [required-key]: WarmupDecayLR needs total_num_steps; "
        "add it (\"auto\" lets the HF Trainer fill it)"}},
      {"cosine",
       scheduler("WarmupCosineLR", {{"total_num_steps", 100}, {"cos_min_ratio", 0.1}}),
       {}},
      {"range-test-typo",
       scheduler("LRRangeTest", {{"lr_range_test_step_sizes", 10}}),
       {"ds.json: /scheduler/params/lr_range_test_step_sizes: error [scheduler-params]: "
        "LRRangeTest does not take \"lr_range_test_step_sizes\" (the constructor fails at "
        "initialize); did you mean \"lr_range_test_step_size\"?"}},
      {"torch-scheduler-not-checked", scheduler("StepLR", {{"step_size", 10}, {"gamma", 0.5}}), {}},
      {"type-case",
       scheduler("WarmUpLR", {{"warmup_num_steps", 10}}),
       {"ds.json: /scheduler/type: error [scheduler-type]: \"WarmUpLR\" is neither a DeepSpeed "
        "scheduler (LRRangeTest, OneCycle, WarmupLR, WarmupDecayLR, WarmupCosineLR) nor one of "
        "torch.optim.lr_scheduler: DeepSpeed fails at initialize (\"DeepSpeed does not "
        "recognize LR scheduler\"); did you mean \"WarmupLR\"?"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lines(c.config), c.expected);
  }
}

}  // namespace
