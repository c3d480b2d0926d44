// SPDX-License-Identifier: MIT
// launch.kubernetes.gang (kubernetes_gang.hpp), from what each consumer reads:
// - the training operator 1.9 (PyTorchJob), run with --gang-scheduler-name, reads
//   spec.runPolicy.schedulingPolicy and creates the PodGroup named after the job itself
//   (pkg/controller.v1/common/job.go ReconcileJobs, scheduling.go SyncPodGroup): for Volcano
//   minMember, queue ("default" when unset) and priorityClassName; for scheduler-plugins
//   minMember and scheduleTimeoutSeconds. It sets the pods' schedulerName when they have none
//   and their group annotation or label (control/podgroup_control.go DecoratePodTemplateSpec).
// - Kubeflow Trainer 2.2 and 2.3 (TrainJob): gang scheduling is the runtime's
//   spec.podGroupPolicy (coscheduling or volcano); the PodGroup's minMember is always the job's
//   pod count, and the TrainJob can name only Volcano's queue, by the annotation
//   scheduling.volcano.sh/queue-name on the JobSet template its runtimePatches patch
//   (pkg/runtime/framework/plugins/volcano/volcano.go Build, core/trainingruntime.go
//   newRuntimeInfo).
// - Kueue (kubernetes-sigs/kueue): the job's label kueue.x-k8s.io/queue-name names its
//   LocalQueue, a DNS-1123 subdomain (jobframework/validation.go ValidateQueueName); its webhook
//   suspends the job until the workload is admitted whole.
#include "kubernetes_gang.hpp"

#include <array>
#include <limits>
#include <string_view>

#include "kubernetes_names.hpp"
#include "text_helpers.hpp"
#include "zeroforge/values.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::string_view, 4> kGangKeys = {"scheduler", "queue", "min_available",
                                                       "schedule_timeout_seconds"};
constexpr std::array<std::string_view, 3> kGangSchedulers = {"volcano", "coscheduling", "kueue"};
constexpr std::string_view kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
constexpr std::string_view kGangPointer = "/launch/kubernetes/gang";

std::string gang_list_text(const auto& keys) {
  std::string text;
  for (auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
  return text;
}

void refuse_gang(std::vector<CompanionProblem>& problems, std::string pointer,
                 std::string message) {
  problems.push_back({std::move(pointer), std::move(message)});
}

// A field the controllers read as an int32 (the CRDs' `format: int32`), at least 1.
bool is_gang_count(const Json& v) {
  return v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
         v.get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max();
}

}  // namespace

