// SPDX-License-Identifier: MIT
// Reading model shapes: presets/models/*.json and the same fields inline in a family's
// auto_fit.model. Parameter counts not given are derived from the shape.
#include "model_presets.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/nearest_name.hpp"

namespace zf::memory {
namespace fs = std::filesystem;

namespace {

constexpr const char* kShapeKeys[] = {
    "layers",          "hidden",    "heads",  "vocab",
    "seq_len",         "kv_heads",  "mlp",    "intermediate_size",
    "tied_embeddings", "positions", "params", "largest_layer_params"};

// A Hugging Face config.json name copied into a model file (`hidden_size`), as our key.
std::string hugging_face_name(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"num_hidden_layers", "layers"},
      {"n_layer", "layers"},
      {"num_layers", "layers"},
      {"hidden_size", "hidden"},
      {"n_embd", "hidden"},
      {"d_model", "hidden"},
      {"num_attention_heads", "heads"},
      {"n_head", "heads"},
      {"vocab_size", "vocab"},
      {"num_key_value_heads", "kv_heads"},
      {"n_inner", "intermediate_size"},
      {"tie_word_embeddings", "tied_embeddings"},
      {"max_position_embeddings", "positions"},
      {"n_positions", "positions"},
      {"seq_length", "seq_len"},
      {"max_seq_len", "seq_len"},
  };
  for (const auto& [hf, ours] : kNames) {
    if (key == hf) return std::string(ours);
  }
  return {};
}

bool is_integral(const nlohmann::json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return d == static_cast<double>(static_cast<std::int64_t>(d)) && std::abs(d) < 9.0e15;
}

std::int64_t as_int(const nlohmann::json& v) {
  return v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
}

}  // namespace

ModelPreset read_model_shape(const nlohmann::json& object, const FieldError& fail,
                             std::initializer_list<const char*> extra_keys) {
  for (const auto& item : object.items()) {
    const std::string& key = item.key();  // clang 14 cannot capture a structured binding
    const auto is_key = [&](const char* k) { return key == k; };
    if (std::none_of(std::begin(kShapeKeys), std::end(kShapeKeys), is_key) &&
        std::none_of(extra_keys.begin(), extra_keys.end(), is_key)) {
      std::string known;
      for (const char* k : kShapeKeys) known += (known.empty() ? "" : ", ") + std::string(k);
      std::vector<std::string_view> names(std::begin(kShapeKeys), std::end(kShapeKeys));
      names.insert(names.end(), extra_keys.begin(), extra_keys.end());
      std::string guess = hugging_face_name(key);
      if (guess.empty()) guess = sdk::nearest_name(key, names);
      fail(key, "unknown key '" + key + "' (expected " + known + ")" +
                    (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
  }
  auto integer = [&](const char* key, bool required, std::int64_t minimum) -> std::int64_t {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) fail(key, "the model shape needs '" + std::string(key) + "'");
      return 0;
    }
    if (!is_integral(*it) || as_int(*it) < minimum) {
      fail(key, "expected an integer >= " + std::to_string(minimum) + ", got " + it->dump());
    }
    return as_int(*it);
  };
  ModelPreset out;
  ModelShape& s = out.shape;
  s.layers = integer("layers", true, 1);
  s.hidden = integer("hidden", true, 1);
  s.heads = integer("heads", true, 1);
  s.vocab = integer("vocab", true, 1);
  s.seq_len = integer("seq_len", true, 1);
  s.kv_heads = integer("kv_heads", false, 1);
  s.intermediate = integer("intermediate_size", false, 1);
  if (auto it = object.find("mlp"); it != object.end()) {
    auto mlp = it->is_string() ? mlp_from_string(it->get<std::string>()) : std::nullopt;
    if (!mlp) fail("mlp", "expected gelu or swiglu, got " + it->dump());
    s.mlp = *mlp;
  }
  if (auto it = object.find("tied_embeddings"); it != object.end()) {
    if (!it->is_boolean()) fail("tied_embeddings", "expected true or false, got " + it->dump());
    s.tied_embeddings = it->get<bool>();
  }
  if (object.contains("positions")) s.positions = integer("positions", false, 0);
  try {
    check_shape(s);
    if (!object.contains("params")) out.params = params_from_shape(s);
    if (!object.contains("largest_layer_params"))
      out.largest_layer_params = largest_layer_from_shape(s);
  } catch (const std::invalid_argument& e) {
    fail("", e.what());
  }
  if (object.contains("params")) out.params = integer("params", false, 1);
  if (object.contains("largest_layer_params"))
    out.largest_layer_params = integer("largest_layer_params", false, 1);
  return out;
}

std::string preset_file(const std::string& name_or_path, const std::string& data_dir,
                        const char* kind, const std::string& unknown) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
  if (is_path) return name_or_path;
  const fs::path dir = fs::path(data_dir) / "presets" / kind;
  const fs::path file = dir / (name_or_path + ".json");
  std::error_code ec;
  if (fs::exists(file, ec)) return file.string();
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") names.insert(entry.path().stem().string());
  }
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument(unknown + " '" + name_or_path +
                              "' (known: " + (known.empty() ? "none" : known) + ")");
}

ModelPreset load_model_preset(const std::string& name_or_path, const std::string& data_dir,
                              const FileReader& read) {
  const std::string where = preset_file(name_or_path, data_dir, "models", "unknown model preset");
  std::string text;
  try {
    // The host's reader: a FIFO or /dev/zero as --model is an error, not a hang or an
    // exhausted machine.
    text = read(where);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("model preset: ") + e.what());
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's byte offset is the position; its own message prefix says nothing more.
    throw std::invalid_argument(where + ": malformed JSON at byte " + std::to_string(e.byte) +
                                " (a model preset is a JSON object)");
  }
  if (!json.is_object()) {
    throw std::invalid_argument(where + ": expected a JSON object with the model's shape, got " +
                                std::string(json.type_name()));
  }
  ModelPreset preset = read_model_shape(
      json,
      [&](const std::string& key, const std::string& message) {
        throw std::invalid_argument(where + ": " + (key.empty() ? "" : "/" + key + ": ") + message);
      },
      {"name", "description", "source"});
  // "name" and "description" are text; nlohmann's own message would not name the file.
  for (const char* key : {"name", "description", "source"}) {
    if (json.contains(key) && !json[key].is_string()) {
      throw std::invalid_argument(where + ": /" + key + ": expected a string, got " +
                                  std::string(json[key].type_name()));
    }
  }
  preset.name = json.value("name", fs::path(where).stem().string());
  preset.description = json.value("description", "");
  preset.file = where;
  return preset;
}

}  // namespace zf::memory
