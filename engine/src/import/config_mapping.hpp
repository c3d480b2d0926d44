// SPDX-License-Identifier: MIT
// One DeepSpeed config read back into the values of the built-in DeepSpeed template: each
// part the values can say is a Binding (values it sets, config keys it accounts for), and
// everything no active binding accounts for goes into the passthrough value `extra`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/validator.hpp"

namespace zf::importer {

using Json = nlohmann::ordered_json;
/// A path of object keys, into a config or into values.
using Path = std::vector<std::string>;

/// `/a/b~1c` for {"a", "b/c"}.
std::string to_pointer(const Path& path);
/// The keys of a JSON pointer (`~0`, `~1` unescaped); "" is the root.
Path from_pointer(std::string_view pointer);
/// True when `prefix` is `path` or one of its ancestors.
bool is_prefix(const Path& prefix, const Path& path);
/// The value at `path` in `root` (object keys all the way), or nullptr.
const Json* value_at(const Json& root, const Path& path);

/// The GPUs the family's tier gives a member, which the batch arithmetic is solved against.
struct Cluster {
  std::string tier;                        ///< the tier's name, "" without one
  std::int64_t gpus = 1;                   ///< gpus_per_node x nodes
  std::optional<std::int64_t> world_size;  ///< the tier's own world_size, if it sets one
  std::int64_t world() const { return world_size.value_or(gpus); }
};

/// One part of a config the template's values can say.
struct Binding {
  std::string what;  ///< for messages: "zero.overlap_comm"
  /// Values it sets (value path, value) when active.
  std::vector<std::pair<Path, Json>> values;
  /// The config keys it writes when active (the template writes them from `values`).
  std::vector<Path> keys;
  /// Config objects it makes the template write: a binding with a key inside one depends on
  /// this one, and is demoted with it.
  std::vector<Path> roots;
  /// Trainer keys it writes as "auto" (hf_auto), and batch keys it writes (batch_keys).
  std::vector<std::string> hf_keys;
  std::vector<std::string> batch_keys;
  /// Bindings of which one must stay active (the aio block needs an NVMe offload).
  std::vector<std::size_t> requires_any;
  bool active = true;
  /// Why it was demoted, for the import report ("" while active).
  std::string demoted_because;
};

/// A finding of the mapping itself (how the batch arithmetic was solved), for the import report.
struct MappingNote {
  std::string pointer;
  Severity severity = Severity::Note;
  std::string message;
};

/// A config read into bindings.
struct ConfigMapping {
  /// Values every template knob takes when no binding sets it: the form that writes nothing.
  Json baseline;
  std::vector<Binding> bindings;
  std::vector<MappingNote> notes;
};

/// Reads `config` (a JSON object) into bindings for the template `deepspeed/config.json.j2`,
/// solving its batch keys against `cluster`.
ConfigMapping map_config(const Json& config, const Cluster& cluster);

/// The member values the active bindings give: the baseline, each active binding's values,
/// `hf_auto` (true when the Trainer keys said "auto" are all that `true` writes), `batch_keys`,
/// and `extra`: `config` less every key an active binding writes.
Json assemble(const ConfigMapping& mapping, const Json& config);

/// Turns binding `index` off, and every binding that depends on it (a key inside one of its
/// roots, or nothing left of its requires_any), so the template stops writing their keys and
/// `extra` carries them as the config has them. `because` says why, for the report.
void demote(ConfigMapping& mapping, std::size_t index, const std::string& because);

/// The binding (active or not) that writes config `pointer` or a key inside it, if any.
const Binding* binding_of_key(const ConfigMapping& mapping, std::string_view pointer);

/// The active binding that set the value at `pointer` (the deepest value path that is
/// `pointer` or above it; `/hf_auto/N` and `/batch_keys` by what they list), if any.
std::optional<std::size_t> owner_of_value(const ConfigMapping& mapping, const Json& values,
                                          std::string_view pointer);

/// The active bindings that write config `pointer`: a key at, above or below it, or an object
/// below it; else the one whose object holds it (carried whole).
std::vector<std::size_t> owners_of_key(const ConfigMapping& mapping, std::string_view pointer);

}  // namespace zf::importer
