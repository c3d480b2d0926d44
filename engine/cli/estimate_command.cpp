// SPDX-License-Identifier: MIT
// `zeroforge estimate`: served by the bundled `memory` plugin (plugins/memory/), loaded through
// the PluginHost like any other; this file only names it.
#include <string>
#include <vector>

#include "plugin_options.hpp"

namespace zf::cli {

int run_estimate(const std::vector<std::string>& args) {
  return run_plugin_command("memory", "estimate", args);
}

}  // namespace zf::cli
