// SPDX-License-Identifier: MIT
// What every rule family shares: the config under check, the options, the schema data, and
// one way to report a finding. Each family lives in its own rules_*.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validate/key_table.hpp"
#include "zeroforge/validator.hpp"

namespace zf::validate {

using json = nlohmann::ordered_json;

/// One validation run over one config.
struct Context {
  const json& config;
  const ValidateOptions& options;
  const std::string& file;
  const json& schema;  ///< deepspeed_schema_data()
  std::vector<Finding>& findings;
  int stage = 0;  ///< the ZeRO stage DeepSpeed will run (0 when absent or not a valid value)

  void report(std::string pointer, Severity severity, const char* rule, std::string message) const;
};

// Rule families, run in this order by validate_config.
void check_keys(
    const Context& ctx);  // unknown-key, ignored-key, type, bounds, enum, integer-required, alias,
                          // alias-conflict, deprecated, deprecated-conflict
void check_auto(const Context& ctx);  // auto-without-hf, auto-not-filled, hf-warmup-auto
void check_batch(
    const Context& ctx);  // batch-missing, batch-mismatch, batch-world-size, elasticity-batch
void check_zero(const Context& ctx);  // zero-disabled-keys, zero-key-stage, no-effect, offload-*,
                                      // nvme-path-missing, pin-memory-no-offload, allreduce-sum,
                                      // hpz-partition-size, autocast-quantized-weights
void check_precision(
    const Context& ctx);  // fp16-bf16-both, bf16-legacy-ignored, loss-scale-with-bf16,
                          // master-weights, amp-conflict, bounds (dynamic loss scale)
void check_training(const Context& ctx);  // required-key, optimizer-type, optimizer-zero,
                                          // optimizer-params, optimizer-param-ignored,
                                          // scheduler-type, scheduler-params, warmup-steps,
                                          // vocabulary-size
void check_against_args(const Context& ctx, const TrainingCommand& command);  // args-*

// Helpers over the schema data and JSON values (schema.cpp).

/// The node of the config's top level.
const json& root_node(const json& schema);
/// Resolves a `$ref` node of the embedded schema data to its section (merging the referring
/// node's extra fields, such as `stages`); other nodes are returned as they are.
const json& resolve(const json& node);
/// A JSON type a schema key accepts (`type` in the schema data).
enum class ValueType { Any, Integer, Number, Boolean, String, Array, Object, Unknown };
/// What the walks need to know about one schema node, worked out once per node of the embedded
/// schema data (schema.cpp): a section reaches its keys' facts by name, so a walk over a config
/// never searches the node's JSON object field by field, nor looks a node up by its address.
struct NodeFacts {
  enum class Kind { Dict, Pydantic, Open };
  const json* resolved = nullptr;  ///< the node with `$ref` resolved (see resolve)
  bool section = false;            ///< has `keys` or `kind`: walked as an object
  Kind kind = Kind::Dict;
  bool legacy_bool = false;
  bool nullable = false;
  bool strict_int = false;
  bool alias = false;                    ///< has `alias_of`
  const NodeFacts* canonical = nullptr;  ///< for an alias: the facts of the sibling it names
  bool deprecated = false;               ///< has `deprecated`
  std::vector<ValueType> types;          ///< `type` (one or a list), in the schema's order
  unsigned type_mask = 0;                ///< bit t set when `types` lists ValueType t
  bool any_type = true;                  ///< no `type`, or "any" among them: anything goes
  std::optional<double> min, max;
  const json* enum_values = nullptr;
  const json* stages = nullptr;     ///< the ZeRO stages a key acts at
  unsigned stage_mask = 0;          ///< bit s set when `stages` lists stage s
  const json* no_effect = nullptr;  ///< why a key does nothing
  /// The section's `keys`, by name, each with its own facts.
  KeyTable<const NodeFacts*> keys;

  /// The facts of the section's key `name`, or nullptr for a key it does not have.
  const NodeFacts* key(std::string_view name) const { return keys.find(name); }
  /// True when the key acts at ZeRO stage `stage`.
  bool acts_at(int stage) const { return (stage_mask >> stage & 1U) != 0; }
};
/// The facts of the embedded schema's root: the config's top level.
const NodeFacts& root_facts();
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
/// "1-2", "3", "1-3": a sorted list of stages as text.
std::string stages_text(const json& stages);
/// The effective ZeRO stage of a config (see Context::stage).
int zero_stage(const json& config);
/// The active bf16 section: `bf16`, else legacy `bfloat16`, else nullptr.
const json* bf16_section(const json& config);
/// The boolean `enabled` of a section when it is literally true.
bool enabled_true(const json* section);
/// True when `object` is an object whose `key` is literally true.
bool is_true(const json& object, std::string_view key);

}  // namespace zf::validate
