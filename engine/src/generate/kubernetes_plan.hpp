// SPDX-License-Identifier: MIT
// The `kubernetes` companion's own values (docs/companions.md, "Kubernetes"): `launch.kubernetes`
// checked and `job.kubernetes` worked out from it, the tier and the config, for
// companions/kubernetes.yaml.j2 to write as it is (a ConfigMap and a Kubeflow training job).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "companions.hpp"

namespace zf::pipeline {

/// What the Kubernetes plan reads besides `launch.kubernetes`.
struct KubernetesSubject {
  std::string family;        ///< the family's name (the default job name starts with it)
  std::string config_path;   ///< relative to DIR, `/`-separated
  std::string config_ref;    ///< the config's path as static files name it (launch.config_dir)
  std::string hf_args_path;  ///< the hf-args companion's path under DIR, or "" when not written
  std::int64_t nodes = 1, gpus_per_node = 1;
  /// The config as written (its text goes into the ConfigMap byte for byte).
  const nlohmann::ordered_json* config = nullptr;
  /// The training arguments (job.hf_args): the ConfigMap's hf-args file, when it has one.
  const nlohmann::ordered_json* hf_args = nullptr;
  /// What else the manifest writes with tojson: the script, its arguments and the environment.
  const nlohmann::ordered_json* script = nullptr;
  const nlohmann::ordered_json* args = nullptr;
  const nlohmann::ordered_json* environment = nullptr;
  /// The config's tier as its file says, or null without tiers.
  const Tier* tier = nullptr;
  /// True when the `kubernetes` companion is written: only then are the job's own checks made.
  bool requested = false;
  /// The variables the companions set in the container besides launch.environment (the
  /// config's path for launch.style, the style's own), which launch.kubernetes.env may not set.
  std::vector<std::string> variables;
};

/// `job.kubernetes` from `launch.kubernetes` (`value`; null or absent: every default): `api`
/// (`PyTorchJob` or `TrainJob`), `api_version`, `name`, `config_map`, `namespace`, `image`,
/// `service_account` (null when unset), `node_selector` (an object), `tolerations`, `volumes`,
/// `volume_mounts` (lists of Kubernetes objects, as given), `gang` (kubernetes_gang.hpp; null
/// without one), the pod values (kubernetes_pod_values.hpp), `runtime` (the TrainJob's
/// ClusterTrainingRuntime), `config_key`, `config_mount`, `config_lines` (the config's text,
/// line by line, for a literal block scalar; null when the text cannot be one) and
/// `config_text`, and `hf_args_key`, `hf_args_mount`, `hf_args_lines`, `hf_args_text` (null
/// without the hf-args companion), `volumes_yaml` (each volume as yaml_flow_text writes it) and
/// `apply_argument` (the manifest's path quoted for a shell and kubectl's list-valued `-f`).
/// Appends each bad value to `problems` with its pointer, and (when `requested`) what the API
/// server's limits refuse (a ConfigMap over 1 MiB of data, a job over 1.5 MiB):
///
///     plan_kubernetes(&launch["kubernetes"], subject, problems);
///     // {"/launch/kubernetes/namespace", "launch.kubernetes.namespace: \"ML\" is not ..."}
nlohmann::ordered_json plan_kubernetes(const nlohmann::ordered_json* value,
                                       const KubernetesSubject& subject,
                                       std::vector<CompanionProblem>& problems);

}  // namespace zf::pipeline
