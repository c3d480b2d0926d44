// SPDX-License-Identifier: MIT
// The `slurm` companion's own values (docs/companions.md, "SLURM"): `launch.slurm` checked and
// `job.slurm` worked out from it and the tier, for companions/slurm.sbatch.j2 to write as it is.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "companions.hpp"

namespace zf::pipeline {

/// What the SLURM plan reads besides `launch.slurm`.
struct SlurmSubject {
  std::string family;       ///< the family's name (the default job name starts with it)
  std::string config_path;  ///< relative to DIR, `/`-separated
  std::int64_t gpus_per_node = 1;
  /// The values companions read (`cpu_cores` as layered: tier, family, --set).
  const nlohmann::ordered_json* values = nullptr;
  /// The config's tier as its file says, or null without tiers.
  const Tier* tier = nullptr;
  /// True when the `slurm` companion is written: only then is the tier asked for its GPUs.
  bool requested = false;
};

/// `job.slurm` from `launch.slurm` (`value`; null or absent: every default): `launcher`
/// (torchrun or accelerate), `job_name`, `partition`, `account`, `qos`, `time`, `constraint`,
/// `reservation`, `output` (null when unset), `exclusive`, `cpus_per_task`
/// (`launch.slurm.cpus_per_task`, else the tier's `cpu_cores`; null when neither, or when
/// launch.slurm says null) and `memory` (`launch.slurm.memory`, else `"0"`: all of each node's;
/// null when launch.slurm says null). Appends each bad value to `problems` with its pointer and,
/// when the companion is requested and `warnings` is given, the warning that the job gives its
/// GPU ranks fewer than 2 CPUs each (pointer `/cpu_cores`, `/launch/slurm/cpus_per_task`, or
/// empty when no value says how many):
///
///     plan_slurm(&launch["slurm"], subject, problems, &warnings);
///     // {"/launch/slurm/time", "launch.slurm.time: \"1h\" is not a time limit SLURM reads ..."}
nlohmann::ordered_json plan_slurm(const nlohmann::ordered_json* value, const SlurmSubject& subject,
                                  std::vector<CompanionProblem>& problems,
                                  std::vector<CompanionProblem>* warnings = nullptr);

}  // namespace zf::pipeline
