// SPDX-License-Identifier: MIT
// What the validator knows about each node of the schema data, as constant tables that
// engine/tools/compile_schema.cpp writes from deepspeed_schema.json at build time: a process
// pays nothing to load them, and a walk over a config never searches JSON. One table serves
// every DeepSpeed release: a node says which releases have it and what it was before a change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "deepspeed/key_index.hpp"

namespace zf::deepspeed {

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

/// A DeepSpeed release, by its position among releases() (oldest first).
using ReleaseIndex = std::uint8_t;

/// Releases [since, until) (a key's or a feature's presence).
struct ReleaseRange {
  ReleaseIndex since = 0;
  ReleaseIndex until = 0;
  bool contains(ReleaseIndex release) const { return release >= since && release < until; }
};

/// True when `ranges` hold `release`; no ranges at all means every release.
inline bool in_releases(std::span<const ReleaseRange> ranges, ReleaseIndex release) {
  if (ranges.empty()) return true;
  for (const ReleaseRange& range : ranges) {
    if (range.contains(release)) return true;
  }
  return false;
}

struct NodeFacts;

/// A node's facts before release `until` (its default or kind changed then).
struct NodeEra {
  ReleaseIndex until = 0;
  const NodeFacts* facts = nullptr;
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
  std::span<const ReleaseRange>
      releases;                   ///< where it (and its section) exists; empty: every release
  std::span<const NodeEra> eras;  ///< older facts, `until` ascending

  /// The facts of the section's key `name`, or nullptr for a key no release has. A key some
  /// release lacks says so by present_at.
  const NodeFacts* key(std::string_view name) const { return keys.find(name); }
  /// True when DeepSpeed `release` has this key (its parent being read).
  bool present_at(ReleaseIndex release) const { return in_releases(releases, release); }
  /// The facts as release `release` saw them.
  const NodeFacts& at(ReleaseIndex release) const {
    for (const NodeEra& era : eras) {
      if (release < era.until) return *era.facts;
    }
    return *this;
  }
  /// True when the key acts at ZeRO stage `stage`.
  bool acts_at(int stage) const { return (stage_mask >> stage & 1U) != 0; }
};

/// The facts of the schema's root: the config's top level.
const NodeFacts& root_facts();

/// One DeepSpeed release the schema data knows (its "releases" block).
struct ReleaseFacts {
  std::string_view version;
  std::string_view commit;
};
/// Every release, oldest first; the last is the newest (the one the schema data describes).
std::span<const ReleaseFacts> releases();

/// Something besides config keys that some releases have: a DeepSpeed optimizer or scheduler
/// name ("optimizer:muon", "scheduler:WarmupCosineLR") or a check a rule follows
/// ("check:warmup-positive-integer"), with the releases it exists in.
struct FeatureFacts {
  std::string_view name;
  std::span<const ReleaseRange> releases;
};
/// The features whose presence changed; any other feature exists in every release.
std::span<const FeatureFacts> features();

/// The parts of the schema data that rules read as JSON, parsed on first use.
enum class SchemaPart { Optimizers, Schedulers, HfTrainer, Accelerate, NativeAuto };
inline constexpr std::size_t kSchemaParts = 5;  ///< the number of SchemaPart values
/// A part's JSON text (compact).
std::string_view schema_part_text(SchemaPart part);

}  // namespace zf::deepspeed
