// SPDX-License-Identifier: MIT
#include "deepspeed/world_size.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "checked_math.hpp"

namespace zf::deepspeed {
namespace {

// An integer, or a float with an integral value (`8.0`: some writers of values files emit
// every number as a float), within 64 bits.
std::optional<std::int64_t> integral(const nlohmann::ordered_json& value) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
      return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> gpu_count(std::int64_t gpus_per_node, std::int64_t nodes) {
  return detail::checked_product({gpus_per_node, nodes});
}

std::optional<std::int64_t> world_size_of(const nlohmann::ordered_json& values) {
  if (!values.is_object()) return std::nullopt;
  auto integer = [&](const char* name) -> std::optional<std::optional<std::int64_t>> {
    // nullopt: not given; an empty inner optional: given, but not a 64-bit integer.
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return std::optional<std::int64_t>{integral(*it)};
  };
  if (auto world = integer("world_size"); world && *world) return **world;
  const auto gpus = integer("gpus_per_node");
  const auto nodes = integer("nodes");
  if (!gpus && !nodes) return std::nullopt;
  if ((gpus && !*gpus) || (nodes && !*nodes)) return std::nullopt;
  return gpu_count(gpus ? **gpus : 1, nodes ? **nodes : 1);
}

}  // namespace zf::deepspeed
