// SPDX-License-Identifier: MIT
// Layers that know where they were written: a layer of values with its file and JSON pointer,
// and layered values that can say where each value came from (`explain`, and errors placed at
// the value's file and pointer).
#pragma once

#include <nlohmann/json.hpp>  // full type: Layer holds an ordered_json member
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {

/// One layer of values and where it sits in its file, so an error about any value can say
/// `file: /pointer`. A value at pointer `value_pointer + rest` was written at
/// `file_pointer + rest` in `file`.
///
///     // the second value of the family's `stage` axis: {"stage": 3} at /axes/stage/1
///     zf::Layer{zf::LayerSource{zf::LayerKind::Variant, "family.json /axes/stage/1"},
///               {{"stage", 3}}, "family.json", "/axes/stage/1", "/stage"};
///
/// Name `LayerSource` as above rather than writing `{kind, label}`, and read the values
/// (`load_values_file`, `parse_set`) into a local first: when an initialiser after a nested
/// brace-initialised member throws, g++ 12 destroys that member twice (a double free).
struct Layer {
  /// Kind and the label `explain` shows.
  LayerSource source;
  /// The values: a JSON object.
  nlohmann::ordered_json values;
  /// The file errors name (for `--set` the assignment itself, e.g. `--set stage=4`).
  std::string file;
  /// Where the layer's values are written in `file`: "" (the whole file), "/values", ...
  std::string file_pointer;
  /// The value pointer `file_pointer` corresponds to: "" for a whole object, "/stage" for
  /// one axis value.
  std::string value_pointer;
};

/// Layered values plus the file position of every layer: what `explain` prints and what
/// contract errors point at.
class SourcedValues {
 public:
  /// Merges `layer` on top (see LayeredValues::apply).
  void apply(Layer layer);
  const LayeredValues& layered() const noexcept { return layered_; }
  /// For plugin values hooks, which apply their own layers (LayerKind::Plugin); errors about
  /// their values name the layer's label as the file.
  LayeredValues& layered_for_hooks() noexcept { return layered_; }
  const nlohmann::ordered_json& merged() const noexcept { return layered_.merged(); }
  /// The layer that set the value at `value_pointer`, or nullptr when no layer did (or a
  /// plugin hook did).
  const Layer* origin(std::string_view value_pointer) const;
  /// `file` and pointer in that file where the value at `value_pointer` was written; the
  /// file is empty when no layer set it.
  std::pair<std::string, std::string> site(std::string_view value_pointer) const;
  /// The same for the value at `value_pointer` as layer `layer` (an index in layered().layers())
  /// wrote it, whatever later layers did: where a value that a plugin replaced was written.
  std::pair<std::string, std::string> site_in_layer(std::size_t layer,
                                                    std::string_view value_pointer) const;
  /// A Values error placed where the value at `value_pointer` was written.
  Error error_at(std::string_view value_pointer, std::string message) const;
  /// "stage=2 (family presets/families/x.json)": a value and the layer it came from.
  std::string describe(std::string_view value_pointer) const;

 private:
  LayeredValues layered_;
  std::vector<Layer> layers_;
};

}  // namespace zf
