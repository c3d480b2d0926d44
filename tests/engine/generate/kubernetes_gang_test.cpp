// SPDX-License-Identifier: MIT
// launch.kubernetes.gang (engine/src/generate/kubernetes_gang.cpp), through plan_companions as
// generate calls it: what job.kubernetes carries for the template for each scheduler and API,
// and each refusal with its pointer and exact message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generate/companions.hpp"
#include "support/plan_subject.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

// A ZeRO-3 bf16 config on N nodes of 8 GPUs, launched by the kubernetes companion.
using Subject = test::PlanSubject;

TEST(KubernetesGangTest, EachSchedulerGivesTheTemplateWhatItsConsumerReads) {
  struct Case {
    const char* name;
    const char* kubernetes;  // merged into launch.kubernetes
    int nodes;
    const char* gang;    // job.kubernetes.gang, JSON
    const char* labels;  // job.kubernetes.labels, JSON
  };
  const std::vector<Case> cases = {
      {"none", R"({})", 4, "null", "{}"},
      {"null", R"({"gang": null})", 4, "null", "{}"},
      // The operator's PodGroup: minMember the job's pods unless given, the pods' priority class.
      {"volcano", R"({"gang": {"scheduler": "volcano", "queue": "research"},
                      "priority_class": "training-high"})",
       4,
       R"({"scheduler": "volcano", "queue": "research", "min_available": 4,
           "schedule_timeout_seconds": null, "priority_class": "training-high"})",
       "{}"},
      {"volcano with its own scheduler name and a minimum",
       R"({"gang": {"scheduler": "volcano", "min_available": 2}, "scheduler_name": "volcano"})", 4,
       R"({"scheduler": "volcano", "queue": null, "min_available": 2,
           "schedule_timeout_seconds": null, "priority_class": null})",
       "{}"},
      {"coscheduling", R"({"gang": {"scheduler": "coscheduling", "schedule_timeout_seconds": 600},
                           "priority_class": "training-high"})",
       8,
       R"({"scheduler": "coscheduling", "queue": null, "min_available": 8,
           "schedule_timeout_seconds": 600, "priority_class": null})",
       "{}"},
      {"coscheduling, one node, null values",
       R"({"gang": {"scheduler": "coscheduling", "queue": null, "min_available": null}})", 1,
       R"({"scheduler": "coscheduling", "queue": null, "min_available": 1,
           "schedule_timeout_seconds": null, "priority_class": null})",
       "{}"},
      // Kueue's queue is the job's label, beside the launch's own (the same value is no clash).
      {"kueue", R"({"gang": {"scheduler": "kueue", "queue": "team-a"},
                    "labels": {"team": "ml", "kueue.x-k8s.io/queue-name": "team-a"}})",
       2,
       R"({"scheduler": "kueue", "queue": "team-a", "min_available": null,
           "schedule_timeout_seconds": null, "priority_class": null})",
       R"({"team": "ml", "kueue.x-k8s.io/queue-name": "team-a"})"},
      {"kueue, a TrainJob", R"({"api": "TrainJob", "gang": {"scheduler": "kueue", "queue": "q"}})",
       2,
       R"({"scheduler": "kueue", "queue": "q", "min_available": null,
           "schedule_timeout_seconds": null, "priority_class": null})",
       R"({"kueue.x-k8s.io/queue-name": "q"})"},
      // A TrainJob's Volcano PodGroup is its runtime's; the job names the queue.
      {"volcano, a TrainJob",
       R"({"api": "TrainJob", "gang": {"scheduler": "volcano", "queue": "research"}})", 2,
       R"({"scheduler": "volcano", "queue": "research", "min_available": null,
           "schedule_timeout_seconds": null, "priority_class": null})",
       "{}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.nodes(c.nodes);
    s.kubernetes().update(Json::parse(c.kubernetes));
    CompanionPlan plan = s.plan();
    ASSERT_TRUE(plan.problems.empty())
        << plan.problems[0].pointer << ": " << plan.problems[0].message;
    const Json& k = plan.job.at("kubernetes");
    EXPECT_EQ(k.at("gang"), Json::parse(c.gang));
    EXPECT_EQ(k.at("labels"), Json::parse(c.labels));
  }
}

