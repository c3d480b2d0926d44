// SPDX-License-Identifier: MIT
// Rule family "auto": the string "auto" is a Hugging Face Trainer placeholder. Raw DeepSpeed
// crashes on it or silently swaps in defaults; the Trainer fills only the keys it knows.
#include "rules.hpp"

namespace zf::validate {
namespace {

bool native_auto(const Context& ctx, const std::string& pointer) {
  for (const auto& prefix : ctx.schema.at("native_auto").at("prefixes")) {
    const auto& p = prefix.get_ref<const std::string&>();
    if (pointer.compare(0, p.size(), p) == 0) return true;
  }
  return false;
}

const json* hf_fill(const Context& ctx, const std::string& pointer) {
  for (const auto& fill : ctx.schema.at("hf_trainer").at("fills")) {
    if (fill.at("pointer").get_ref<const std::string&>() == pointer) return &fill;
  }
  return nullptr;
}

// Which kind of section holds `pointer`: the schema node of its parent object (a node of the
// schema data or of resolve's cache, so child_node may index it).
const json& parent_section(const Context& ctx, const std::string& pointer) {
  static const json open = json::object({{"kind", "open"}});
  json::json_pointer ptr(pointer);
  std::vector<std::string> segments;
  while (!ptr.empty()) {
    segments.insert(segments.begin(), ptr.back());
    ptr.pop_back();
  }
  const json* node = &root_node(ctx.schema);
  if (segments.empty()) return *node;
  segments.pop_back();
  for (const auto& segment : segments) {
    const json* child = child_node(ctx.schema, *node, segment);
    if (child == nullptr) return open;
    const json* next = &resolve(ctx.schema, *child);
    if (next->contains("alias_of")) {
      next = &resolve(ctx.schema, node->at("keys").at(next->at("alias_of").get<std::string>()));
    }
    node = next;
  }
  return *node;
}

std::string raw_consequence(const Context& ctx, const std::string& pointer) {
  if (pointer == "/train_batch_size" || pointer == "/train_micro_batch_size_per_gpu" ||
      pointer == "/gradient_accumulation_steps") {
    return "raw DeepSpeed compares it with integers and crashes (TypeError)";
  }
  const json& section = parent_section(ctx, pointer);
  if (section.value("kind", "dict") == "pydantic") {
    std::string key = json::json_pointer(pointer).back();
    std::string what = "its default";
    if (const json* node = child_node(ctx.schema, section, key)) {
      const json& resolved = resolve(ctx.schema, *node);
      if (resolved.contains("default")) what = "the default " + show(resolved.at("default"));
    }
    return "raw DeepSpeed drops \"auto\" in this section and silently uses " + what;
  }
  return "raw DeepSpeed passes the string \"auto\" on as the value";
}

void visit(const Context& ctx, const json& value, const PointerPath& path, bool top) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      // Keys DeepSpeed ignores are reported by the keys family; what they hold does not matter.
      if (top && child_node(ctx.schema, root_node(ctx.schema), key) == nullptr) continue;
      visit(ctx, child, PointerPath{&path, key}, false);
    }
    return;
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) visit(ctx, value[i], PointerPath{&path, {}, i, true}, false);
    return;
  }
  if (!is_auto(value)) return;
  const std::string pointer = path.str();
  if (native_auto(ctx, pointer)) return;
  const json* fill = hf_fill(ctx, pointer);
  if (!ctx.options.hf) {
    ctx.report(pointer, Severity::Error, "auto-without-hf",
               "\"auto\" is filled only by the Hugging Face Trainer; " + raw_consequence(ctx, pointer) +
                   (fill ? ". Validate with --hf if the Trainer loads this file, otherwise write a value"
                         : ". Write a value"));
    return;
  }
  if (fill != nullptr && fill->contains("stage") && ctx.stage < fill->at("stage").get<int>()) {
    return;  // not filled below stage 3, but the key has no effect there (zero-key-stage says so)
  }
  if (fill == nullptr) {
    std::string message = "the HF Trainer does not fill \"auto\" here, so " + raw_consequence(ctx, pointer);
    if (pointer == "/bfloat16/enabled") {
      message += " (bf16 stays off); the Trainer fills only \"bf16\": rename the section to \"bf16\"";
    } else if (pointer == "/zero_optimization/prefetch_bucket_size" ||
               pointer == "/zero_optimization/param_persistence_threshold") {
      message += "; the Trainer fills only the \"stage3_\" spelling of this key";
    } else {
      message += "; write a value";
    }
    ctx.report(pointer, Severity::Error, "auto-not-filled", message);
    return;
  }
  if (pointer == "/scheduler/params/warmup_num_steps") {
    bool warmup_given = ctx.options.against &&
                        ((ctx.options.against->warmup_steps && *ctx.options.against->warmup_steps > 0) ||
                         (ctx.options.against->warmup_ratio && *ctx.options.against->warmup_ratio > 0));
    if (!warmup_given) {
      ctx.report(pointer, Severity::Warning, "hf-warmup-auto",
                 "the Trainer fills this from --warmup_steps (or --warmup_ratio), which default to 0, and "
                 "DeepSpeed >= 0.19.3 rejects warmup_num_steps 0; pass --warmup_steps N (N > 0) or write a value");
    }
  }
}

}  // namespace

void check_auto(const Context& ctx) {
  if (ctx.config.is_object()) visit(ctx, ctx.config, PointerPath{}, true);
}

}  // namespace zf::validate
