// SPDX-License-Identifier: MIT
// Well-known model shapes (presets/models/NAME.json): what `--model NAME` and a family's
// `auto_fit.model` read, and the shape fields both share with an inline shape object.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "model_shape.hpp"

namespace zf::memory {

/// One model preset: its shape, its parameter count and largest module.
struct ModelPreset {
  std::string name;
  std::string description;
  ModelShape shape;
  std::int64_t params = 0;                ///< the preset's, else derived from the shape
  std::int64_t largest_layer_params = 0;  ///< the preset's, else derived from the shape
  std::string file;                       ///< the file it was read from
};

/// Reads a whole file for the plugin and returns its bytes, or throws std::exception with a
/// one-line message naming it: the host's bounded reader (zf::sdk::Context::read_file), which
/// also records the file for `generate --depfile`.
using FileReader = std::function<std::string(const std::string& path)>;

/// Reports a bad field: (key, message). Must throw.
using FieldError = std::function<void(const std::string& key, const std::string& message)>;

/// Reads a shape object: layers, hidden, heads, vocab, seq_len (required), kv_heads,
/// intermediate_size, mlp ("gelu"|"swiglu"), tied_embeddings, positions, params,
/// largest_layer_params (optional), and `extra_keys` (allowed, not read). Unknown keys,
/// wrong types and non-positive sizes go to `fail` with the key.
ModelPreset read_model_shape(const nlohmann::json& object, const FieldError& fail,
                             std::initializer_list<const char*> extra_keys = {});

/// The file `name_or_path` names among the presets of `<data_dir>/presets/<kind>/` (models,
/// tiers): a path when it holds '/' or ends in .json, else NAME.json there. A NAME that is not
/// there throws std::invalid_argument: `<unknown> 'NAME' (known: a, b, ...)`.
std::string preset_file(const std::string& name_or_path, const std::string& data_dir,
                        const char* kind, const std::string& unknown);

/// Reads `name_or_path`: a path to a .json file, or NAME looked up as
/// `<data_dir>/presets/models/NAME.json`, with `read`. Throws std::invalid_argument naming the
/// file and the presets that exist when there is none, the reader's message when it cannot be
/// read, or the key that is missing or not positive.
ModelPreset load_model_preset(const std::string& name_or_path, const std::string& data_dir,
                              const FileReader& read);

}  // namespace zf::memory