TEST(KubernetesGangTest, RefusesWhatTheSchedulerOrTheApiHasNoFieldFor) {
  struct Case {
    const char* name;
    const char* kubernetes;  // merged into launch.kubernetes
    const char* pointer;
    const char* message;
  };
  const std::vector<Case> cases = {
      // The value's own shape, checked whichever companions are written.
      {"not an object", R"({"gang": "volcano"})", "/launch/kubernetes/gang",
       "launch.kubernetes.gang must be an object (scheduler, queue, min_available, "
       "schedule_timeout_seconds) or null, got \"volcano\""},
      {"unknown key", R"({"gang": {"scheduler": "volcano", "minAvailable": 2}})",
       "/launch/kubernetes/gang/minAvailable",
       "unknown key 'minAvailable' in launch.kubernetes.gang (expected scheduler, queue, "
       "min_available, schedule_timeout_seconds); did you mean 'min_available'?"},
      {"no scheduler", R"({"gang": {"queue": "q"}})", "/launch/kubernetes/gang",
       "launch.kubernetes.gang needs its scheduler: \"volcano\", \"coscheduling\" or \"kueue\""},
      {"unknown scheduler", R"({"gang": {"scheduler": "yunikorn"}})",
       "/launch/kubernetes/gang/scheduler",
       "launch.kubernetes.gang.scheduler must be \"volcano\" (Volcano's PodGroup), "
       "\"coscheduling\" (the scheduler-plugins coscheduler's PodGroup) or \"kueue\" (Kueue's "
       "queue label), got \"yunikorn\""},
      {"queue upper case", R"({"gang": {"scheduler": "volcano", "queue": "Research"}})",
       "/launch/kubernetes/gang/queue",
       "launch.kubernetes.gang.queue: \"Research\" is not a DNS-1123 subdomain (lower-case "
       "letters, digits, '-' and '.', at most 253), as Kubernetes names a Volcano Queue or a "
       "Kueue LocalQueue"},
      {"min_available zero", R"({"gang": {"scheduler": "volcano", "min_available": 0}})",
       "/launch/kubernetes/gang/min_available",
       "launch.kubernetes.gang.min_available must be a whole number from 1 to 2147483647 (pods; "
       "the PodGroup's field is an int32), got 0"},
      {"timeout beyond int32",
       R"({"gang": {"scheduler": "coscheduling", "schedule_timeout_seconds": 2147483648}})",
       "/launch/kubernetes/gang/schedule_timeout_seconds",
       "launch.kubernetes.gang.schedule_timeout_seconds must be a whole number from 1 to "
       "2147483647 (seconds; the PodGroup's field is an int32), got 2147483648"},
      // What the job's consumer has no field for.
      {"more pods than the job", R"({"gang": {"scheduler": "volcano", "min_available": 5}})",
       "/launch/kubernetes/gang/min_available",
       "launch.kubernetes.gang.min_available: 5 is more than the job's 4 pods (one per node): "
       "its PodGroup would wait for them for ever; leave it out (the default is the job's pod "
       "count)"},
      {"coscheduling queue", R"({"gang": {"scheduler": "coscheduling", "queue": "q"}})",
       "/launch/kubernetes/gang/queue",
       "launch.kubernetes.gang.queue: the coscheduling plugin has no queues (the "
       "scheduler-plugins PodGroup has no queue field, and the training operator passes none to "
       "it); use Volcano or Kueue for a queue"},
      {"volcano timeout", R"({"gang": {"scheduler": "volcano", "schedule_timeout_seconds": 60}})",
       "/launch/kubernetes/gang/schedule_timeout_seconds",
       "launch.kubernetes.gang.schedule_timeout_seconds: the training operator passes "
       "scheduleTimeoutSeconds only to the scheduler-plugins PodGroup (Volcano's has no such "
       "field); leave it out, or use scheduler \"coscheduling\""},
      {"volcano under another scheduler",
       R"({"gang": {"scheduler": "volcano"}, "scheduler_name": "default-scheduler"})",
       "/launch/kubernetes/scheduler_name",
       "launch.kubernetes.scheduler_name: \"default-scheduler\" is not Volcano's scheduler "
       "\"volcano\", which the training operator gives the pods of a Volcano gang (when they "
       "name none): under another scheduler they leave the gang; leave it out"},
      {"kueue without a queue", R"({"gang": {"scheduler": "kueue"}})", "/launch/kubernetes/gang",
       "launch.kubernetes.gang: Kueue admits a job through the LocalQueue its label "
       "kueue.x-k8s.io/queue-name names; set gang.queue to that LocalQueue"},
      {"kueue queue longer than a label",
       R"({"gang": {"scheduler": "kueue", "queue": "team-a.research.example.com.h100.reserved.queue.of.the.language.lab"}})",
       "/launch/kubernetes/gang/queue",
       "launch.kubernetes.gang.queue: "
       "\"team-a.research.example.com.h100.reserved.queue.of.the.language.lab\" is longer than a "
       "label "
       "value (at most 63), and Kueue names the LocalQueue in the label "
       "kueue.x-k8s.io/queue-name"},
      {"kueue minimum", R"({"gang": {"scheduler": "kueue", "queue": "q", "min_available": 2}})",
       "/launch/kubernetes/gang/min_available",
       "launch.kubernetes.gang.min_available: Kueue admits a PyTorchJob whole (the quota of all "
       "its pods at once) and has no minimum count for it; leave it out"},
      {"kueue timeout",
       R"({"gang": {"scheduler": "kueue", "queue": "q", "schedule_timeout_seconds": 60}})",
       "/launch/kubernetes/gang/schedule_timeout_seconds",
       "launch.kubernetes.gang.schedule_timeout_seconds: Kueue's wait for a job's pods is its "
       "own configuration (waitForPodsReady), not the job's; leave it out"},
      {"kueue and another queue label",
       R"({"gang": {"scheduler": "kueue", "queue": "q"},
           "labels": {"kueue.x-k8s.io/queue-name": "other"}})",
       "/launch/kubernetes/labels/kueue.x-k8s.io~1queue-name",
       "launch.kubernetes.labels.kueue.x-k8s.io/queue-name: \"other\" disagrees with "
       "launch.kubernetes.gang.queue \"q\", which the manifest writes as that label; leave the "
       "label out"},
      {"a TrainJob's coscheduling", R"({"api": "TrainJob", "gang": {"scheduler": "coscheduling"}})",
       "/launch/kubernetes/gang/scheduler",
       "launch.kubernetes.gang: a TrainJob's coscheduling is its ClusterTrainingRuntime's "
       "spec.podGroupPolicy.coscheduling (the Kubeflow Trainer creates the PodGroup from it), and "
       "the TrainJob has no field for it; set it in the runtime and leave gang out, or use api "
       "PyTorchJob"},
      {"a TrainJob's Volcano without a queue",
       R"({"api": "TrainJob", "gang": {"scheduler": "volcano"}})",
       "/launch/kubernetes/gang/scheduler",
       "launch.kubernetes.gang: a TrainJob's Volcano gang scheduling is its "
       "ClusterTrainingRuntime's spec.podGroupPolicy.volcano (the Kubeflow Trainer creates the "
       "PodGroup from it), and the TrainJob can set only its queue; set gang.queue, or set the "
       "runtime and leave gang out"},
      {"a TrainJob's minimum",
       R"({"api": "TrainJob", "gang": {"scheduler": "volcano", "queue": "q", "min_available": 4}})",
       "/launch/kubernetes/gang/min_available",
       "launch.kubernetes.gang.min_available: the Kubeflow Trainer sets a TrainJob's PodGroup "
       "minMember to the job's pod count itself, and the TrainJob has no field for it; leave it "
       "out, or use api PyTorchJob"},
      {"a TrainJob's timeout",
       R"({"api": "TrainJob", "gang": {"scheduler": "coscheduling", "schedule_timeout_seconds": 60}})",
       "/launch/kubernetes/gang/schedule_timeout_seconds",
       "launch.kubernetes.gang.schedule_timeout_seconds: a TrainJob's coscheduling timeout is "
       "its ClusterTrainingRuntime's (spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds), "
       "which the TrainJob cannot set; set it there, or use api PyTorchJob"},
      {"a TrainJob's coscheduling queue",
       R"({"api": "TrainJob", "gang": {"scheduler": "coscheduling", "queue": "q"}})",
       "/launch/kubernetes/gang/queue",
       "launch.kubernetes.gang.queue: the coscheduling plugin has no queues (the "
       "scheduler-plugins PodGroup has no queue field); use Volcano or Kueue for a queue"},
      {"a TrainJob's Kueue minimum",
       R"({"api": "TrainJob", "gang": {"scheduler": "kueue", "queue": "q", "min_available": 4}})",
       "/launch/kubernetes/gang/min_available",
       "launch.kubernetes.gang.min_available: Kueue admits a TrainJob whole (the quota of all "
       "its pods at once) and has no minimum count for it; leave it out"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.nodes(4);
    s.kubernetes().update(Json::parse(c.kubernetes));
    CompanionPlan plan = s.plan({"torchrun"});
    if (plan.problems.empty()) plan = s.plan();  // a check of the written job
    ASSERT_EQ(plan.problems.size(), 1u) << (plan.problems.empty() ? "" : plan.problems[1].message);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

}  // namespace
}  // namespace zf::pipeline
