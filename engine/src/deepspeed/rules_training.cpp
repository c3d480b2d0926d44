// SPDX-License-Identifier: MIT
// Rule family "training": optimizer and scheduler sections (their names, the class DeepSpeed
// builds and its constructor's keywords, ZeRO compatibility), sections that need `enabled`, and
// DeepSpeed's own warnings. The signatures are schema data (`optimizers`, `schedulers`).
#include <algorithm>

#include "rules.hpp"

namespace zf::deepspeed {
namespace {

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

std::vector<std::string> names_of(const json& list) {
  std::vector<std::string> out;
  if (list.is_array()) {
    for (const auto& n : list) out.push_back(n.get<std::string>());
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// `key`'s closest name among `candidates` as "; did you mean \"x\"?", or "".
std::string did_you_mean(std::string_view key, const std::vector<std::string>& candidates) {
  std::string near = closest(key, candidates);
  return near.empty() ? std::string() : "; did you mean \"" + near + "\"?";
}

// A type name DeepSpeed would not find, compared up to case ("sgd" finds torch.optim's "SGD":
// torch names are looked up as written), as "; did you mean \"x\"?" or "".
std::string type_suggestion(const std::string& type, const std::vector<std::string>& candidates) {
  std::vector<std::string> lowered;
  for (const auto& c : candidates) lowered.push_back(lower(c));
  const std::string near = closest(lower(type), lowered);
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    if (!near.empty() && lowered[i] == near) return "; did you mean \"" + candidates[i] + "\"?";
  }
  return std::string();
}

bool zenflow_on(const json& config) {
  const json* zero = member(config, "zero_optimization");
  const json* zenflow = zero != nullptr ? member(*zero, "zenflow") : nullptr;
  return zenflow != nullptr && zenflow->is_object();
}

// The class DeepSpeed builds for one of its own optimizer names (schema `optimizers.types`),
// and the one it builds in the other offload mode (for the message), or "" when none differs.
// Views into the schema data (and literals): made for every config with an optimizer.
struct Built {
  std::string_view name;
  std::string_view why;    // "without optimizer offload", ...
  std::string_view other;  // the class of the other offload mode, or ""
  std::string_view other_why;
};

Built built_class(const json& config, const json& entry, const std::string& type,
                  const json& params) {
  auto text = [&](std::string_view key) -> std::string_view {
    const json* value = member(entry, key);
    return value != nullptr && value->is_string()
               ? std::string_view(value->get_ref<const std::string&>())
               : std::string_view();
  };
  const json* torch_adam = member(params, "torch_adam");
  if (!text("with_torch_adam").empty() && torch_adam != nullptr && torch_adam->is_boolean() &&
      torch_adam->get<bool>()) {
    const json* mode = member(params, "adam_w_mode");
    bool adam_w = type == "adamw" || mode == nullptr || !mode->is_boolean() || mode->get<bool>();
    return {text(adam_w ? "with_torch_adamw" : "with_torch_adam"),
            adam_w ? "with torch_adam" : "with torch_adam and adam_w_mode false", "", ""};
  }
  std::string_view offload = text("with_offload");
  if (offload.empty()) return {text("builds"), "", "", ""};
  if (optimizer_offloaded(config)) {
    std::string_view zenflow = text("with_offload_zenflow");
    if (!zenflow.empty() && zenflow_on(config))
      return {zenflow, "with optimizer offload and ZenFlow", text("builds"),
              "without optimizer offload"};
    return {offload, "with optimizer offload", text("builds"), "without optimizer offload"};
  }
  return {text("builds"), "without optimizer offload", offload, "with optimizer offload"};
}

bool takes(const json& cls, const std::string& key) {
  const json* params = member(cls, "params");
  return params != nullptr && listed(*params, key);
}

// The entry of `name` (lower case) among DeepSpeed's own optimizers in the release, or nullptr.
const json* own_optimizer(const Context& ctx, const json& optimizers, const std::string& name) {
  const json* entry = member(*member(optimizers, "types"), name);
  if (entry == nullptr || !entry->is_object() || !ctx.has("optimizer:" + name)) return nullptr;
  return entry;
}

// optimizer.params against the constructor of the class DeepSpeed builds.
void check_optimizer_params(const Context& ctx, const json& optimizers, const std::string& type,
                            const json& params) {
  const json* entry = own_optimizer(ctx, optimizers, lower(type));
  // A torch.optim class: its keywords depend on the torch release.
  if (entry == nullptr) return;
  const std::string name = lower(type);
  Built built = built_class(ctx.config, *entry, name, params);
  const json& classes = *member(optimizers, "classes");
  const json* cls = member(classes, built.name);
  if (cls == nullptr) return;
  const json* other = built.other.empty() ? nullptr : member(classes, built.other);
  static const json kNone = json::array();
  const json* popped = member(*entry, "popped");
  if (popped == nullptr) popped = &kNone;
  // The start of every finding's message; made only for a finding (most configs have none).
  auto what = [&] {
    return "\"" + type + "\" makes DeepSpeed build " + std::string(built.name) +
           (built.why.empty() ? "" : " (" + std::string(built.why) + ")");
  };
  if (const json* reads = member(*cls, "reads")) {
    for (const auto& [key, value] : params.get_ref<const json::object_t&>()) {
      if (key == "max_grad_norm" || listed(*reads, key)) continue;
      ctx.report(pointer_join("/optimizer/params", key), Severity::Warning,
                 "optimizer-param-ignored",
                 what() + ", which reads only " + joined(names_of(*reads)) + " from params: \"" +
                     key + "\" is silently ignored" + did_you_mean(key, names_of(*reads)));
    }
    return;
  }
  const json* accepted = member(*cls, "params");
  if (accepted == nullptr) return;  // not DeepSpeed's class (mup): not checked
  const json* set_by = member(*cls, "set_by_deepspeed");
  if (set_by == nullptr) set_by = &kNone;
  // What a user may write, for a hint: the keywords (less max_grad_norm, which DeepSpeed
  // refuses before the call although FusedLamb and the 1-bit optimizers take it) and
  // DeepSpeed's own options. Built only for a finding: most configs have none.
  auto candidates = [&] {
    std::vector<std::string> out;
    for (auto& each : names_of(*accepted)) {
      if (each != "max_grad_norm") out.push_back(std::move(each));
    }
    for (auto& each : names_of(*popped)) out.push_back(std::move(each));
    return out;
  };
  for (const auto& [key, value] : params.get_ref<const json::object_t&>()) {
    if (key == "max_grad_norm") continue;  // refused before the call (check_optimizer)
    if (listed(*popped, key)) continue;
    // (A named reference: clang 14 cannot capture a structured binding.)
    auto pointer = [&, &name = key] { return pointer_join("/optimizer/params", name); };
    if (listed(*set_by, key)) {
      ctx.report(pointer(), Severity::Error, "optimizer-params",
                 what() + ", and passes it \"" + key +
                     "\" itself: given again it fails at initialize (TypeError: multiple "
                     "values for argument \"" +
                     key + "\"); remove it");
      continue;
    }
    if (!listed(*accepted, key)) {
      std::string hint;
      if (other != nullptr && takes(*other, key)) {
        hint = "; " + std::string(built.other) + " (built " + std::string(built.other_why) +
               ") takes it";
      } else {
        const std::vector<std::string> names = candidates();
        hint = did_you_mean(key, names);
        if (hint.empty()) hint = "; it takes " + joined(names);
      }
      ctx.report(pointer(), Severity::Error, "optimizer-params",
                 what() + ", which does not take \"" + key +
                     "\": it fails at initialize (TypeError: unexpected keyword argument)" + hint);
      continue;
    }
    const json* refuses = member(*cls, "refuses_true");
    const json* why = refuses != nullptr ? member(*refuses, key) : nullptr;
    if (why != nullptr && value.is_boolean() && value.get<bool>()) {
      ctx.report(pointer(), Severity::Error, "optimizer-params",
                 what() + ": " + why->get<std::string>() + " at initialize; remove \"" + key +
                     "\" or set it false");
    }
  }
}

// DeepSpeedEngine._do_sanity_check asserts that LAMB and 1-bit LAMB run with dynamic loss
// scaling: the engine's loss scale must be 0. Which loss scale it reads changed in 0.17.1
// (check:loss-scale-from-fp16-section): since, fp16's loss_scale whether fp16 is enabled or not;
// before, fp16's when fp16 was enabled, a static 1.0 when bf16 was, else 0.
void check_lamb_loss_scale(const Context& ctx, const std::string& name,
                           const std::string& written) {
  if (name != "lamb" && name != "onebitlamb") return;
  const json* fp16 = member(ctx.config, "fp16");
  const json* scale = fp16 != nullptr ? member(*fp16, "loss_scale") : nullptr;
  const bool static_scale = scale != nullptr && scale->is_number() && scale->get<double>() != 0;
  const bool fp16_on = enabled_true(fp16);
  std::string why;
  std::string fix = "set fp16.loss_scale to 0 (dynamic) or remove it";
  if (ctx.has("check:loss-scale-from-fp16-section") || fp16_on) {
    if (static_scale) {
      why = "fp16.loss_scale is " + show(*scale) +
            (fp16_on ? "" : ", which it reads although fp16 is not enabled");
    }
  } else if (enabled_true(bf16_section(ctx.config))) {
    why = "with bf16 (and fp16 not enabled) its loss scale is a static 1.0";
    fix =
        "use DeepSpeed 0.17.1 or newer (it reads fp16.loss_scale instead), or fp16 with dynamic "
        "loss scaling";
  }
  if (why.empty()) return;
  ctx.report(static_scale ? "/fp16/loss_scale" : "/optimizer/type", Severity::Error,
             "lamb-loss-scale",
             ctx.deepspeed() + "'s initialize asserts \"DeepSpeed " + name +
                 " optimizer requires dynamic loss scaling\" for \"" + written + "\": " + why +
                 "; " + fix);
}

// The type DeepSpeed cannot build (optimizer-type), else ZeRO's refusals (optimizer-zero).
// Returns true when DeepSpeed finds the type.
bool check_optimizer_type(const Context& ctx, const json& lists, const std::string& written) {
  std::string name = lower(written);
  const json& types = *member(lists, "types");
  const json* entry = own_optimizer(ctx, lists, name);
  const json& torch_names = *member(*member(lists, "torch_optim"), "names");
  if (entry == nullptr && !listed(torch_names, written)) {
    std::vector<std::string> candidates = names_of(torch_names);
    for (const auto& [key, each] : types.items()) {
      if (each.is_object() && ctx.has("optimizer:" + key)) candidates.push_back(key);
    }
    // DeepSpeedEngine._do_sanity_check asserts the name before it builds anything.
    ctx.report("/optimizer/type", Severity::Error, "optimizer-type",
               "\"" + written + "\" is neither one of " + ctx.deepspeed() +
                   "'s optimizers nor a torch.optim class (DeepSpeed looks other names up in "
                   "torch.optim as written): initialize asserts \"" +
                   written + " is not a supported DeepSpeed Optimizer\"" +
                   type_suggestion(written, candidates));
    return false;
  }
  if (entry != nullptr) check_lamb_loss_scale(ctx, name, written);
  if (ctx.stage == 0) return true;
  // A name the release does not know as its own is a torch.optim class, untested under ZeRO
  // (the lists hold DeepSpeed's own names, lower case).
  if (entry == nullptr) name = written;
  if (listed(*member(lists, "zero_incompatible"), name)) {
    ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
               "\"" + written + "\" cannot be used with ZeRO (stage " + std::to_string(ctx.stage) +
                   "); use stage 0 or another optimizer");
  } else if (!listed(*member(lists, "zero_supported"), name) &&
             !is_true(ctx.config, "zero_allow_untested_optimizer")) {
    ctx.report("/optimizer/type", Severity::Error, "optimizer-zero",
               "ZeRO (stage " + std::to_string(ctx.stage) + ") refuses the untested optimizer \"" +
                   written +
                   "\" at initialize; set \"zero_allow_untested_optimizer\": true "
                   "or use Adam, AdamW or Adagrad");
  }
  return true;
}

void check_optimizer(const Context& ctx) {
  const json* found = member(ctx.config, "optimizer");
  if (found == nullptr || !found->is_object()) return;
  const json& lists = schema_part(SchemaPart::Optimizers);
  const json* type = member(*found, "type");
  const json* params = member(*found, "params");
  bool built = type != nullptr && type->is_string() &&
               check_optimizer_type(ctx, lists, type->get_ref<const std::string&>());
  if (params == nullptr || !params->is_object()) return;
  if (member(*params, "max_grad_norm") != nullptr) {
    ctx.report("/optimizer/params/max_grad_norm", Severity::Error, "optimizer-params",
               "DeepSpeed's optimizers do not take max_grad_norm; use the top-level "
               "\"gradient_clipping\"");
  }
  if (built) check_optimizer_params(ctx, lists, type->get_ref<const std::string&>(), *params);
}

void check_scheduler(const Context& ctx) {
  const json* found = member(ctx.config, "scheduler");
  if (found == nullptr || !found->is_object()) return;
  const json& scheduler = *found;
  const json* type = member(scheduler, "type");
  if (type == nullptr || !type->is_string()) return;
  const std::string& name = type->get_ref<const std::string&>();
  const json& known = schema_part(SchemaPart::Schedulers);
  const json& ours = *member(known, "deepspeed");
  const json* signature = ctx.has("scheduler:" + name) ? member(ours, name) : nullptr;
  const json& torch_names = *member(*member(known, "torch_lr_scheduler"), "names");
  if (signature == nullptr && !listed(torch_names, name)) {
    std::vector<std::string> candidates = names_of(torch_names);
    std::string own;
    for (const auto& [key, entry] : ours.items()) {
      if (!ctx.has("scheduler:" + key)) continue;
      candidates.push_back(key);
      own += (own.empty() ? "" : ", ") + key;
    }
    ctx.report("/scheduler/type", Severity::Error, "scheduler-type",
               "\"" + name + "\" is neither a " + ctx.deepspeed() + " scheduler (" + own +
                   ") nor one of torch.optim.lr_scheduler: "
                   "DeepSpeed fails at initialize (\"DeepSpeed does not recognize LR "
                   "scheduler\")" +
                   type_suggestion(name, candidates));
    return;
  }
  const json* params_found = member(scheduler, "params");
  if (params_found == nullptr || params_found->is_null()) {
    ctx.report("/scheduler", Severity::Error, "required-key",
               "DeepSpeed builds " + name +
                   " with **scheduler.params, so a scheduler without params fails at "
                   "initialize (TypeError: argument after ** must be a mapping); add \"params\"");
  }
  if (signature == nullptr) return;  // a torch scheduler: its keywords depend on the torch release
  static const json empty = json::object();
  const json& params = params_found != nullptr && params_found->is_object() ? *params_found : empty;
  const json& accepted = *member(*signature, "params");
  const json& set_by = *member(known, "set_by_deepspeed");
  for (const auto& [key, value] : params.get_ref<const json::object_t&>()) {
    if (listed(accepted, key)) continue;
    std::string pointer = pointer_join("/scheduler/params", key);
    if (listed(set_by, key)) {
      ctx.report(pointer, Severity::Error, "scheduler-params",
                 "DeepSpeed passes \"" + key + "\" to " + name +
                     " itself: given again it fails at initialize (TypeError: multiple values); "
                     "remove it");
      continue;
    }
    std::string near = closest(key, names_of(accepted));
    ctx.report(pointer, Severity::Error, "scheduler-params",
               name + " does not take \"" + key + "\" (the constructor fails at initialize)" +
                   (near.empty() ? "; remove it" : "; did you mean \"" + near + "\"?"));
  }
  if (params_found != nullptr && !params_found->is_null()) {
    for (const auto& each : *member(*signature, "required")) {
      const std::string& required = each.get_ref<const std::string&>();
      if (member(params, required) != nullptr) continue;
      ctx.report(
          "/scheduler/params", Severity::Error, "required-key",
          name + " needs " + required +
              (required == "total_num_steps" ? "; add it (\"auto\" lets the HF Trainer fill it)"
                                             : "; add it (the constructor has no default for it)"));
    }
  }
  if (listed(*member(known, "warmup"), name) && ctx.has("check:warmup-positive-integer")) {
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

// DeepSpeed's engine.zero_use_cpu_optimizer: offload_optimizer.device cpu or nvme, at any
// stage (the deprecated cpu_offload: true maps to device cpu).
bool optimizer_offloaded(const json& config) {
  const json* zero = member(config, "zero_optimization");
  if (zero == nullptr || !zero->is_object()) return false;
  if (const json* block = member(*zero, "offload_optimizer"); block && block->is_object()) {
    const json* device = member(*block, "device");
    if (device != nullptr && device->is_string()) {
      const auto& d = device->get_ref<const std::string&>();
      if (d == "cpu" || d == "nvme") return true;
    }
  }
  return is_true(*zero, "cpu_offload");
}

void check_training(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  check_required(ctx);
  check_optimizer(ctx);
  check_scheduler(ctx);
  check_vocabulary(ctx);
}

}  // namespace zf::deepspeed
