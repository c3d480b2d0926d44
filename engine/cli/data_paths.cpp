// SPDX-License-Identifier: MIT
// Locating the data zeroforge ships (templates, presets, plugins) relative to the executable,
// which works the same in the build tree and after install.
#include <unistd.h>

#include <cstdlib>

#include "command.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

fs::path data_dir() {
  if (const char* env = std::getenv("ZEROFORGE_DATA_DIR"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fs::path("share") / "zeroforge";
  return exe.parent_path().parent_path() / "share" / "zeroforge";
}

fs::path builtin_templates_dir() { return data_dir() / "templates"; }
fs::path builtin_presets_dir() { return data_dir() / "presets"; }

fs::path builtin_plugins_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return exe.parent_path().parent_path() / "lib" / "zeroforge" / "plugins";
}

}  // namespace zf::cli
