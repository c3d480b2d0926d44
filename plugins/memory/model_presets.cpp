// SPDX-License-Identifier: MIT
// Reading model presets: presets/models/*.json with layers, hidden, heads, vocab, seq_len,
// params and largest_layer_params (all positive integers).
#include "model_presets.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace zf::memory {
namespace fs = std::filesystem;

namespace {

std::string known_presets(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") names.insert(entry.path().stem().string());
  }
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

std::int64_t positive(const nlohmann::json& preset, const char* key, const std::string& file) {
  auto it = preset.find(key);
  if (it == preset.end() || !it->is_number_integer() || it->get<std::int64_t>() <= 0) {
    throw std::invalid_argument(file + ": /" + key + ": expected a positive integer" +
                                (it == preset.end() ? ", found nothing" : ", found " + it->dump()));
  }
  return it->get<std::int64_t>();
}

}  // namespace

ModelPreset load_model_preset(const std::string& name_or_path, const std::string& data_dir) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".json";
  const fs::path dir = fs::path(data_dir) / "presets" / "models";
  const fs::path file = is_path ? fs::path(name_or_path) : dir / (name_or_path + ".json");
  std::ifstream in(file);
  if (!in) {
    if (is_path) throw std::invalid_argument("cannot read model preset '" + file.string() + "'");
    throw std::invalid_argument("unknown model preset '" + name_or_path +
                                "' (known: " + known_presets(dir) + ")");
  }
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(file.string() + ": malformed JSON: " + e.what());
  }
  const std::string where = file.string();
  ModelPreset preset;
  preset.name = json.value("name", fs::path(file).stem().string());
  preset.description = json.value("description", "");
  preset.shape = {positive(json, "layers", where), positive(json, "hidden", where),
                  positive(json, "heads", where), positive(json, "vocab", where),
                  positive(json, "seq_len", where)};
  preset.params = positive(json, "params", where);
  preset.largest_layer_params = positive(json, "largest_layer_params", where);
  return preset;
}

}  // namespace zf::memory
