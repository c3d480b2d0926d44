// SPDX-License-Identifier: MIT
// The pod values of `launch.kubernetes` (docs/companions.md, "Kubernetes"): variables from
// Secrets and ConfigMaps (`env`, `env_from`), CPU and memory (`resources`), labels and
// annotations of the job and of its pods, `priority_class` and `scheduler_name`, checked as the
// API server checks them (core/validation ValidateEnv, ValidateEnvFrom,
// ValidateResourceRequirements, ValidateObjectMeta, ValidatePodSpec) and put in `job.kubernetes`
// for companions/kubernetes.yaml.j2.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "companions.hpp"

namespace zf::pipeline {

/// The keys of `launch.kubernetes` that read_pod_value reads.
inline constexpr std::array<std::string_view, 9> kPodValueKeys = {
    "env",        "env_from",        "resources",      "labels",        "annotations",
    "pod_labels", "pod_annotations", "priority_class", "scheduler_name"};

/// Puts the defaults of the pod values in `k` (job.kubernetes): `env`, `env_from` (empty
/// lists), `requests`, `limits`, `labels`, `annotations`, `pod_labels`, `pod_annotations`
/// (empty objects), `priority_class`, `scheduler_name` (null) and `gpu_resources` (the
/// `nvidia.com/gpu` counts `resources` named, by pointer: the template writes the config's own).
void add_pod_value_defaults(nlohmann::ordered_json& k);

/// Reads `launch.kubernetes.KEY` (`item`, at `pointer`; one of kPodValueKeys) into `k`, or
/// appends what the API server would refuse of it to `problems` with the pointer at fault:
///
///     read_pod_value("env", env, "/launch/kubernetes/env", k, problems);
///     // {"/launch/kubernetes/env/0/valueFrom/secretKeyRef/nme", "unknown key 'nme' in ..."}
void read_pod_value(std::string_view key, const nlohmann::ordered_json& item,
                    const std::string& pointer, nlohmann::ordered_json& k,
                    std::vector<CompanionProblem>& problems);

/// What only a written job is checked for, once `k` is read: a value the chosen API has no
/// field for (a TrainJob's pods take no envFrom, priorityClassName or schedulerName), an
/// `nvidia.com/gpu` in `resources` other than `gpus_per_node`, and a variable of `env` that
/// the container has already (`variables`: launch.environment's and the companions' own).
void check_pod_values(const nlohmann::ordered_json& k, std::int64_t gpus_per_node,
                      const std::vector<std::string>& variables,
                      std::vector<CompanionProblem>& problems);

}  // namespace zf::pipeline
