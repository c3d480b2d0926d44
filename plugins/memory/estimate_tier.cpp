// SPDX-License-Identifier: MIT
// `zeroforge estimate --tier`: a tier file's cluster facts, checked as the engine checks a
// tier (engine/src/values/tier_file.cpp) and as auto-fit reads them (hook_values.cpp).
#include "estimate_tier.hpp"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace zf::memory {
namespace {

namespace fs = std::filesystem;

// The engine's limit (zf::kMaxTierMemoryGib): a plugin links only the SDK.
constexpr double kMaxTierMemoryGib = 1048576.0;

// Finds the tier (out.file, out.name) and reads its file as a JSON object.
nlohmann::json read_tier_object(TierFacts& out, const std::string& name_or_path,
                                const std::string& data_dir, const FileReader& read,
                                const TierFinder& find) {
  if (find) {
    try {
      out.file = find(name_or_path);
    } catch (const std::exception& e) {
      throw std::invalid_argument(std::string("--tier: ") + e.what());
    }
  } else {
    out.file = preset_file(name_or_path, data_dir, "tiers", "--tier: unknown tier");
  }
  out.name = fs::path(out.file).stem().string();
  std::string text;
  try {
    text = read(out.file);  // the host's bounded reader, as for --model
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("--tier: ") + e.what());
  }
  nlohmann::json tier;
  try {
    tier = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(out.file + ": malformed JSON at byte " + std::to_string(e.byte) +
                                " (a tier is a JSON object)");
  }
  if (!tier.is_object()) {
    throw std::invalid_argument(out.file + ": expected a JSON object (a tier), got " +
                                std::string(tier.type_name()));
  }
  return tier;
}

// The cluster facts of `tier` (out.file's object), each checked as the engine checks it.
void read_tier_facts(const nlohmann::json& tier, TierFacts& out) {
  auto fail = [&](const char* key, const std::string& message) {
    throw std::invalid_argument(out.file + ": /" + key + ": " + message + ", got " +
                                tier.at(key).dump());
  };
  auto count = [&](const char* key, std::optional<std::int64_t>& into) {
    if (!tier.contains(key)) return;
    const nlohmann::json& v = tier[key];
    const bool integral = v.is_number_integer() ||
                          (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) &&
                           std::abs(v.get<double>()) < 9e15);
    if (!integral || v.get<double>() < 1) fail(key, "expected a positive integer");
    into = static_cast<std::int64_t>(v.get<double>());
  };
  auto gib = [&](const char* key, std::optional<double>& into) {
    if (!tier.contains(key)) return;
    const nlohmann::json& v = tier[key];
    if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() <= kMaxTierMemoryGib)) {
      fail(key, "expected a positive number of GiB (at most 1048576)");
    }
    into = v.get<double>();
  };
  count("gpus_per_node", out.gpus_per_node);
  count("nodes", out.nodes);
  gib("gpu_memory_gib", out.gpu_memory_gib);
  gib("cpu_memory_gib", out.cpu_memory_gib);
  if (tier.contains("gpu_memory_margin")) {
    const nlohmann::json& v = tier["gpu_memory_margin"];
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() < 1)) {
      fail("gpu_memory_margin",
           "expected a fraction from 0 to below 1 (0.05 leaves 5% of each GPU free)");
    }
    out.gpu_memory_margin = v.get<double>();
  }
  auto rate = [&](const char* key, const char* unit, std::optional<double>& into) {
    if (!tier.contains(key)) return;
    const nlohmann::json& v = tier[key];
    if (!v.is_number() || !(v.get<double>() > 0 && std::isfinite(v.get<double>()))) {
      fail(key, std::string("expected a positive number of ") + unit);
    }
    into = v.get<double>();
  };
  rate("gpu_tflops", "TFLOPS", out.gpu_tflops);
  rate("intra_node_gbs", "GB/s", out.intra_node_gbs);
  rate("inter_node_gbs", "GB/s", out.inter_node_gbs);
  rate("pcie_gbs", "GB/s", out.pcie_gbs);
  rate("nvme_gbs", "GB/s", out.nvme_gbs);
  count("cpu_cores", out.cpu_cores);
  if (tier.contains("gpu")) {
    if (!tier["gpu"].is_string()) fail("gpu", "expected a GPU name");
    out.gpu = tier["gpu"].get<std::string>();
  }
  if (tier.contains("nvme_path")) {
    if (!tier["nvme_path"].is_string()) fail("nvme_path", "expected a path");
    out.nvme_path = tier["nvme_path"].get<std::string>();
  }
}

}  // namespace

TierFacts load_estimate_tier(const std::string& name_or_path, const std::string& data_dir,
                             const FileReader& read, const TierFinder& find) {
  TierFacts out;
  read_tier_facts(read_tier_object(out, name_or_path, data_dir, read, find), out);
  return out;
}

}  // namespace zf::memory
