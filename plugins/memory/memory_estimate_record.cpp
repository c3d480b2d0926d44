// SPDX-License-Identifier: MIT
// memory_estimate_record (see memory_estimate_record.hpp): the plugin's own records, written
// in its private layout for `zeroforge estimate` and the companions, restated in the SDK's
// documented one for the report.
#include "memory_estimate_record.hpp"

#include <cstdio>

#include "zeroforge/memory_estimate.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::ordered_json;

// Version 1 unless the record holds what version 2 added (auto-fit's ranking): a record
// without it stays readable by every reader of version 1, byte for byte as before.
Json header(bool ranked = false) {
  return {{"schema_version",
           ranked ? zf::sdk::kMemoryEstimateVersion : zf::sdk::kMemoryEstimateFirstVersion}};
}

std::string scalar_text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "sequence 4096, activation checkpointing full, sdpa attention, hf loss, fragmentation
// headroom 45% of activations".
std::string assumptions(const Json& estimate) {
  const Json& model = estimate.at("model");
  const Json& inputs = estimate.at("inputs");
  char headroom[32];
  std::snprintf(headroom, sizeof headroom, "%.0f%%", inputs.value("headroom", 0.0) * 100.0);
  std::string out;
  if (model.contains("seq_len")) out = "sequence " + scalar_text(model["seq_len"]) + ", ";
  return out + "activation checkpointing " + inputs.value("activation_checkpointing", "?") + ", " +
         inputs.value("attention", "?") + " attention, " + inputs.value("loss", "?") +
         " loss, fragmentation headroom " + headroom + " of activations";
}

Json part(const char* name, const Json& bytes) { return {{"part", name}, {"bytes", bytes}}; }

Json gpu(const Json& e) {
  const bool step_is_peak = e.at("optimizer_step").at("is_peak").get<bool>();
  Json parts = Json::array();
  parts.push_back(part("model_states", e.at("model_states").at("gpu_bytes")));
  parts.push_back(part("stage3_working_set", e.at("stage3_working_set").at("gpu_bytes")));
  parts.push_back(part("comm_buffers", e.at("comm_buffers").at("gpu_bytes")));
  if (step_is_peak) {
    parts.push_back(part("optimizer_step", e.at("optimizer_step").at("gpu_bytes")));
    parts.push_back(
        part("kept_activations", e.at("optimizer_step").at("unreused_activation_bytes")));
  } else {
    parts.push_back(part("activations", e.at("activations").at("gpu_bytes")));
    parts.push_back(part("fragmentation", e.at("headroom").at("gpu_bytes")));
  }
  parts.push_back(part("cuda_context", e.at("cuda_context").at("gpu_bytes")));
  return {{"peak", step_is_peak ? "optimizer_step" : "forward_backward"},
          {"parts", std::move(parts)},
          {"total_bytes", e.at("total").at("gpu_bytes")},
          {"capacity_bytes", e.at("capacity").at("gpu_bytes")},
          {"usable_bytes", e.at("capacity").at("gpu_usable_bytes")},
          {"margin", e.at("inputs").at("gpu_memory_margin")}};
}

Json rung(const Json& record) {
  return {{"stage", record.at("stage")},
          {"offload_optimizer", record.at("offload_optimizer")},
          {"offload_param", record.at("offload_param")}};
}

Json fit(const Json& a) {
  Json tried = Json::array();
  for (const Json& step : a.at("escalated")) {
    tried.push_back({{"rung", rung(step)},
                     {"micro_batch_size", step.at("micro_batch_size")},
                     {"gpu_bytes", step.at("gpu_bytes")},
                     {"gpu_usable_bytes", step.at("gpu_usable_bytes")},
                     {"cpu_bytes", step.at("cpu_bytes")},
                     {"cpu_capacity_bytes", step.at("cpu_capacity_bytes")},
                     {"reason", step.at("reason")}});
  }
  Json out = {{"chosen", rung(a)},
              {"micro_batch_size", a.at("micro_batch_size")},
              {"largest_fitting_micro_batch_size", a.at("largest_fitting_micro_batch_size")},
              {"limited_by", a.at("micro_batch_limited_by")},
              {"kept", a.at("pinned")},
              {"tried", std::move(tried)}};
  if (a.contains("ranking")) {
    Json ranking = Json::array();
    for (const Json& c : a.at("ranking")) {
      ranking.push_back({{"rung", rung(c)},
                         {"activation_checkpointing", c.at("activation_checkpointing")},
                         {"micro_batch_size", c.at("micro_batch_size")},
                         {"gradient_accumulation", c.at("gradient_accumulation")},
                         {"tokens_per_second", c.at("tokens_per_second")},
                         {"seconds", c.at("seconds")},
                         {"parts", c.at("parts")}});
    }
    out["objective"] = a.at("objective");
    out["candidates"] = a.at("candidates");
    out["ranking"] = std::move(ranking);
  }
  return out;
}

}  // namespace

Json memory_estimate_record(const Json& e, const Json* auto_fit) {
  Json out = header(auto_fit != nullptr && auto_fit->contains("ranking"));
  out["model"] = e.at("model").at("name");
  out["assumptions"] = assumptions(e);
  out["command"] = "zeroforge estimate";
  out["gpu"] = gpu(e);
  out["host"] = {{"total_bytes", e.at("total").at("cpu_bytes")},
                 {"capacity_bytes", e.at("capacity").at("cpu_bytes")},
                 {"nvme_bytes", e.at("model_states").at("nvme_bytes")}};
  out["cluster"] = {{"gpus_per_node", e.at("inputs").at("gpus_per_node")},
                    {"nodes", e.at("inputs").at("nodes")}};
  if (auto_fit != nullptr) out["fit"] = fit(*auto_fit);
  return out;
}

Json skipped_record(const std::string& why) {
  Json out = header();
  out["skipped"] = why;
  return out;
}

}  // namespace zf::memory
