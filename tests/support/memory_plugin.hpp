// SPDX-License-Identifier: MIT
// The bundled memory plugin loaded once for a test binary, through its real ABI, with the
// model presets read from the source tree.
#pragma once

#include <vector>

#include "zeroforge/plugin_host.hpp"

namespace zf::test {

/// The PluginHost with memory.so loaded (never unloaded: tests share it).
inline const PluginHost& memory_plugin_host() {
  static const auto* plugins = [] {
    auto* host =
        new PluginHost(PluginHostOptions{.use_environment = false, .data_dir = ZF_SOURCE_DIR});
    host->load(std::vector<PluginRequest>{
        PluginRequest{ZF_MEMORY_PLUGIN, nlohmann::ordered_json{{"data_dir", ZF_SOURCE_DIR}}}});
    return host;
  }();
  return *plugins;
}

}  // namespace zf::test
