// SPDX-License-Identifier: MIT
// Loads the consumer plugin and the installed bundled example plugin through zeroforge::engine
// and prints the patched config; exits non-zero on any mismatch.
#include <iostream>
#include <zeroforge/error.hpp>
#include <zeroforge/plugin_host.hpp>

int main() {
  try {
    zf::PluginHostOptions options;
    options.use_environment = false;
    options.builtin_dirs = {ZEROFORGE_PLUGIN_DIR};
    zf::PluginHost host(options);
    host.load({{CONSUMER_PLUGIN, nlohmann::ordered_json::object()},
               {"example", nlohmann::ordered_json::object()}});
    auto out = host.run_output_hooks({{"stage", 2}}, nlohmann::ordered_json::object());
    std::cout << out.config.dump() << '\n';
    return out.config == nlohmann::ordered_json{{"stage", 2},
                                                {"from_consumer", true},
                                                {"steps_per_print", 100}}
               ? 0
               : 1;
  } catch (const zf::Error& error) {
    std::cerr << error.what() << '\n';
    return 2;
  }
}
