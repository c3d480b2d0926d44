// SPDX-License-Identifier: MIT
// The CLI's data directories: the library's defaults (zeroforge/generate.hpp), and a
// ZEROFORGE_DATA_DIR that names no directory refused instead of searched in vain.
#include <cstdlib>

#include "command.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/generate.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

fs::path data_dir() {
  if (const char* env = std::getenv("ZEROFORGE_DATA_DIR"); env && *env) {
    std::error_code ec;
    if (!fs::is_directory(env, ec)) {
      throw Error(ErrorKind::Usage,
                  std::string("ZEROFORGE_DATA_DIR='") + env +
                      "' is not a directory: it replaces <exe>/../share/zeroforge as the home of "
                      "the built-in templates and presets (unset it to use those)");
    }
  }
  return default_data_dir();
}
fs::path builtin_templates_dir() { return data_dir() / "templates"; }
fs::path builtin_presets_dir() { return data_dir() / "presets"; }
fs::path builtin_plugins_dir() { return default_plugin_dir(); }

}  // namespace zf::cli
