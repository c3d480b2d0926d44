// SPDX-License-Identifier: MIT
// Well-known model shapes (presets/models/NAME.json): what `--model NAME` reads.
#pragma once

#include <cstdint>
#include <string>

#include "estimator.hpp"

namespace zf::memory {

/// One model preset: its shape, its published parameter count and largest module.
struct ModelPreset {
  std::string name;
  std::string description;
  ModelShape shape;
  std::int64_t params = 0;
  std::int64_t largest_layer_params = 0;
};

/// Reads `name_or_path`: a path to a .json file, or NAME looked up as
/// `<data_dir>/presets/models/NAME.json`. Throws std::invalid_argument naming the file and
/// the presets that exist when there is none, or the key that is missing or not positive.
ModelPreset load_model_preset(const std::string& name_or_path, const std::string& data_dir);

}  // namespace zf::memory
