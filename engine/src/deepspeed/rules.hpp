// SPDX-License-Identifier: MIT
// What every rule family shares: the config under check, the options, the schema facts, and
// one way to report a finding. Each family lives in its own rules_*.cpp.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deepspeed/release.hpp"
#include "deepspeed/schema_facts.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/finding.hpp"
#include "zeroforge/validate_options.hpp"

namespace zf::deepspeed {

using json = nlohmann::ordered_json;

/// One validation run over one config.
struct Context {
  const json& config;
  const ValidateOptions& options;
  const std::string& file;
  std::vector<Finding>& findings;
  int stage = 0;  ///< the ZeRO stage DeepSpeed will run (0 when absent or not a valid value)
  ReleaseIndex release = 0;  ///< the DeepSpeed release the config is judged by
  /// Keys of the config that other releases have and this one lacks (check_keys reports them
  /// and lists their pointers here; the other families then judge the config without them).
  std::vector<std::string>* absent_keys = nullptr;

  void report(std::string pointer, Severity severity, const char* rule, std::string message) const;
  /// True when the release has `feature` ("check:warmup-positive-integer", "optimizer:muon").
  bool has(std::string_view feature) const { return feature_at(feature, release); }
  /// "DeepSpeed" for the newest release, "DeepSpeed 0.16.2" for another: messages name the
  /// release only when one was chosen.
  std::string deepspeed() const;
};

// Rule families, run in this order by validate_config.
void check_keys(
    const Context& ctx);  // unknown-key, ignored-key, type, bounds, enum, integer-required, alias,
                          // alias-conflict, deprecated, deprecated-conflict
/// With --hf: the config as accelerate's DeepSpeedPlugin leaves it (its fills applied), or
/// nullopt when it fills nothing; reports accelerate-no-zero, accelerate-inserts and
/// accelerate-fills. Runs before the families below, which judge what it returns.
std::optional<json> accelerate_filled(const Context& ctx);
/// With --hf: accelerate-autotp-release, over the config as written (before check_keys' pruning
/// of keys the release lacks: accelerate reads tensor_parallel whatever DeepSpeed reads).
void check_accelerate_autotp(const Context& ctx);
/// With --hf: accelerate-client-optimizer, over the config accelerate hands on.
void check_accelerate_client_optimizer(const Context& ctx);
void check_auto(const Context& ctx);  // auto-without-hf, auto-dropped, auto-not-filled,
                                      // hf-warmup-auto, hf-warmup-zero
void check_batch(
    const Context& ctx);  // batch-missing, batch-mismatch, batch-world-size, elasticity-batch
void check_zero(const Context& ctx);  // zero-disabled-keys, zero-key-stage, no-effect, offload-*,
                                      // nvme-path-missing, pin-memory-no-offload, allreduce-sum,
                                      // hpz-partition-size, autocast-quantized-weights
void check_precision(
    const Context& ctx);  // fp16-bf16-both, bf16-legacy-ignored, loss-scale-with-bf16,
                          // master-weights, amp-conflict, bounds (dynamic loss scale)
void check_training(const Context& ctx);     // required-key, optimizer-type, optimizer-zero,
                                             // lamb-loss-scale,
                                             // optimizer-params, optimizer-param-ignored,
                                             // scheduler-type, scheduler-params, warmup-steps,
                                             // vocabulary-size
void check_compression(const Context& ctx);  // no-effect (a disabled technique's settings)
void check_regressions(const Context& ctx);  // known-regression (a pinned release only)
// The args-* family, check_against_args, compares the config with the training command the
// validator parsed: it is the validator's own (validate/against_args.hpp).

/// A key as accelerate names it: the pointer's segments joined by dots (rules_accelerate.cpp).
std::string dotted_key(const std::string& pointer);
/// DeepSpeed's engine.zero_use_cpu_optimizer: offload_optimizer.device cpu or nvme, at any
/// stage, or the deprecated cpu_offload: true (rules_training.cpp).
bool optimizer_offloaded(const json& config);

// Helpers over the schema data and JSON values (schema.cpp).

/// A part of the schema data as JSON, parsed on its first use (thread-safe).
const json& schema_part(SchemaPart part);
/// The HF Trainer's fill of "auto" at `pointer` ({"pointer", "from"[, "stage"]}), or nullptr.
const json* trainer_fill(std::string_view pointer);
/// The member `key` of `object`, or nullptr (also when `object` is not an object). Compares
/// lengths first: nlohmann's own find measures a C string key again for every member.
inline const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  for (const auto& [name, value] : object.get_ref<const json::object_t&>()) {
    if (name == key) return &value;
  }
  return nullptr;
}
/// A JSON pointer made only when a finding needs it: the walks visit every key of every
/// config and rarely report. A path without parent is the document root ("").
struct PointerPath {
  const PointerPath* parent = nullptr;
  std::string_view key;   ///< the segment, unescaped
  std::size_t index = 0;  ///< the segment when `is_index`
  bool is_index = false;
  std::string str() const;
};
/// Escapes and appends one pointer segment.
std::string pointer_join(const std::string& pointer, std::string_view key);
/// The value at `pointer` or nullptr.
const json* at_pointer(const json& document, const std::string& pointer);
/// True for a JSON string "auto". Inline, comparing lengths first: the walks ask it of every
/// value of every config.
inline bool is_auto(const json& value) {
  return value.is_string() && value.get_ref<const std::string&>() == std::string_view("auto");
}
/// A JSON integer, or a float with an integral value, as an integer.
std::optional<long long> as_integer(const json& value);
/// "true"/"false" or the value's JSON text, for messages.
std::string show(const json& value);
/// The closest name in `candidates` within a small edit distance, or "".
std::string closest(std::string_view key, const std::vector<std::string>& candidates);
/// "1-2", "3", "1-3": the stages of a NodeFacts::stage_mask as text.
std::string stages_text(unsigned stage_mask);
/// The effective ZeRO stage of a config (see Context::stage).
int zero_stage(const json& config);
/// The active bf16 section: `bf16`, else legacy `bfloat16`, else nullptr.
const json* bf16_section(const json& config);
/// The boolean `enabled` of a section when it is literally true.
bool enabled_true(const json* section);
/// True when `object` is an object whose `key` is literally true.
bool is_true(const json& object, std::string_view key);

/// `s` in ASCII lower case: how DeepSpeed compares an optimizer's type with its own names.
inline std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace zf::deepspeed
