// SPDX-License-Identifier: MIT
// The bundled `memory` plugin: serves `zeroforge estimate` (see estimate_command.cpp and
// docs/estimator.md).
#include <zeroforge/plugin.hpp>

#include "estimate_command.hpp"

namespace {

int estimate(const zf::sdk::Context& ctx, const std::vector<std::string>& args, std::string& out) {
  // Option "data_dir" (tests, relocated installs) wins over the host's data directory.
  return zf::memory::run_estimate(args, ctx.option<std::string>("data_dir", ctx.data_dir()), out);
}

}  // namespace

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t /*host_abi_version*/) {
  static zf::sdk::Descriptor plugin =
      zf::sdk::Descriptor("memory", "0.1.0",
                          "GPU/CPU memory estimates for DeepSpeed ZeRO (zeroforge estimate)")
          .command<estimate>("estimate",
                             "estimate per-GPU and per-node memory of a model under ZeRO");
  return plugin.get();
}
