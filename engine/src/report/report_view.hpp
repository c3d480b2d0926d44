// SPDX-License-Identifier: MIT
// What the family report shows, read from a generate run: every config by tier with its
// facts, the memory estimate and fit trail a plugin published for it, its validator findings
// and what changed against the manifest already in the output directory. Pure: no I/O, no HTML.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zeroforge/validator.hpp"

namespace zf::report {

/// How a config compares with the manifest already in the output directory.
enum class Change {
  NotCompared,  ///< there was no manifest to compare with
  New,          ///< the old manifest does not list it
  Changed,      ///< listed with another sha256
  Unchanged,    ///< listed with the same sha256
};

/// "new", "changed", "unchanged" ("" for NotCompared).
const char* to_string(Change change);

/// One part of a stacked memory bar.
struct Segment {
  const char* key;    ///< stable: the SVG pattern's id and the CSS class (`model-states`)
  const char* label;  ///< what people read (`model states`)
  std::int64_t bytes = 0;
};

/// A config's memory as an estimator plugin published it: its memory estimate record
/// (`plugins.NAME.memory_estimate`, zeroforge/memory_estimate.hpp in the plugin SDK).
struct Memory {
  std::string publisher;  ///< the plugin's name (`memory`)
  std::string model;      ///< the preset name, or "custom"
  /// A command that prints the same figures (`zeroforge estimate`); "" for none.
  std::string command;
  /// The per-GPU peak, part by part: model states, stage-3 working set, communication
  /// buffers, then the peak phase's two parts (activations and fragmentation headroom, or the
  /// optimizer step and the activation blocks it cannot reuse), then the CUDA context. They
  /// add up to `gpu_total`.
  std::vector<Segment> gpu;
  bool step_is_peak = false;
  std::int64_t gpu_total = 0;
  std::int64_t gpu_capacity = 0;  ///< 0: the tier states none
  /// The capacity less the safety margin: what a config must fit in (= gpu_capacity for an
  /// estimate recorded before the margin, or a margin of 0).
  std::int64_t gpu_usable = 0;
  double gpu_margin = 0;          ///< the safety margin's fraction (0.05)
  std::int64_t cpu_total = 0;     ///< per node: the offloaded model states
  std::int64_t cpu_capacity = 0;  ///< 0: the tier states none
  std::int64_t nvme = 0;          ///< per node
  std::int64_t gpus_per_node = 0, nodes = 0;
  /// What the estimate assumed: "sequence 4096, activation checkpointing full, sdpa
  /// attention, hf loss, fragmentation 45% of activations" ("" when the record says none).
  std::string assumptions;
};

/// One rung of auto-fit's ladder that was tried and did not fit.
struct RejectedRung {
  std::string rung;  ///< "ZeRO-1, optimizer on GPU, parameters on GPU"
  std::int64_t micro_batch_size = 0;
  std::int64_t gpu_bytes = 0, cpu_bytes = 0, cpu_capacity = 0;
  std::int64_t gpu_usable = 0;  ///< the GPU's capacity less the safety margin
  std::string reason;           ///< the plugin's words
};

/// A candidate of auto-fit's objective "fastest" (`fit.ranking[]`, record version 2).
struct RankedCandidate {
  std::string rung;  ///< as RejectedRung::rung
  std::int64_t stage = 0;
  std::string optimizer_on, parameters_on;  ///< GPU, CPU or NVMe
  std::string checkpointing;                ///< none, selective, full
  std::int64_t micro_batch_size = 0, gradient_accumulation = 0;
  double tokens_per_second = 0;
  double seconds = 0;
  /// The step's parts in seconds, in kMemoryEstimateStepParts' order.
  std::vector<std::pair<std::string, double>> parts;
};

/// Why auto-fit chose what it chose (the `fit` of the memory estimate record).
struct AutoFit {
  std::string objective;                 ///< "" (the first rung that fits) or "fastest"
  std::int64_t candidates = 0;           ///< how many fitting candidates were timed
  std::vector<RankedCandidate> ranking;  ///< the first few, fastest (the chosen) first
  std::string chosen;                    ///< the rung, as RejectedRung::rung
  std::int64_t micro_batch_size = 0, largest_fitting_micro_batch_size = 0;
  std::string limited_by;  ///< memory, max_micro_batch_size, global_batch_size, ...
  std::vector<std::string> pinned;
  std::vector<RejectedRung> escalated;
};

/// One generated config.
struct Config {
  std::string path;              ///< relative to the output directory
  std::string variant;           ///< "stage=1 precision=bf16" ("" for none)
  nlohmann::ordered_json facts;  ///< the manifest entry's facts (stage, batch, ...)
  std::string sha256;
  Change change = Change::NotCompared;
  std::optional<Memory> memory;
  std::string no_memory;  ///< why there is no memory chart, when there is none
  std::optional<AutoFit> auto_fit;
  std::vector<Finding> findings;  ///< the validator's, `file` relative to the output directory
};

/// The configs of one tier, in path order.
struct Tier {
  std::string name;  ///< "" for a family without tiers
  std::vector<Config> configs;
  /// Whether any config has a memory estimate (the tier then has a chart).
  bool charted() const;
  /// Whether any config has auto-fit's ranking (the tier then has a throughput chart).
  bool ranked() const;
};

/// A config's path inside its tier's directory: `small/zero1-bf16.json` -> `zero1-bf16.json`
/// (the whole path when it does not start with the tier's name).
std::string name_in_tier(const Config& config, const Tier& tier);

/// The manifest already in the output directory (see zf::ManifestBaseline).
struct Baseline {
  bool present = false;
  std::string problem;                        ///< why it could not be read, when it could not
  std::map<std::string, std::string> sha256;  ///< path -> sha256
};

/// The whole page's content.
struct View {
  std::string family, description, template_name, zeroforge_version;
  /// From the report's directory to the output directory ("" when the same).
  std::string link_dir;
  bool manifest_written = false;  ///< the configs are in the output directory now
  Baseline baseline;
  std::vector<std::string> removed;  ///< listed by the old manifest, no longer generated
  std::vector<Tier> tiers;           ///< in the family's order, then any other tier names
  std::size_t configs = 0;
};

/// What the view is made from.
struct ViewInputs {
  std::string description;
  std::vector<std::string> tier_order;  ///< the family's tiers, in its order
  /// The manifest generate made (`GenerateResult::manifest_text`), parsed.
  nlohmann::ordered_json manifest;
  /// The validator's findings, each `file` starting with `finding_prefix`.
  std::vector<Finding> findings;
  std::string finding_prefix;
  Baseline baseline;
  std::string link_dir;
  bool manifest_written = false;
};

/// Builds the view. Throws zf::Error (Json, naming `manifest.json` and the JSON pointer) when
/// the manifest or a plugin's record in it lacks what the report reads.
View make_view(const ViewInputs& inputs);

}  // namespace zf::report
