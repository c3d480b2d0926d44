// SPDX-License-Identifier: MIT
// What the validator knows about each node of the schema data, as constant tables that
// engine/tools/compile_schema.cpp writes from deepspeed_schema.json at build time: a process
// pays nothing to load them, and a walk over a config never searches JSON.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "validate/key_index.hpp"

namespace zf::validate {

/// A JSON type a schema key accepts (`type` in the schema data).
enum class ValueType { Any, Integer, Number, Boolean, String, Array, Object };

/// One value of a key's `enum`.
struct EnumChoice {
  enum class Kind { String, Number, Boolean, Null };
  Kind kind = Kind::Null;
  std::string_view text;    ///< as JSON text (nlohmann's dump), for messages
  std::string_view string;  ///< Kind::String
  double number = 0;        ///< Kind::Number
  bool boolean = false;     ///< Kind::Boolean
};

/// A key DeepSpeed used to read in a section, and what became of it (`removed`).
struct RemovedKey {
  std::string_view name;
  std::string_view why;
};

/// The facts of one schema node, `$ref` resolved (a referring node's own fields, such as
/// `stages`, merged over the section it names). A section reaches its keys' facts by name.
struct NodeFacts {
  enum class Kind { Dict, Pydantic, Open };
  bool section = false;  ///< has `keys` or `kind`: walked as an object
  Kind kind = Kind::Dict;
  bool legacy_bool = false;
  bool nullable = false;
  bool strict_int = false;
  bool alias = false;                    ///< has `alias_of`
  std::string_view alias_of;             ///< the sibling an alias names
  bool legacy = false;                   ///< an alias DeepSpeed reads only without its sibling
  const NodeFacts* canonical = nullptr;  ///< for an alias: the facts of that sibling
  bool deprecated = false;               ///< has `deprecated`
  std::string_view deprecated_why;       ///< `deprecated`: what to write instead
  std::string_view replaced_by;          ///< `replaced_by`, or empty
  std::span<const ValueType> types;      ///< `type` (one or a list), in the schema's order
  unsigned type_mask = 0;                ///< bit t set when `types` lists ValueType t
  bool any_type = true;                  ///< no `type`, or "any" among them: anything goes
  std::optional<double> min;
  std::string_view min_text;  ///< `min` as JSON text, for messages
  std::optional<double> max;
  std::string_view max_text;  ///< `max` as JSON text, for messages
  bool has_enum = false;
  std::span<const EnumChoice> enum_values;
  std::string_view doc;                          ///< `doc`, or empty
  bool has_stages = false;                       ///< the key acts at some ZeRO stages only
  unsigned stage_mask = 0;                       ///< bit s set when `stages` lists stage s
  std::optional<std::string_view> no_effect;     ///< why a key does nothing
  std::optional<std::string_view> default_text;  ///< `default` as JSON text
  std::span<const RemovedKey> removed;           ///< a section's `removed` keys
  KeyIndex keys;                                 ///< a section's `keys`

  /// The facts of the section's key `name`, or nullptr for a key it does not have.
  const NodeFacts* key(std::string_view name) const { return keys.find(name); }
  /// True when the key acts at ZeRO stage `stage`.
  bool acts_at(int stage) const { return (stage_mask >> stage & 1U) != 0; }
};

/// The facts of the schema's root: the config's top level.
const NodeFacts& root_facts();

/// The parts of the schema data that rules read as JSON, parsed on first use.
enum class SchemaPart { Optimizers, Schedulers, HfTrainer, NativeAuto };
/// A part's JSON text (compact).
std::string_view schema_part_text(SchemaPart part);

}  // namespace zf::validate
