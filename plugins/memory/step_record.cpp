// SPDX-License-Identifier: MIT
// The step time as JSON (see step_record.hpp).
#include "step_record.hpp"

#include <cmath>

namespace zf::memory {

using Json = nlohmann::ordered_json;

double rounded_seconds(double seconds) { return std::round(seconds * 1e6) / 1e6; }
double rounded_rate(double rate) { return std::round(rate * 1e3) / 1e3; }

Json step_parts_json(const StepTime& step) {
  return {{"compute", rounded_seconds(step.compute)},
          {"communication", rounded_seconds(step.communication)},
          {"offload", rounded_seconds(step.offload)},
          {"optimizer", rounded_seconds(step.optimizer)}};
}

Json hardware_json(const Hardware& hw) {
  Json assumed = Json::array();
  for (const auto& key : hw.assumed) assumed.push_back(key);
  return {{"gpu", hw.gpu},
          {"gpu_tflops", hw.gpu_tflops},
          {"memory_gbs", hw.memory_gbs},
          {"intra_node_gbs", hw.intra_node_gbs},
          {"inter_node_gbs", hw.inter_node_gbs},
          {"pcie_gbs", hw.pcie_gbs},
          {"cpu_cores", hw.cpu_cores},
          {"nvme_gbs", hw.nvme_gbs},
          {"assumed", std::move(assumed)}};
}

Json step_json(const std::optional<StepTime>& step, const Hardware& hw) {
  if (!step) return nullptr;
  return {{"seconds", rounded_seconds(step->seconds)},
          {"tokens_per_second", rounded_rate(step->tokens_per_second)},
          {"samples_per_second", rounded_rate(step->samples_per_second)},
          {"tflops_per_gpu", rounded_rate(step->tflops_per_gpu)},
          {"parts", step_parts_json(*step)},
          {"communication_before_overlap", rounded_seconds(step->communication_total)},
          {"hardware", hardware_json(hw)}};
}

}  // namespace zf::memory
