// SPDX-License-Identifier: MIT
// load_tier_file: a tier is a values file whose hardware facts must make sense, whoever reads
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
  // The hardware facts of the memory plugin's step-time model: rates, so positive.
  for (const char* key :
       {"gpu_tflops", "intra_node_gbs", "inter_node_gbs", "pcie_gbs", "nvme_gbs"}) {
    auto it = tier.find(key);
    if (it == tier.end()) continue;
    const bool number = it->is_number() && !it->is_boolean();
    const double rate = number ? it->get<double>() : 0.0;
    if (!number || !std::isfinite(rate) || rate <= 0) {
      const std::string unit = std::string(key) == "gpu_tflops" ? "TFLOPS" : "GB/s";
      throw Error(ErrorKind::Values,
                  "a tier's " + std::string(key) + " must be a positive number of " + unit +
                      ", got " + it->dump(),
                  path.string(), std::string("/") + key);
    }
  }
  // CPUs are counted, as SLURM's --cpus-per-task and the kernel count them: 2.5 is no count.
  if (auto it = tier.find("cpu_cores"); it != tier.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
        it->get<std::int64_t>() > kMaxTierCpuCores) {
      throw Error(ErrorKind::Values,
                  "a tier's cpu_cores must be a whole number of CPUs per node, 1 to " +
                      std::to_string(kMaxTierCpuCores) + ", got " + it->dump(),
                  path.string(), "/cpu_cores");
    }
  }
  return tier;
}

}  // namespace zf
