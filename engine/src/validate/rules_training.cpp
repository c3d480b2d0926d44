// SPDX-License-Identifier: MIT
// Rule family "training": optimizer and scheduler sections (their names, their constructor
// parameters, ZeRO compatibility), sections that need `enabled`, and DeepSpeed's own warnings.
#include <algorithm>

#include "rules.hpp"

namespace zf::validate {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool listed(const json& list, const std::string& name) {
  return std::any_of(list.begin(), list.end(), [&](const json& n) { return n.get<std::string>() == name; });
}

void check_required(const Context& ctx) {
  for (const char* section : {"amp", "progressive_layer_drop"}) {
    auto it = ctx.config.find(section);
    if (it != ctx.config.end() && it->is_object() && !it->contains("enabled")) {
      ctx.report(pointer_join("", section), Severity::Error, "required-key",
                 std::string("DeepSpeed reads \"") + section + "\" only with an \"enabled\" key and fails (KeyError) "
                 "without it; add \"enabled\": true or false");
    }
  }
}

void check_optimizer(const Context& ctx) {
  auto it = ctx.config.find("optimizer");
  if (it == ctx.config.end() || !it->is_object()) return;
  const json& optimizer = *it;
  const json& lists = ctx.schema.at("optimizers");
  if (auto type = optimizer.find("type"); type != optimizer.end() && type->is_string() && ctx.stage > 0) {
    std::string name = lower(type->get<std::string>());
    if (listed(lists.at("zero_incompatible"), name)) {
      ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
                 "\"" + type->get<std::string>() + "\" cannot be used with ZeRO (stage " + std::to_string(ctx.stage) +
                     "); use stage 0 or another optimizer");
    } else if (!listed(lists.at("zero_supported"), name) && !is_true(ctx.config, "zero_allow_untested_optimizer")) {
      ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
                 "ZeRO (stage " + std::to_string(ctx.stage) + ") refuses the untested optimizer \"" +
                     type->get<std::string>() + "\" at initialize; set \"zero_allow_untested_optimizer\": true "
                     "or use Adam, AdamW or Adagrad");
    }
  }
  if (auto params = optimizer.find("params"); params != optimizer.end() && params->is_object()) {
    if (params->contains("max_grad_norm")) {
      ctx.report("/optimizer/params/max_grad_norm", Severity::Error, "optimizer-params",
                 "DeepSpeed's optimizers do not take max_grad_norm; use the top-level \"gradient_clipping\"");
    }
  }
}

void check_scheduler(const Context& ctx) {
  auto it = ctx.config.find("scheduler");
  if (it == ctx.config.end() || !it->is_object()) return;
  const json& scheduler = *it;
  auto type = scheduler.find("type");
  if (type == scheduler.end() || !type->is_string()) return;
  const std::string name = type->get<std::string>();
  const json& known = ctx.schema.at("schedulers");
  if (!known.contains(name) || !known.at(name).is_array()) return;  // a torch scheduler or a custom one
  const json empty = json::object();
  auto params_it = scheduler.find("params");
  const json& params = params_it != scheduler.end() && params_it->is_object() ? *params_it : empty;
  std::vector<std::string> accepted;
  for (const auto& p : known.at(name)) accepted.push_back(p.get<std::string>());
  for (const auto& [key, value] : params.items()) {
    if (std::find(accepted.begin(), accepted.end(), key) != accepted.end()) continue;
    std::string near = closest(key, accepted);
    ctx.report(pointer_join("/scheduler/params", key), Severity::Error, "scheduler-params",
               name + " does not take \"" + key + "\" (the constructor fails at initialize)" +
                   (near.empty() ? "; remove it" : "; did you mean \"" + near + "\"?"));
  }
  if (listed(known.at("need_total_num_steps"), name) && !params.contains("total_num_steps")) {
    ctx.report(scheduler.contains("params") ? "/scheduler/params" : "/scheduler", Severity::Error, "required-key",
               name + " needs total_num_steps; add it (\"auto\" lets the HF Trainer fill it)");
  }
  if (listed(known.at("warmup"), name)) {
    auto steps = params.find("warmup_num_steps");
    if (steps != params.end() && !is_auto(*steps) && !(steps->is_number_integer() && steps->get<long long>() > 0)) {
      std::string found = show(*steps);
      std::string fix = steps->is_number_float() && as_integer(*steps) && *as_integer(*steps) > 0
                            ? "; " + found + " is a float in JSON: write " + std::to_string(*as_integer(*steps))
                            : "; write a whole number of steps > 0";
      ctx.report("/scheduler/params/warmup_num_steps", Severity::Error, "warmup-steps",
                 "DeepSpeed >= 0.19.3 requires warmup_num_steps to be a positive integer, found " + found + fix);
    }
  }
}

void check_vocabulary(const Context& ctx) {
  auto it = ctx.config.find("vocabulary_size");
  if (it == ctx.config.end() || !it->is_number_integer()) return;
  long long size = it->get<long long>();
  if (size > 0 && size % 8 != 0) {
    ctx.report("/vocabulary_size", Severity::Warning, "vocabulary-size",
               "vocabulary_size " + std::to_string(size) + " is not a multiple of 8, which wastes tensor-core "
               "throughput (DeepSpeed warns); pad the vocabulary to " + std::to_string((size + 7) / 8 * 8));
  }
}

}  // namespace

void check_training(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  check_required(ctx);
  check_optimizer(ctx);
  check_scheduler(ctx);
  check_vocabulary(ctx);
}

}  // namespace zf::validate
