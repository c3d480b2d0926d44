// SPDX-License-Identifier: MIT
// visible_gpus: CUDA_VISIBLE_DEVICES by the rules of the CUDA documentation ("CUDA Environment
// Variables"): indices or GPU UUIDs (unique prefixes allowed), in the given order, cut at the
// first invalid entry (`0,2,-1,1` shows 0 and 2).
#include "visible_gpus.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"

namespace zf::cli {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool all_digits(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The GPU `entry` names, or nullptr.
const Gpu* named(const std::vector<Gpu>& all, const std::string& entry) {
  if (all_digits(entry)) {
    const int index = std::stoi(entry);
    for (const Gpu& gpu : all)
      if (gpu.index == index) return &gpu;
    return nullptr;
  }
  // CUDA wants at least one digit of the UUID: "GPU-" alone names no GPU, even on a machine
  // with one (checked with CUDA 13: cudaGetDeviceCount fails).
  if (!entry.starts_with("GPU-") || entry.size() == 4) return nullptr;
  const Gpu* found = nullptr;
  for (const Gpu& gpu : all) {
    if (!gpu.uuid.starts_with(entry)) continue;
    if (found) return nullptr;  // a prefix of two GPUs' UUIDs names neither
    found = &gpu;
  }
  return found;
}

// A warning of probe's about the GPUs: no location, so it prints `zeroforge: warning: ...`.
Diagnostic probe_warning(std::string code, std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.severity = Severity::Warning;
  d.kind = ErrorKind::Usage;
  d.message = std::move(message);
  return d;
}

}  // namespace

VisibleGpus visible_gpus(const std::vector<Gpu>& all, const char* cuda_visible_devices,
                         const char* cuda_device_order) {
  VisibleGpus out;
  if (cuda_visible_devices == nullptr) {
    out.gpus = all;
    return out;
  }
  const std::string value = cuda_visible_devices;
  const std::string shown = "CUDA_VISIBLE_DEVICES='" + value + "'";
  bool by_index = false;
  std::size_t at = 0;
  while (at <= value.size() && !value.empty()) {
    std::size_t comma = value.find(',', at);
    if (comma == std::string::npos) comma = value.size();
    const std::string entry = trimmed(value.substr(at, comma - at));
    at = comma + 1;
    if (entry.starts_with("MIG-")) {
      throw Error(ErrorKind::Usage,
                  shown + " names a MIG instance ('" + entry +
                      "'): probe measures whole GPUs (nvidia-smi's memory.total), not MIG "
                      "slices; write the tier by hand with the slice's memory");
    }
    const Gpu* gpu = named(all, entry);
    if (gpu == nullptr) {
      out.warnings.push_back(probe_warning(
          codes::probe_cuda_visible_ignored,
          shown + ": '" + entry + "' names no GPU of this machine (nvidia-smi indices 0-" +
              std::to_string(all.back().index) +
              ", or a GPU-UUID prefix naming one GPU), and CUDA ignores it and every entry "
              "after it"));
      break;
    }
    // CUDA refuses a list that names a GPU twice outright (cudaErrorInvalidDevice), so a job
    // would see no GPU at all.
    for (const Gpu& seen : out.gpus) {
      if (seen.uuid == gpu->uuid) {
        throw Error(ErrorKind::Usage, shown + " names GPU " + std::to_string(gpu->index) + " (" +
                                          gpu->uuid + ") twice; name each GPU once");
      }
    }
    by_index = by_index || all_digits(entry);
    out.gpus.push_back(*gpu);
  }
  if (out.gpus.empty()) {
    out.none_left = shown +
                    " leaves no GPU visible to CUDA: unset it, or name the GPUs a job uses "
                    "(nvidia-smi indices or GPU UUIDs)";
    return out;
  }
  // CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; nvidia-smi numbers
  // them by PCI bus. The two agree when the GPUs are all alike.
  const bool alike = std::all_of(all.begin(), all.end(), [&](const Gpu& gpu) {
    return gpu.name == all.front().name && gpu.memory_mib == all.front().memory_mib;
  });
  if (by_index && !alike &&
      (cuda_device_order == nullptr || std::string(cuda_device_order) != "PCI_BUS_ID")) {
    out.warnings.push_back(probe_warning(
        codes::probe_cuda_visible_order,
        shown +
            " gives indices on a machine with different GPUs: probe reads them as nvidia-smi "
            "numbers its GPUs (by PCI bus), as CUDA does only with CUDA_DEVICE_ORDER=PCI_BUS_ID; "
            "name the GPUs by UUID to be sure"));
  }
  return out;
}

std::int64_t centi_gib(std::int64_t amount, std::int64_t units_per_gib) {
  return amount * 100 / units_per_gib;
}

std::string centi_text(std::int64_t centi) {
  std::string fraction = std::to_string(centi % 100);
  if (fraction.size() < 2) fraction.insert(0, 1, '0');
  return std::to_string(centi / 100) + "." + fraction;
}

std::string describe_gpu_kind(const std::string& name, std::int64_t memory_mib, int count) {
  return std::to_string(count) + " x " + name + " (" + std::to_string(memory_mib) +
         " MiB = " + centi_text(centi_gib(memory_mib, 1024)) + " GiB)";
}

std::optional<Diagnostic> mixed_gpus_warning(const std::vector<Gpu>& gpus, bool named_by_variable) {
  if (gpus.empty()) return std::nullopt;
  std::int64_t smallest_mib = gpus.front().memory_mib;
  std::map<std::pair<std::string, std::int64_t>, int> kinds;
  // In nvidia-smi's order of first appearance, so the message follows the card indices.
  std::vector<std::pair<std::string, std::int64_t>> order;
  for (const Gpu& gpu : gpus) {
    smallest_mib = std::min(smallest_mib, gpu.memory_mib);
    std::pair<std::string, std::int64_t> kind{gpu.name, gpu.memory_mib};
    if (kinds[kind]++ == 0) order.push_back(kind);
  }
  if (order.size() < 2) return std::nullopt;
  std::string list;
  for (const auto& kind : order) {
    list += (list.empty() ? "" : ", ") + describe_gpu_kind(kind.first, kind.second, kinds[kind]);
  }
  return probe_warning(
      codes::probe_mixed_gpus,
      std::string(named_by_variable ? "the GPUs CUDA_VISIBLE_DEVICES names mix: "
                                    : "this machine mixes GPUs: ") +
          list + "; the tier takes the smallest, " + centi_text(centi_gib(smallest_mib, 1024)) +
          " GiB, for every GPU so that a config fits every rank (set gpus_per_node to the GPUs "
          "the job uses if it leaves some out)");
}

}  // namespace zf::cli