void read_gang(const Json& item, const std::string& pointer, Json& k,
               std::vector<CompanionProblem>& problems) {
  if (item.is_null()) return;
  if (!item.is_object()) {
    refuse_gang(problems, pointer,
                "launch.kubernetes.gang must be an object (" + gang_list_text(kGangKeys) +
                    ") or null, got " + item.dump());
    return;
  }
  Json gang = {{"scheduler", nullptr},
               {"queue", nullptr},
               {"min_available", nullptr},
               {"schedule_timeout_seconds", nullptr},
               {"priority_class", nullptr}};
  bool ok = true;
  for (const auto& [key, v] : item.items()) {
    const std::string at = pointer + "/" + escape_pointer_segment(key);
    if (!detail::is_listed(kGangKeys, key)) {
      const std::string guess = detail::nearest_name(key, kGangKeys);
      refuse_gang(problems, at,
                  "unknown key '" + key + "' in launch.kubernetes.gang (expected " +
                      gang_list_text(kGangKeys) + ")" +
                      (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      ok = false;
      continue;
    }
    if (v.is_null()) continue;
    if (key == "scheduler") {
      if (!v.is_string() || !detail::is_listed(kGangSchedulers, v.get<std::string>())) {
        refuse_gang(problems, at,
                    "launch.kubernetes.gang.scheduler must be \"volcano\" (Volcano's PodGroup), "
                    "\"coscheduling\" (the scheduler-plugins coscheduler's PodGroup) or \"kueue\" "
                    "(Kueue's queue label), got " +
                        v.dump());
        ok = false;
        continue;
      }
    } else if (key == "queue") {
      // A Volcano Queue and a Kueue LocalQueue are objects, named as the API server names them.
      if (!v.is_string() || !is_dns_subdomain(v.get<std::string>())) {
        refuse_gang(
            problems, at,
            "launch.kubernetes.gang.queue: " + v.dump() +
                " is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most "
                "253), as Kubernetes names a Volcano Queue or a Kueue LocalQueue");
        ok = false;
        continue;
      }
    } else if (!is_gang_count(v)) {
      refuse_gang(problems, at,
                  "launch.kubernetes.gang." + key +
                      " must be a whole number from 1 to 2147483647 (" +
                      (key == "min_available" ? std::string("pods") : std::string("seconds")) +
                      "; the PodGroup's field is an int32), got " + v.dump());
      ok = false;
      continue;
    }
    gang[key] = v;
  }
  if (ok && gang["scheduler"].is_null()) {
    // At the object: the missing key is written nowhere, and the object's pointer names its file.
    refuse_gang(
        problems, pointer,
        "launch.kubernetes.gang needs its scheduler: \"volcano\", \"coscheduling\" or \"kueue\"");
    ok = false;
  }
  if (ok) k["gang"] = std::move(gang);
}

void plan_gang(Json& k, std::int64_t nodes, std::vector<CompanionProblem>& problems) {
  Json& gang = k["gang"];
  if (gang.is_null()) return;
  const std::string scheduler = gang["scheduler"];
  const bool train_job = k["api"] == "TrainJob";
  const std::string queue_at = std::string(kGangPointer) + "/queue";
  const std::string min_at = std::string(kGangPointer) + "/min_available";
  const std::string timeout_at = std::string(kGangPointer) + "/schedule_timeout_seconds";
  const std::size_t before = problems.size();

  if (scheduler == "kueue") {
    if (gang["queue"].is_null()) {
      refuse_gang(problems, std::string(kGangPointer),
                  "launch.kubernetes.gang: Kueue admits a job through the LocalQueue its label "
                  "kueue.x-k8s.io/queue-name names; set gang.queue to that LocalQueue");
    } else if (!is_label_value(gang["queue"].get<std::string>())) {
      refuse_gang(
          problems, queue_at,
          "launch.kubernetes.gang.queue: " + gang["queue"].dump() +
              " is longer than a label value (at most 63), and Kueue names the LocalQueue in "
              "the label kueue.x-k8s.io/queue-name");
    }
    if (!gang["min_available"].is_null())
      refuse_gang(problems, min_at,
                  "launch.kubernetes.gang.min_available: Kueue admits a " +
                      k["api"].get<std::string>() +
                      " whole (the quota of all its pods at once) and has no minimum count for it; "
                      "leave it out");
    if (!gang["schedule_timeout_seconds"].is_null())
      refuse_gang(
          problems, timeout_at,
          "launch.kubernetes.gang.schedule_timeout_seconds: Kueue's wait for a job's pods is "
          "its own configuration (waitForPodsReady), not the job's; leave it out");
    const Json& labels = k["labels"];
    const std::string label(kKueueQueueLabel);
    if (labels.contains(label) && labels[label] != gang["queue"] && !gang["queue"].is_null())
      refuse_gang(problems, "/launch/kubernetes/labels/" + escape_pointer_segment(label),
                  "launch.kubernetes.labels." + label + ": " + labels[label].dump() +
                      " disagrees with launch.kubernetes.gang.queue " + gang["queue"].dump() +
                      ", which the manifest writes as that label; leave the label out");
    if (problems.size() == before) k["labels"][label] = gang["queue"];
    return;
  }

  if (train_job) {
    // The Trainer's PodGroup is the runtime's: the TrainJob carries Volcano's queue, no more.
    if (!gang["min_available"].is_null())
      refuse_gang(
          problems, min_at,
          "launch.kubernetes.gang.min_available: the Kubeflow Trainer sets a TrainJob's "
          "PodGroup minMember to the job's pod count itself, and the TrainJob has no field for "
          "it; leave it out, or use api PyTorchJob");
    if (!gang["schedule_timeout_seconds"].is_null())
      refuse_gang(
          problems, timeout_at,
          "launch.kubernetes.gang.schedule_timeout_seconds: a TrainJob's coscheduling timeout "
          "is its ClusterTrainingRuntime's (spec.podGroupPolicy.coscheduling."
          "scheduleTimeoutSeconds), which the TrainJob cannot set; set it there, or use api "
          "PyTorchJob");
    if (scheduler == "coscheduling") {
      if (!gang["queue"].is_null())
        refuse_gang(
            problems, queue_at,
            "launch.kubernetes.gang.queue: the coscheduling plugin has no queues (the "
            "scheduler-plugins PodGroup has no queue field); use Volcano or Kueue for a queue");
      else if (problems.size() == before)
        refuse_gang(
            problems, std::string(kGangPointer) + "/scheduler",
            "launch.kubernetes.gang: a TrainJob's coscheduling is its ClusterTrainingRuntime's "
            "spec.podGroupPolicy.coscheduling (the Kubeflow Trainer creates the PodGroup from "
            "it), and the TrainJob has no field for it; set it in the runtime and leave gang "
            "out, or use api PyTorchJob");
    } else if (gang["queue"].is_null() && problems.size() == before) {
      refuse_gang(
          problems, std::string(kGangPointer) + "/scheduler",
          "launch.kubernetes.gang: a TrainJob's Volcano gang scheduling is its "
          "ClusterTrainingRuntime's spec.podGroupPolicy.volcano (the Kubeflow Trainer creates "
          "the PodGroup from it), and the TrainJob can set only its queue; set gang.queue, or "
          "set the runtime and leave gang out");
    }
    return;
  }

  // A PyTorchJob: the operator's schedulingPolicy.
  if (scheduler == "coscheduling" && !gang["queue"].is_null())
    refuse_gang(
        problems, queue_at,
        "launch.kubernetes.gang.queue: the coscheduling plugin has no queues (the "
        "scheduler-plugins PodGroup has no queue field, and the training operator passes none "
        "to it); use Volcano or Kueue for a queue");
  if (scheduler == "volcano" && !gang["schedule_timeout_seconds"].is_null())
    refuse_gang(
        problems, timeout_at,
        "launch.kubernetes.gang.schedule_timeout_seconds: the training operator passes "
        "scheduleTimeoutSeconds only to the scheduler-plugins PodGroup (Volcano's has no such "
        "field); leave it out, or use scheduler \"coscheduling\"");
  if (scheduler == "volcano" && k["scheduler_name"].is_string() && k["scheduler_name"] != "volcano")
    refuse_gang(
        problems, "/launch/kubernetes/scheduler_name",
        "launch.kubernetes.scheduler_name: " + k["scheduler_name"].dump() +
            " is not Volcano's scheduler \"volcano\", which the training operator gives the "
            "pods of a Volcano gang (when they name none): under another scheduler they leave "
            "the gang; leave it out");
  if (gang["min_available"].is_null()) gang["min_available"] = nodes;
  if (gang["min_available"].get<std::int64_t>() > nodes)
    refuse_gang(problems, min_at,
                "launch.kubernetes.gang.min_available: " + gang["min_available"].dump() +
                    " is more than the job's " + std::to_string(nodes) + " pod" +
                    (nodes > 1 ? "s" : "") +
                    " (one per node): its PodGroup would wait for them for ever; leave it out (the "
                    "default is the job's pod count)");
  if (scheduler == "volcano") gang["priority_class"] = k["priority_class"];
}

}  // namespace zf::pipeline
