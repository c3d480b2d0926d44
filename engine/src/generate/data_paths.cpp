// SPDX-License-Identifier: MIT
// Locating the data zeroforge ships (templates, presets, plugins) relative to the executable,
// which works the same in the build tree and after install.
#include <cstdlib>

#include "zeroforge/generate.hpp"

namespace zf {
namespace fs = std::filesystem;

namespace {

// <executable>/.. : the build tree's or the install's prefix.
fs::path executable_prefix() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path().parent_path();
}

}  // namespace

fs::path default_data_dir() {
  if (const char* env = std::getenv("ZEROFORGE_DATA_DIR"); env && *env) return env;
  fs::path prefix = executable_prefix();
  return prefix.empty() ? fs::path("share") / "zeroforge" : prefix / "share" / "zeroforge";
}

fs::path default_plugin_dir() { return executable_prefix() / "lib" / "zeroforge" / "plugins"; }

}  // namespace zf
