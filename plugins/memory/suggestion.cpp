// SPDX-License-Identifier: MIT
// The smallest change that fits, in the order auto-fit escalates: the micro batch, then the
// stage, then optimizer and parameter offload (to NVMe too where there is one), then
// activation checkpointing.
#include "suggestion.hpp"

#include <cstdio>

namespace zf::memory {
namespace {

constexpr double kUnlimitedGib = 1e9;

bool fits(const Estimate& e) { return e.gpu_fits.value_or(true) && e.cpu_fits.value_or(true); }

std::string with_micro(std::int64_t micro) { return "micro batch " + std::to_string(micro); }

std::string need(const Estimate& e, bool cpu_given) {
  char buffer[128];
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::snprintf(buffer, sizeof buffer, "GPU %.2f GiB", static_cast<double>(e.total_gpu) / kGiB);
  std::string out = buffer;
  if (e.total_cpu > 0) {
    std::snprintf(buffer, sizeof buffer, ", CPU %.2f GiB per node%s",
                  static_cast<double>(e.total_cpu) / kGiB,
                  cpu_given ? "" : " (give --cpu-memory-gib to check it)");
    out += buffer;
  }
  if (e.model_states_nvme > 0) {
    // Not checked against a capacity: tiers state none.
    std::snprintf(buffer, sizeof buffer, ", NVMe %.2f GiB per node",
                  static_cast<double>(e.model_states_nvme) / kGiB);
    out += buffer;
  }
  return out;
}

// The largest micro batch up to `cap` that fits `in` as it is, or 0.
std::int64_t largest_micro(Inputs in, std::int64_t cap) {
  std::int64_t good = 0, bad = cap + 1;
  while (bad - good > 1) {
    const std::int64_t mid = good + (bad - good) / 2;
    in.micro_batch_size = mid;
    (fits(estimate(in)) ? good : bad) = mid;
  }
  return good;
}

std::optional<Suggestion> on_the_ladder(const Inputs& base, bool cpu_given, bool nvme) {
  FitRequest request;
  request.base = base;
  if (!request.base.cpu_memory_gib) request.base.cpu_memory_gib = kUnlimitedGib;
  request.space.stages.clear();
  for (int stage = std::max(1, base.stage); stage <= 3; ++stage)
    request.space.stages.push_back(stage);
  // Every offload the cluster holds, as auto-fit searches a tier: NVMe with an nvme_path.
  request.space.offload_optimizer = {Offload::None, Offload::Cpu, Offload::Nvme};
  request.space.offload_param = {Offload::None, Offload::Cpu, Offload::Nvme};
  request.space.nvme_available = nvme;
  request.max_micro_batch_size = base.micro_batch_size;
  FitResult result = fit(request);
  if (!result.fits) return std::nullopt;
  Suggestion out;
  out.fits = true;
  out.rung = result.rung;
  out.estimate = result.estimate;
  std::string change = describe(result.rung);
  if (result.micro_batch_size != base.micro_batch_size) {
    out.micro_batch_size = result.micro_batch_size;
    change += " with " + with_micro(result.micro_batch_size);
  }
  out.text = change + " fits (" + need(result.estimate, cpu_given) + ")";
  return out;
}

}  // namespace

Suggestion suggest(const Inputs& inputs, bool nvme_available) {
  const bool cpu_given = inputs.cpu_memory_gib.has_value();
  Inputs base = inputs;
  if (!cpu_given) base.cpu_memory_gib = kUnlimitedGib;
  // 1. The same options with a smaller micro batch (activations are all that shrink).
  if (inputs.micro_batch_size > 1) {
    if (std::int64_t micro = largest_micro(base, inputs.micro_batch_size - 1); micro > 0) {
      Suggestion out;
      out.fits = true;
      out.micro_batch_size = micro;
      base.micro_batch_size = micro;
      out.estimate = estimate(base);
      out.text =
          with_micro(micro) + " fits with these options (" + need(out.estimate, cpu_given) + ")";
      return out;
    }
  }
  // 2. Auto-fit's ladder: a higher stage, then offload.
  if (auto found = on_the_ladder(base, cpu_given, nvme_available)) return *found;
  // 3. The same with full activation checkpointing.
  if (inputs.checkpointing != Checkpointing::Full) {
    Inputs checkpointed = base;
    checkpointed.checkpointing = Checkpointing::Full;
    if (auto found = on_the_ladder(checkpointed, cpu_given, nvme_available)) {
      found->full_checkpointing = true;
      found->text = "with full activation checkpointing, " + found->text;
      return *found;
    }
  }
  // Nothing fits: say what the most escalated rung needs.
  const Offload away = nvme_available ? Offload::Nvme : Offload::Cpu;
  Inputs last = base;
  last.stage = 3;
  last.offload_optimizer = away;
  last.offload_param = away;
  last.micro_batch_size = 1;
  last.checkpointing = Checkpointing::Full;
  Suggestion out;
  out.estimate = estimate(last);
  out.text = std::string("nothing fits: even ZeRO-3 with optimizer and parameters offloaded to ") +
             (nvme_available ? "NVMe" : "the CPU") +
             ", full activation checkpointing and micro batch 1 needs " +
             need(out.estimate, cpu_given);
  return out;
}

}  // namespace zf::memory
