// SPDX-License-Identifier: MIT
// The CLI's data directories: the library's defaults (zeroforge/generate.hpp).
#include "command.hpp"
#include "zeroforge/generate.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

fs::path data_dir() { return default_data_dir(); }
fs::path builtin_templates_dir() { return data_dir() / "templates"; }
fs::path builtin_presets_dir() { return data_dir() / "presets"; }
fs::path builtin_plugins_dir() { return default_plugin_dir(); }

}  // namespace zf::cli
