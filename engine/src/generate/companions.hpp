// SPDX-License-Identifier: MIT
// Companions (docs/companions.md): the files `generate --companions` writes next to each config
// so that its launch agrees with it: launch scripts, an accelerate config, Hugging Face
// TrainingArguments, a hostfile and a DeepSpeed environment file. Each is rendered from a
// template under companions/ over the config's values plus `job`, the facts worked out here.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "drift_check.hpp"
#include "fit_assumptions.hpp"
#include "output_dir.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/tiers.hpp"
#include "zeroforge/value.hpp"

namespace zf::pipeline {

/// A value a companion cannot be made from: the value's pointer (`/launch/args/2`) and why.
struct CompanionProblem {
  std::string pointer;
  std::string message;
};

/// What one config's companions are made from, besides its values.
struct CompanionSubject {
  std::string config_path;               ///< relative to DIR, `/`-separated
  const nlohmann::ordered_json* config;  ///< the config as written
  const DeepSpeedFacts* facts;           ///< the contract's facts of its values
  const nlohmann::ordered_json* values;  ///< the values companions read (see needed_values)
  /// The fit assumptions record of this config (manifest `plugins.NAME.fit_assumptions`,
  /// read_fit_assumptions), or null: what the fit assumed about the run, which the launch must
  /// carry out.
  const FitAssumptions* fit = nullptr;
  std::string family;          ///< the family's name (the SLURM job's default name)
  const Tier* tier = nullptr;  ///< the config's tier as its file says, or null
};

/// The companion files of one config: kind and path relative to DIR, in companion_kinds()
/// order, and `job` (docs/companions.md, "What templates see"), or the problems that stop them.
struct CompanionPlan {
  std::vector<std::pair<std::string, std::string>> files;
  nlohmann::ordered_json job;
  /// The launch as the manifest entry records it (`launch`, for `report`): `nodes`,
  /// `gpus_per_node`, and the scheduler's choice where one is written (`slurm`: its launcher;
  /// `kubernetes`: its API). Null when no companion is written.
  nlohmann::ordered_json launch;
  std::vector<CompanionProblem> problems;
  /// What the companions will do that the user should know of, though they are written
  /// (`companion.slurm-cpus`): a value's pointer, or empty, and the message.
  std::vector<CompanionProblem> warnings;
};

/// The top-level values companions read: `launch`, `gpus_per_node`, `nodes`, `world_size`,
/// `gradient_clipping`, `optimizer`, `scheduler` (where the config says "auto"),
/// `cpu_memory_gib` and `cpu_cores` (the tier's host, which the SLURM job asks for).
const std::vector<std::string>& companion_value_names();

/// Works out which companions `kinds` (the requested ones) gives this config and their `job`,
/// checking the `launch` values. Pure: reads nothing, writes nothing.
CompanionPlan plan_companions(const std::vector<std::string>& kinds,
                              const CompanionSubject& subject);

/// A companion kind's path for a config: the config's path without `.json`, plus the kind's
/// suffix (`medium/zero3.json` -> `medium/zero3.deepspeed.sh`).
std::string companion_path(const std::string& kind, const std::string& config_path);

/// The template a kind renders (`companions/deepspeed.sh.j2`).
std::string companion_template(const std::string& kind);

/// True for the kinds written executable (the launch scripts).
bool companion_is_executable(const std::string& kind);

/// When a job asks each node for more than the `gpus_per_node` its tier's nodes have, the end
/// of the scheduler companion's refusal: `the nodes of tier 'large' have 8 (tiers/large.json)`;
/// "" when they have enough, or without a tier (or a tier that does not say).
std::string tier_gpu_shortfall(const Tier* tier, std::int64_t gpus_per_node);

/// Renders and writes (or compares) the companions of every config of one generate. Immutable
/// once made: `write` may run on several threads.
class CompanionWriter {
 public:
  /// Loads the templates of every kind `kinds` may write from `environment` (a team's
  /// --template-dir first). Throws zf::Error when one is missing or does not parse.
  CompanionWriter(const Environment& environment, std::vector<std::string> kinds);

  const std::vector<std::string>& kinds() const noexcept { return kinds_; }

  /// Renders `plan.files` over `values` (the config's values; `globals` below them, as for the
  /// config) plus `job`, and stages each (with `drift`, compares it; with neither, a dry run,
  /// only renders it). Returns each file's drift status (Same when staged), in plan order.
  /// Throws zf::Error for a template error.
  std::vector<DriftStatus> write(const CompanionPlan& plan, const Value& values,
                                 const Value* globals, StagedOutput* staged,
                                 const DriftCheck* drift) const;

 private:
  std::vector<std::string> kinds_;
  std::vector<std::pair<std::string, std::shared_ptr<const Template>>> templates_;
};

}  // namespace zf::pipeline
