// SPDX-License-Identifier: MIT
// load_tier_file: a tier is a values file whose memory facts must make sense, whoever reads
// it (render and explain --tier, a family's tiers, list tiers): a tier that claims 0 or -3
// GiB per GPU (a probe that misread nvidia-smi once wrote one) is refused where it stands.
#include <cmath>
#include <string>

#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {

nlohmann::ordered_json load_tier_file(const std::filesystem::path& path) {
  nlohmann::ordered_json tier = load_values_file(path);
  for (const char* key : {"gpu_memory_gib", "cpu_memory_gib"}) {
    auto it = tier.find(key);
    if (it == tier.end()) continue;
    const bool number = it->is_number() && !it->is_boolean();
    const double gib = number ? it->get<double>() : 0.0;
    if (!number || !std::isfinite(gib) || gib <= 0 || gib > kMaxTierMemoryGib) {
      throw Error(ErrorKind::Values,
                  "a tier's " + std::string(key) + " must be a positive number of GiB (at most " +
                      std::to_string(static_cast<long long>(kMaxTierMemoryGib)) + "), got " +
                      it->dump(),
                  path.string(), std::string("/") + key);
    }
  }
  return tier;
}

}  // namespace zf
