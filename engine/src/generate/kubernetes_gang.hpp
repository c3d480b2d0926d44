// SPDX-License-Identifier: MIT
// Gang scheduling of the kubernetes companion's job (`launch.kubernetes.gang`, docs/companions.md,
// "Gang scheduling"): Volcano, the scheduler-plugins coscheduler or Kueue, written as the Kubeflow
// controllers and Kueue read it, and refused where the job's API has no field for it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "companions.hpp"

namespace zf::pipeline {

/// Reads `launch.kubernetes.gang` (`item`, at `pointer`) into `k["gang"]`: null, or
/// `{"scheduler", "queue", "min_available", "schedule_timeout_seconds", "priority_class"}` (each
/// null where unset); appends a value of the wrong shape to `problems` with its pointer:
///
///     read_gang(gang, "/launch/kubernetes/gang", k, problems);
///     // {"/launch/kubernetes/gang/scheduler", "launch.kubernetes.gang.scheduler must be ..."}
void read_gang(const nlohmann::ordered_json& item, const std::string& pointer,
               nlohmann::ordered_json& k, std::vector<CompanionProblem>& problems);

/// What only a written job is checked for, once `k` is read (its `api`, `labels`,
/// `scheduler_name` and `priority_class` among them): each gang value the chosen API and
/// scheduler have no field for is refused at its pointer; then `k["gang"]` is completed for the
/// template: `min_available` defaults to `nodes` where the job's PodGroup takes one (a
/// PyTorchJob under Volcano or coscheduling), `priority_class` is the pods' for Volcano's
/// PodGroup, and Kueue's queue joins `k["labels"]` as `kueue.x-k8s.io/queue-name`.
void plan_gang(nlohmann::ordered_json& k, std::int64_t nodes,
               std::vector<CompanionProblem>& problems);

}  // namespace zf::pipeline
