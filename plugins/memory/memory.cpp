// SPDX-License-Identifier: MIT
// The bundled `memory` plugin: serves `zeroforge estimate` (see estimate_command.cpp), tier
// auto-fit as a values hook (auto_fit_hook.cpp) and, with the `estimate` option, an estimate
// of every other config for the manifest (estimate_hook.cpp); docs/estimator.md explains them.
#include <zeroforge/plugin.hpp>

#include "auto_fit_hook.hpp"
#include "estimate_command.hpp"
#include "estimate_hook.hpp"

namespace {

// Option "data_dir" (tests, relocated installs) wins over the host's data directory.
std::string data_dir(const zf::sdk::Context& ctx) {
  return ctx.option<std::string>("data_dir", ctx.data_dir());
}

// Model presets are read through the host: its input limit, no wait on a FIFO, and the file
// recorded for `generate --depfile`.
zf::memory::FileReader reader(const zf::sdk::Context& ctx) {
  return [&ctx](const std::string& path) { return ctx.read_file(path); };
}

// Its std::invalid_argument errors are all about what the user gave (options, numbers, a
// model file): usage errors, not failures of the plugin.
int estimate(const zf::sdk::Context& ctx, const std::vector<std::string>& args, std::string& out) {
  try {
    // --tier as every command finds a tier, where the host offers it (zf_host::find_tier).
    zf::memory::TierFinder find;
    if (ctx.has_find_tier()) find = [&ctx](const std::string& ref) { return ctx.find_tier(ref); };
    return zf::memory::run_estimate(args, data_dir(ctx), reader(ctx), out, find,
                                    [&ctx](const std::string& message) { ctx.warn(message); });
  } catch (const std::invalid_argument& e) {
    throw zf::sdk::UsageError(e.what());
  }
}

// A config with `auto_fit` is fitted (and its estimate recorded); with the `estimate` option
// any other config is estimated as it stands.
zf::sdk::Json values_hook(const zf::sdk::Context& ctx, const zf::sdk::Json& input) {
  zf::sdk::Json out = zf::memory::auto_fit_values(input, data_dir(ctx), reader(ctx));
  if (!out.is_null()) return out;
  auto option = ctx.options().find("estimate");
  if (option == ctx.options().end() || option->is_null()) return nullptr;
  return zf::memory::estimate_values(input, *option, data_dir(ctx), reader(ctx));
}

}  // namespace

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t /*host_abi_version*/) {
  static zf::sdk::Descriptor plugin =
      zf::sdk::Descriptor("memory", "0.1.0",
                          "GPU/CPU memory estimates for DeepSpeed ZeRO (zeroforge estimate) and "
                          "tier auto-fit of families (auto_fit values)")
          .options({"data_dir", "estimate"})
          .path_options({"data_dir"})
          .values_hook<values_hook>()
          .command<estimate>("estimate",
                             "estimate per-GPU and per-node memory of a model under ZeRO");
  return plugin.get();
}
