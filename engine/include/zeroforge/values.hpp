// SPDX-License-Identifier: MIT
// Values and layering: JSON objects merged in order (later layers win), each leaf
// remembering the layer it came from so `explain` and errors can name it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>  // full type: LayeredValues holds ordered_json members
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zf {

/// Where a layer of values comes from, lowest precedence first.
enum class LayerKind { TemplateDefault, Tier, Family, Variant, ValuesFile, Set, Plugin };

/// A layer's origin: its kind and a label a user recognises (a file path,
/// `--set stage=3`, `tier medium`, `plugin memory`).
struct LayerSource {
  LayerKind kind;
  std::string label;
};

/// The human name of a layer kind: "template default", "tier", "family", "variant",
/// "values file", "--set", "plugin".
const char* layer_kind_name(LayerKind kind) noexcept;

/// Values built from layers. Objects merge key by key, recursively; any other value
/// (scalar, array, null) replaces what was there, as with JSON merge patch except that
/// null is a value, not a deletion.
///
///     zf::LayeredValues values;
///     values.apply({zf::LayerKind::Tier, "presets/tiers/small.json"}, tier_json);
///     values.apply({zf::LayerKind::Set, "--set stage=3"}, zf::parse_set("stage=3"));
///     values.origin("/stage")->label;  // "--set stage=3"
class LayeredValues {
 public:
  /// A value that a layer applied by apply_under_user() replaced: where, what it was, and the
  /// index in layers() of the layer that had set it.
  struct Replacement {
    std::string pointer;
    nlohmann::ordered_json before;
    std::size_t layer = 0;
  };

  /// Merges `object` (must be a JSON object) on top of the current values.
  void apply(LayerSource source, const nlohmann::ordered_json& object);
  /// Merges `object` as a layer below the user's own: a value that `--set` or a values file
  /// (LayerKind::Set, LayerKind::ValuesFile) set, or any value inside one, is kept; other
  /// values merge as apply() merges them. This is how a plugin's values apply, so that what a
  /// user says on the command line wins over any plugin. Returns each value set by an earlier
  /// layer that now differs, in merge order.
  std::vector<Replacement> apply_under_user(LayerSource source,
                                            const nlohmann::ordered_json& object);
  /// The merged values.
  const nlohmann::ordered_json& merged() const noexcept { return merged_; }
  /// The layer that set the value at `json_pointer` (a leaf, or a whole object replaced as
  /// one), or nullptr when nothing set it. Pointers below a leaf report that leaf's layer;
  /// an object's pointer reports the layer of its first leaf.
  const LayerSource* origin(std::string_view json_pointer) const;
  /// Every leaf pointer (scalars, arrays, empty objects) with its layer, in merged key order.
  std::vector<std::pair<std::string, LayerSource>> leaves() const;
  const std::vector<LayerSource>& layers() const noexcept { return layers_; }

 private:
  struct UserGuard;  // apply_under_user's kept values and its replacements
  void merge(nlohmann::ordered_json& target, const nlohmann::ordered_json& patch,
             const std::string& pointer, std::size_t layer, UserGuard* guard = nullptr);
  bool user_set_at_or_below(const std::string& pointer) const;
  void record_replacement(const std::string& pointer, const nlohmann::ordered_json& before,
                          const nlohmann::ordered_json& after, UserGuard& guard) const;
  void forget_below(const std::string& pointer);
  void collect(const nlohmann::ordered_json& node, const std::string& pointer,
               std::vector<std::pair<std::string, LayerSource>>& out) const;

  nlohmann::ordered_json merged_ = nlohmann::ordered_json::object();
  std::vector<LayerSource> layers_;
  std::map<std::string, std::size_t, std::less<>> origins_;
};

/// Parses one `--set KEY=VALUE`: KEY is a dotted path (`zero.stage`), VALUE is JSON when it
/// parses as JSON (`3`, `true`, `[1,2]`, `"x"`) and a plain string otherwise. Returns the
/// nested object `{"zero": {"stage": 3}}`. Throws zf::Error (Usage) for a missing `=`, an
/// empty key or an empty path segment.
nlohmann::ordered_json parse_set(std::string_view assignment);

/// Reads a JSON values file that must hold an object; errors name the file, line and
/// column (or say that the top level is not an object). Numbers keep their JSON type, as
/// Python's json reads them: `1000000.0` and `5e8` are floats, `1000000` an integer.
nlohmann::ordered_json load_values_file(const std::filesystem::path& path);

/// The most memory a tier may claim per GPU or per host, in GiB (1 PiB).
inline constexpr double kMaxTierMemoryGib = 1048576.0;
/// The most CPUs a tier may claim per node (`cpu_cores`).
inline constexpr std::int64_t kMaxTierCpuCores = 1000000;

/// Reads a tier file (presets/tiers/NAME.json, `probe --save`) as load_values_file does, and
/// checks its hardware facts: `gpu_memory_gib` and `cpu_memory_gib`, when present, must be
/// positive numbers of GiB up to kMaxTierMemoryGib, and `cpu_cores` a whole number of CPUs
/// from 1 to kMaxTierCpuCores. Throws zf::Error (Values) at the file and pointer of the first
/// that is not:
/// `t.json: /gpu_memory_gib: error: a tier's gpu_memory_gib must be a positive number ...`.
nlohmann::ordered_json load_tier_file(const std::filesystem::path& path);

/// Escapes a key for a JSON pointer segment (`~` → `~0`, `/` → `~1`).
std::string escape_pointer_segment(std::string_view key);

}  // namespace zf
