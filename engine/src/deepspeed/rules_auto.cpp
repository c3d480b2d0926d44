// SPDX-License-Identifier: MIT
// Rule family "auto": the string "auto" is a Hugging Face Trainer placeholder. Raw DeepSpeed
// crashes on it or silently swaps in defaults; the Trainer fills only the keys it knows, then
// accelerate fills a few more (rules_accelerate.cpp, already applied to the config judged
// here) and raises on any "auto" left in an object before DeepSpeed reads the config.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "deepspeed/accelerate_facts.hpp"
#include "rules.hpp"

namespace zf::deepspeed {
namespace {

bool native_auto(const std::string& pointer) {
  for (const auto& prefix : schema_part(SchemaPart::NativeAuto).at("prefixes")) {
    const auto& p = prefix.get_ref<const std::string&>();
    if (pointer.compare(0, p.size(), p) == 0) return true;
  }
  return false;
}

// The facts of the section that holds `pointer` as `release` saw them, or nullptr when a key
// on the way is not in the schema (an open place).
const NodeFacts* parent_section(const std::string& pointer, ReleaseIndex release) {
  json::json_pointer ptr(pointer);
  std::vector<std::string> segments;
  while (!ptr.empty()) {
    segments.insert(segments.begin(), ptr.back());
    ptr.pop_back();
  }
  const NodeFacts* facts = &root_facts();
  if (segments.empty()) return facts;
  segments.pop_back();
  for (const auto& segment : segments) {
    const NodeFacts* child = facts->key(segment);
    if (child == nullptr) return nullptr;
    facts = &(child->alias ? child->canonical : child)->at(release);
  }
  return facts;
}

// What raw DeepSpeed does with an "auto" at `pointer`. `dropped`: a pydantic section drops it
// before validation and runs with the field's default (DeepSpeedConfigModel's constructor
// removes every "auto" of its own keys), so the config runs, not as the author meant; anywhere
// else the string reaches code that needs a number or a flag and fails there.
struct RawAuto {
  bool dropped = false;
  std::string consequence;
};

RawAuto raw_consequence(const Context& ctx, const std::string& pointer, bool in_list) {
  if (pointer == "/train_batch_size" || pointer == "/train_micro_batch_size_per_gpu" ||
      pointer == "/gradient_accumulation_steps") {
    return {false, "raw DeepSpeed compares it with integers and crashes (TypeError)"};
  }
  const NodeFacts* section = in_list ? nullptr : parent_section(pointer, ctx.release);
  if (section != nullptr && section->kind == NodeFacts::Kind::Pydantic) {
    std::string key = json::json_pointer(pointer).back();
    std::string what = "its default";
    if (const NodeFacts* node = section->key(key);
        node != nullptr && node->at(ctx.release).default_text)
      what = "the default " + std::string(*node->at(ctx.release).default_text);
    return {true, "raw DeepSpeed drops \"auto\" in this section and runs with " + what};
  }
  return {false, "raw DeepSpeed passes the string \"auto\" on as the value"};
}

// True when `value` is or holds the string "auto". Most configs hold none: this scan lets
// check_auto pass them without building a pointer or reading the schema. Scalars, most of
// the values, are tested in place rather than by a call each.
bool holds_auto(const json& value) {
  auto in = [](const json& child) {
    return child.is_structured() ? holds_auto(child) : is_auto(child);
  };
  if (value.is_object()) {
    const auto& members = value.get_ref<const json::object_t&>();
    return std::any_of(members.begin(), members.end(), [&](const auto& m) { return in(m.second); });
  }
  if (value.is_array()) {
    const auto& items = value.get_ref<const json::array_t&>();
    return std::any_of(items.begin(), items.end(), in);
  }
  return is_auto(value);
}

// What accelerate says of an "auto" nobody filled: Accelerator.prepare runs fill_match over
// every key of the config (objects only: it does not look into lists) and raises.
std::string accelerate_raises(const std::string& pointer) {
  return "accelerate's Accelerator.prepare raises ValueError (\"`" + dotted_key(pointer) +
         "` not found in kwargs\") before DeepSpeed reads the config";
}

void visit(const Context& ctx, const json& value, const PointerPath& path, bool in_list) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.get_ref<const json::object_t&>()) {
      visit(ctx, child, PointerPath{&path, key}, in_list);
    }
    return;
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      visit(ctx, value[i], PointerPath{&path, {}, i, true}, true);
    return;
  }
  if (!is_auto(value)) return;
  const std::string pointer = path.str();
  if (native_auto(pointer)) {
    // DeepSpeed takes "auto" here itself; on the Trainer's path accelerate sees it first.
    if (ctx.options.hf && !in_list) {
      ctx.report(pointer, Severity::Error, "auto-not-filled",
                 ctx.deepspeed() + " itself accepts \"auto\" here, but the HF Trainer hands the " +
                     "config to accelerate, and " + accelerate_raises(pointer) +
                     "; write the value DeepSpeed would choose");
    }
    return;
  }
  const json* fill = trainer_fill(pointer);
  if (!ctx.options.hf) {
    // Where DeepSpeed drops it the config runs (with the default): a warning, as a key DeepSpeed
    // ignores is; where the string reaches the code it fails there: an error.
    const RawAuto raw = raw_consequence(ctx, pointer, in_list);
    const std::string value = raw.dropped ? "the value you mean" : "a value";
    const bool trainer_fills =
        fill || accelerate_fill(accelerate_facts(ctx.options.accelerate_version), pointer);
    ctx.report(
        pointer, raw.dropped ? Severity::Warning : Severity::Error,
        raw.dropped ? "auto-dropped" : "auto-without-hf",
        "\"auto\" is filled only by the Hugging Face Trainer; " + raw.consequence +
            (trainer_fills ? ". Validate with --hf if the Trainer loads this file, otherwise write "
                           : ". Write ") +
            value);
    return;
  }
  if (fill != nullptr && fill->contains("stage") && ctx.stage < fill->at("stage").get<int>()) {
    return;  // not filled below stage 3, but the key has no effect there (zero-key-stage says so)
  }
  if (fill == nullptr) {
    std::string message =
        in_list ? "neither the HF Trainer nor accelerate fills \"auto\" inside a list, so " +
                      raw_consequence(ctx, pointer, true).consequence
                : "neither the HF Trainer nor accelerate fills \"auto\" here: " +
                      accelerate_raises(pointer);
    if (pointer == "/bfloat16/enabled") {
      message += "; the Trainer fills only \"bf16\": rename the section to \"bf16\"";
    } else if (pointer == "/zero_optimization/prefetch_bucket_size" ||
               pointer == "/zero_optimization/param_persistence_threshold") {
      message += "; the Trainer fills only the \"stage3_\" spelling of this key";
    } else {
      message += "; write a value";
    }
    ctx.report(pointer, Severity::Error, "auto-not-filled", message);
    return;
  }
  if (pointer == "/scheduler/params/warmup_num_steps" && ctx.has("check:warmup-positive-integer")) {
    bool warmup_given =
        ctx.options.against &&
        ((ctx.options.against->warmup_steps && *ctx.options.against->warmup_steps > 0) ||
         (ctx.options.against->warmup_ratio && *ctx.options.against->warmup_ratio > 0));
    if (warmup_given) return;
    if (ctx.options.against) {
      // The launch is known and sets no warmup: the Trainer fills 0, and initialize refuses it.
      ctx.report(pointer, Severity::Error, "hf-warmup-zero",
                 "the launch passes neither --warmup_steps nor --warmup_ratio (above 0), so the "
                 "Trainer fills 0, and " +
                     ctx.deepspeed() +
                     "'s scheduler raises ValueError (\"warmup_num_steps must be a positive "
                     "integer, got 0\") at initialize; pass --warmup_steps N (N > 0) or write "
                     "a value");
    } else {
      ctx.report(
          pointer, Severity::Warning, "hf-warmup-auto",
          "the Trainer fills this from --warmup_steps (or --warmup_ratio), which default to 0, and "
          "DeepSpeed >= 0.19.3 rejects warmup_num_steps 0; pass --warmup_steps N (N > 0) or write "
          "a value");
    }
  }
}

}  // namespace

void check_auto(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  const PointerPath root;
  for (const auto& [key, child] : ctx.config.get_ref<const json::object_t&>()) {
    // Keys DeepSpeed ignores are reported by the keys family; what they hold does not matter.
    if (!holds_auto(child) || root_facts().key(key) == nullptr) continue;
    visit(ctx, child, PointerPath{&root, key}, false);
  }
}

}  // namespace zf::deepspeed
