// SPDX-License-Identifier: MIT
// The smallest complete zeroforge plugin: one template function and one output hook, written
// with the C++ helper (zeroforge/plugin.hpp). docs/plugins.md builds it step by step.
#include <zeroforge/plugin.hpp>

namespace {

using zf::sdk::Json;

// {{ bucket_size(hidden_size) }}: hidden_size squared, the reduce_bucket_size the Hugging Face
// Trainer derives from a model's hidden size.
Json bucket_size(const zf::sdk::Context&, const zf::sdk::Call& call) {
  const Json& hidden = call.args.at(0);
  if (!hidden.is_number_integer() || hidden.get<long long>() <= 0) {
    throw zf::sdk::Error("bucket_size: hidden_size must be a positive integer, got " +
                         hidden.dump());
  }
  long long h = hidden.get<long long>();
  return h * h;
}

// Sets steps_per_print (option "steps_per_print", default 100) when the config has none.
Json default_steps_per_print(const zf::sdk::Context& ctx, const Json& input) {
  if (input.at("config").contains("steps_per_print")) return nullptr;  // nothing to change
  return {{"patch", {{"steps_per_print", ctx.option("steps_per_print", 100)}}}};
}

}  // namespace

ZF_PLUGIN_EXPORT const zf_plugin* zf_plugin_entry(uint32_t /*host_abi_version*/) {
  static zf::sdk::Descriptor plugin =
      zf::sdk::Descriptor("example", "1.0.0", "bucket_size() and a default steps_per_print")
          .function<bucket_size>(ZF_FUNCTION_GLOBAL, "bucket_size", 1, 1,
                                 "bucket_size(hidden_size): hidden_size squared")
          .options({"steps_per_print"})
          .output_hook<default_steps_per_print>();
  return plugin.get();
}
