// SPDX-License-Identifier: MIT
// Rule family "compression": compression_training is parsed by DeepSpeedConfig
// (compression/config.py, get_compression_config) and applied by init_compression, which
// builds only the techniques whose shared_parameters.enabled is true (layer_reduction: its own
// enabled). A disabled technique's other settings and groups are parsed and then never used:
// each is a no-effect warning, as the ZeRO keys DeepSpeed reads nowhere are. The same code
// from 0.12.0 to 0.19.6.
#include <array>
#include <string_view>

#include "rules.hpp"

namespace zf::deepspeed {
namespace {

// The techniques switched on by shared_parameters.enabled (compression/constants.py).
constexpr std::array<std::string_view, 6> kGroupTechniques = {
    "weight_quantization", "activation_quantization", "sparse_pruning", "row_pruning",
    "head_pruning",        "channel_pruning"};

void report_unused(const Context& ctx, const std::string& pointer, const std::string& technique,
                   const std::string& switch_pointer) {
  const std::string key = json::json_pointer(pointer).back();
  ctx.report(pointer, Severity::Warning, "no-effect",
             "\"" + key + "\" has no effect: compression_training." + technique +
                 " is not enabled (" + switch_pointer +
                 " is not true), so init_compression never applies it; set " + switch_pointer +
                 " to true or remove the setting");
}

}  // namespace

void check_compression(const Context& ctx) {
  const json* compression = member(ctx.config, "compression_training");
  if (compression == nullptr || !compression->is_object()) return;
  const std::string base = "/compression_training";
  for (const auto& [name, technique] : compression->get_ref<const json::object_t&>()) {
    if (!technique.is_object()) continue;
    const std::string at = pointer_join(base, name);
    if (name == "layer_reduction") {
      if (is_true(technique, "enabled")) continue;
      for (const auto& [key, value] : technique.get_ref<const json::object_t&>()) {
        if (key != "enabled") report_unused(ctx, pointer_join(at, key), name, name + ".enabled");
      }
      continue;
    }
    bool known = false;
    for (std::string_view t : kGroupTechniques) known = known || name == t;
    if (!known) continue;
    const json* shared = member(technique, "shared_parameters");
    if (shared != nullptr && is_true(*shared, "enabled")) continue;
    const std::string switch_pointer = name + ".shared_parameters.enabled";
    for (const auto& [key, value] : technique.get_ref<const json::object_t&>()) {
      if (key == "shared_parameters" && value.is_object()) {
        for (const auto& [shared_key, shared_value] : value.get_ref<const json::object_t&>()) {
          if (shared_key == "enabled") continue;
          report_unused(ctx, pointer_join(pointer_join(at, key), shared_key), name, switch_pointer);
        }
        continue;
      }
      // An empty different_groups is what DeepSpeed fills in itself: nothing is lost.
      if (key == "different_groups" && value.is_object() && value.empty()) continue;
      report_unused(ctx, pointer_join(at, key), name, switch_pointer);
    }
  }
}

}  // namespace zf::deepspeed
