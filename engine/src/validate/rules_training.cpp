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

bool listed(const json& list, std::string_view name) {
  const auto& names = list.get_ref<const json::array_t&>();
  return std::any_of(names.begin(), names.end(),
                     [&](const json& n) { return n.get_ref<const std::string&>() == name; });
}

void check_required(const Context& ctx) {
  for (const char* section : {"amp", "progressive_layer_drop"}) {
    const json* it = member(ctx.config, section);
    if (it != nullptr && it->is_object() && member(*it, "enabled") == nullptr) {
      ctx.report(pointer_join("", section), Severity::Error, "required-key",
                 std::string("DeepSpeed reads \"") + section +
                     "\" only with an \"enabled\" key and fails (KeyError) "
                     "without it; add \"enabled\": true or false");
    }
  }
}

void check_optimizer(const Context& ctx) {
  const json* found = member(ctx.config, "optimizer");
  if (found == nullptr || !found->is_object()) return;
  const json& optimizer = *found;
  const json* type = member(optimizer, "type");
  if (type != nullptr && type->is_string() && ctx.stage > 0) {
    const json& lists = *member(ctx.schema, "optimizers");
    std::string name = lower(type->get<std::string>());
    if (listed(*member(lists, "zero_incompatible"), name)) {
      ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
                 "\"" + type->get<std::string>() + "\" cannot be used with ZeRO (stage " +
                     std::to_string(ctx.stage) + "); use stage 0 or another optimizer");
    } else if (!listed(*member(lists, "zero_supported"), name) &&
               !is_true(ctx.config, "zero_allow_untested_optimizer")) {
      ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
                 "ZeRO (stage " + std::to_string(ctx.stage) +
                     ") refuses the untested optimizer \"" + type->get<std::string>() +
                     "\" at initialize; set \"zero_allow_untested_optimizer\": true "
                     "or use Adam, AdamW or Adagrad");
    }
  }
  if (const json* params = member(optimizer, "params")) {
    if (member(*params, "max_grad_norm") != nullptr) {
      ctx.report("/optimizer/params/max_grad_norm", Severity::Error, "optimizer-params",
                 "DeepSpeed's optimizers do not take max_grad_norm; use the top-level "
                 "\"gradient_clipping\"");
    }
  }
}

void check_scheduler(const Context& ctx) {
  const json* found = member(ctx.config, "scheduler");
  if (found == nullptr || !found->is_object()) return;
  const json& scheduler = *found;
  const json* type = member(scheduler, "type");
  if (type == nullptr || !type->is_string()) return;
  const std::string& name = type->get_ref<const std::string&>();
  const json& known = *member(ctx.schema, "schedulers");
  const json& groups = *member(ctx.schema, "scheduler_groups");
  const json* accepted = member(known, name);
  if (accepted == nullptr || !accepted->is_array()) return;  // a torch scheduler or a custom one
  static const json empty = json::object();
  const json* params_found = member(scheduler, "params");
  const json& params = params_found != nullptr && params_found->is_object() ? *params_found : empty;
  for (const auto& [key, value] : params.get_ref<const json::object_t&>()) {
    if (listed(*accepted, key)) continue;
    std::string near = closest(key, accepted->get<std::vector<std::string>>());
    ctx.report(pointer_join("/scheduler/params", key), Severity::Error, "scheduler-params",
               name + " does not take \"" + key + "\" (the constructor fails at initialize)" +
                   (near.empty() ? "; remove it" : "; did you mean \"" + near + "\"?"));
  }
  if (listed(*member(groups, "need_total_num_steps"), name) &&
      member(params, "total_num_steps") == nullptr) {
    ctx.report(params_found != nullptr ? "/scheduler/params" : "/scheduler", Severity::Error,
               "required-key",
               name + " needs total_num_steps; add it (\"auto\" lets the HF Trainer fill it)");
  }
  if (listed(*member(groups, "warmup"), name)) {
    const json* steps = member(params, "warmup_num_steps");
    if (steps != nullptr && !is_auto(*steps) &&
        !(steps->is_number_integer() && steps->get<long long>() > 0)) {
      std::string found = show(*steps);
      std::string fix =
          steps->is_number_float() && as_integer(*steps) && *as_integer(*steps) > 0
              ? "; " + found + " is a float in JSON: write " + std::to_string(*as_integer(*steps))
              : "; write a whole number of steps > 0";
      ctx.report("/scheduler/params/warmup_num_steps", Severity::Error, "warmup-steps",
                 "DeepSpeed >= 0.19.3 requires warmup_num_steps to be a positive integer, found " +
                     found + fix);
    }
  }
}

void check_vocabulary(const Context& ctx) {
  const json* it = member(ctx.config, "vocabulary_size");
  if (it == nullptr || !it->is_number_integer()) return;
  long long size = it->get<long long>();
  if (size > 0 && size % 8 != 0) {
    ctx.report("/vocabulary_size", Severity::Warning, "vocabulary-size",
               "vocabulary_size " + std::to_string(size) +
                   " is not a multiple of 8, which wastes tensor-core "
                   "throughput (DeepSpeed warns); pad the vocabulary to " +
                   std::to_string((size + 7) / 8 * 8));
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
