// SPDX-License-Identifier: MIT
// The bundled `memory` plugin: serves `zeroforge estimate` (see estimate_command.cpp) and
// tier auto-fit as a values hook (auto_fit_hook.cpp); docs/estimator.md explains both.
#include <zeroforge/plugin.hpp>

#include "auto_fit_hook.hpp"
#include "estimate_command.hpp"

namespace {

// Option "data_dir" (tests, relocated installs) wins over the host's data directory.
std::string data_dir(const zf::sdk::Context& ctx) {
  return ctx.option<std::string>("data_dir", ctx.data_dir());
}

// Its std::invalid_argument errors are all about what the user gave (options, numbers, a
// model file): usage errors, not failures of the plugin.
int estimate(const zf::sdk::Context& ctx, const std::vector<std::string>& args, std::string& out) {
  try {
    return zf::memory::run_estimate(args, data_dir(ctx), out);
  } catch (const std::invalid_argument& e) {
    throw zf::sdk::UsageError(e.what());
  }
}

zf::sdk::Json auto_fit(const zf::sdk::Context& ctx, const zf::sdk::Json& input) {
  return zf::memory::auto_fit_values(input, data_dir(ctx),
                                     [&](const std::string& file) { ctx.note_input(file); });
}

}  // namespace

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t /*host_abi_version*/) {
  static zf::sdk::Descriptor plugin =
      zf::sdk::Descriptor("memory", "0.1.0",
                          "GPU/CPU memory estimates for DeepSpeed ZeRO (zeroforge estimate) and "
                          "tier auto-fit of families (auto_fit values)")
          .options({"data_dir"})
          .values_hook<auto_fit>()
          .command<estimate>("estimate",
                             "estimate per-GPU and per-node memory of a model under ZeRO");
  return plugin.get();
}
