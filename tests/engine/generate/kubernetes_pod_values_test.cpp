// SPDX-License-Identifier: MIT
// The pod values of launch.kubernetes (engine/src/generate/kubernetes_pod_values.cpp) and the
// job name rules of the controllers (kubernetes_plan.cpp check_name), through plan_companions as
// generate calls it: what job.kubernetes carries for the template, and each refusal with its
// pointer and exact message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generate/companions.hpp"
#include "generate/kubernetes_names.hpp"
#include "support/plan_subject.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

// A ZeRO-3 bf16 config on N nodes of 8 GPUs, launched by the kubernetes companion.
using Subject = test::PlanSubject;

TEST(KubernetesPodValuesTest, EveryValueReachesTheJobAsTheTemplateWritesIt) {
  Subject s;
  s.kubernetes().update(Json::parse(R"({
    "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}],
    "env_from": [{"configMapRef": {"name": "team-env", "optional": true}, "prefix": "TEAM_"}],
    "resources": {"requests": {"cpu": "500m", "memory": 1073741824, "nvidia.com/gpu": 8},
                  "limits": {"cpu": 1, "memory": "1Gi", "nvidia.com/gpu": "8",
                             "vpc.amazonaws.com/efa": 4},
                  "claims": null},
    "labels": {"kueue.x-k8s.io/queue-name": "team-a", "empty": ""},
    "annotations": {"Example.COM/Owner": "ml platform"},
    "pod_labels": {"team": "ml"}, "pod_annotations": {"sidecar.istio.io/inject": "false"},
    "priority_class": "high", "scheduler_name": "default-scheduler"})"));
  s.kubernetes()["resources"].erase("claims");
  CompanionPlan plan = s.plan();
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].pointer << plan.problems[0].message;
  const Json& k = plan.job.at("kubernetes");
  const Json& given = s.kubernetes();
  for (const char* key : {"env", "env_from", "labels", "annotations", "pod_labels",
                          "pod_annotations", "priority_class", "scheduler_name"})
    EXPECT_EQ(k.at(key), given.at(key)) << key;
  // Quantities as strings (a whole number as its digits); nvidia.com/gpu is the template's own.
  EXPECT_EQ(k.at("requests"), Json::parse(R"({"cpu": "500m", "memory": "1073741824"})"));
  EXPECT_EQ(k.at("limits"),
            Json::parse(R"({"cpu": "1", "memory": "1Gi", "vpc.amazonaws.com/efa": "4"})"));
}

TEST(KubernetesPodValuesTest, RefusesWhatTheApiServerWould) {
  struct Case {
    const char* name;
    const char* kubernetes;  // merged into launch.kubernetes, JSON
    const char* pointer;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"env not a list", R"({"env": {"HF_TOKEN": "x"}})", "/launch/kubernetes/env",
       "launch.kubernetes.env must be a list of variables from Secrets and ConfigMaps "
       "({\"name\": \"HF_TOKEN\", \"valueFrom\": {\"secretKeyRef\": {\"name\": \"hf\", \"key\": "
       "\"token\"}}}), got {\"HF_TOKEN\":\"x\"}"},
      {"env with a plain value", R"({"env": [{"name": "A", "value": "1"}]})",
       "/launch/kubernetes/env/0/value",
       "launch.kubernetes.env takes variables from Secrets and ConfigMaps (valueFrom); a plain "
       "value goes in launch.environment, which every launch sets"},
      {"env unknown key",
       R"({"env": [{"name": "A", "valuefrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/valuefrom",
       "unknown key 'valuefrom' in a variable of launch.kubernetes.env (expected name, "
       "valueFrom); did you mean 'valueFrom'?"},
      {"env name",
       R"({"env": [{"name": "1A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/name",
       "launch.kubernetes.env: the name \"1A\" is not a variable name (letters, digits, '_', '-' "
       "and '.', not starting with a digit), as Kubernetes requires"},
      {"env twice",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
                  {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}]})",
       "/launch/kubernetes/env/1/name", "launch.kubernetes.env: \"A\" is listed twice"},
      {"valueFrom source misspelt",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRf": {"name": "s", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/secretKeyRf",
       "unknown key 'secretKeyRf' in valueFrom of launch.kubernetes.env (expected secretKeyRef, "
       "configMapKeyRef); did you mean 'secretKeyRef'?"},
      {"valueFrom two sources",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}, "configMapKeyRef": {"name": "c", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/valueFrom",
       "launch.kubernetes.env: valueFrom must be an object of exactly one of secretKeyRef, "
       "configMapKeyRef, got {\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"},"
       "\"configMapKeyRef\":{\"name\":\"c\",\"key\":\"k\"}}"},
      {"key selector unknown key",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "ky": "k"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/secretKeyRef/ky",
       "unknown key 'ky' in launch.kubernetes.env: secretKeyRef (expected name, key, optional); "
       "did you mean 'key'?"},
      {"key selector without a key",
       R"({"env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "c"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/configMapKeyRef/key",
       "launch.kubernetes.env: configMapKeyRef: the key is missing (at most 253 letters, digits, "
       "'-', '_' and '.')"},
      {"secret name upper case",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "HF", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/secretKeyRef/name",
       "launch.kubernetes.env: secretKeyRef: the name \"HF\" is not a DNS-1123 subdomain "
       "(lower-case letters, digits, '-' and '.', at most 253), as Kubernetes names a Secret or "
       "ConfigMap"},
      {"key with a slash",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "a/b"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/secretKeyRef/key",
       "launch.kubernetes.env: secretKeyRef: the key \"a/b\" is not a key of a Secret or "
       "ConfigMap (at most 253 letters, digits, '-', '_' and '.')"},
      {"optional a string",
       R"({"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": "yes"}}}]})",
       "/launch/kubernetes/env/0/valueFrom/secretKeyRef/optional",
       "launch.kubernetes.env: secretKeyRef: optional must be true or false, got \"yes\""},
      {"env_from both",
       R"({"env_from": [{"secretRef": {"name": "s"}, "configMapRef": {"name": "c"}}]})",
       "/launch/kubernetes/env_from/0",
       "launch.kubernetes.env_from: an entry names both secretRef and configMapRef; Kubernetes "
       "takes exactly one"},
      {"env_from neither", R"({"env_from": [{"prefix": "A_"}]})", "/launch/kubernetes/env_from/0",
       "launch.kubernetes.env_from: an entry names neither secretRef nor configMapRef; "
       "Kubernetes takes exactly one"},
      {"env_from unknown key", R"({"env_from": [{"secretRef": {"name": "s"}, "prefx": "A_"}]})",
       "/launch/kubernetes/env_from/0/prefx",
       "unknown key 'prefx' in an entry of launch.kubernetes.env_from (expected secretRef, "
       "configMapRef, prefix); did you mean 'prefix'?"},
      {"env_from a key", R"({"env_from": [{"secretRef": {"name": "s", "key": "k"}}]})",
       "/launch/kubernetes/env_from/0/secretRef/key",
       "unknown key 'key' in launch.kubernetes.env_from: secretRef (expected name, optional)"},
      {"env_from prefix", R"({"env_from": [{"secretRef": {"name": "s"}, "prefix": "9_"}]})",
       "/launch/kubernetes/env_from/0/prefix",
       "launch.kubernetes.env_from: the prefix \"9_\" is not the start of a variable name "
       "(letters, digits, '_', '-' and '.', not starting with a digit), as Kubernetes requires"},
      {"resources unknown key", R"({"resources": {"limit": {"cpu": "1"}}})",
       "/launch/kubernetes/resources/limit",
       "unknown key 'limit' in launch.kubernetes.resources (expected requests, limits); did you "
       "mean 'limits'?"},
      {"unknown resource", R"({"resources": {"requests": {"cpus": "1"}}})",
       "/launch/kubernetes/resources/requests/cpus",
       "launch.kubernetes.resources.requests: unknown resource 'cpus' (a container asks for cpu, "
       "memory, ephemeral-storage, or an extended resource named with its domain, as "
       "nvidia.com/gpu); did you mean 'cpu'?"},
      {"a kubernetes.io resource", R"({"resources": {"limits": {"kubernetes.io/gpu": 1}}})",
       "/launch/kubernetes/resources/limits/kubernetes.io~1gpu",
       "launch.kubernetes.resources.limits: unknown resource 'kubernetes.io/gpu' (a container "
       "asks for cpu, memory, ephemeral-storage, or an extended resource named with its domain, "
       "as nvidia.com/gpu)"},
      {"not a quantity", R"({"resources": {"requests": {"memory": "512GB"}}})",
       "/launch/kubernetes/resources/requests/memory",
       "launch.kubernetes.resources.requests.memory: \"512GB\" is not a Kubernetes quantity (a "
       "whole number, or a string such as \"500m\", \"64\", \"512Gi\", \"1.5e3\")"},
      {"a float", R"({"resources": {"requests": {"cpu": 0.5}}})",
       "/launch/kubernetes/resources/requests/cpu",
       "launch.kubernetes.resources.requests.cpu: 0.5 is not a Kubernetes quantity (a whole "
       "number, or a string such as \"500m\", \"64\", \"512Gi\", \"1.5e3\")"},
      {"negative", R"({"resources": {"limits": {"cpu": "-1"}}})",
       "/launch/kubernetes/resources/limits/cpu",
       "launch.kubernetes.resources.limits.cpu: \"-1\" is negative (a whole number, or a string "
       "such as \"500m\", \"64\", \"512Gi\", \"1.5e3\")"},
      {"extended resource in part", R"({"resources": {"limits": {"rdma/ib": "500m"}}})",
       "/launch/kubernetes/resources/limits/rdma~1ib",
       "launch.kubernetes.resources.limits.rdma/ib: \"500m\" must be a whole number, as "
       "Kubernetes counts an extended resource"},
      {"request over its limit",
       R"({"resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "2000Mi"}}})",
       "/launch/kubernetes/resources/requests/memory",
       "launch.kubernetes.resources.requests.memory is more than its limit (\"2000Mi\"); "
       "Kubernetes requires a request at most its limit"},
      {"extended request without its limit",
       R"({"resources": {"requests": {"vpc.amazonaws.com/efa": 4}}})",
       "/launch/kubernetes/resources/requests/vpc.amazonaws.com~1efa",
       "launch.kubernetes.resources.requests.vpc.amazonaws.com/efa: an extended resource needs "
       "its limit too (Kubernetes: \"Limit must be set for non overcommitable resources\"); set it "
       "in limits"},
      {"extended request below its limit",
       R"({"resources": {"requests": {"rdma/ib": 1}, "limits": {"rdma/ib": 2}}})",
       "/launch/kubernetes/resources/requests/rdma~1ib",
       "launch.kubernetes.resources.requests.rdma/ib is not equal to its limit (2); Kubernetes "
       "requires a request equal to the limit of an extended resource"},
      {"GPUs other than the tier's", R"({"resources": {"limits": {"nvidia.com/gpu": 4}}})",
       "/launch/kubernetes/resources/limits/nvidia.com~1gpu",
       "launch.kubernetes.resources: nvidia.com/gpu: 4 disagrees with the config's "
       "gpus_per_node=8 (the tier's GPUs per node, the count torchrun starts a rank for and the "
       "manifest asks each pod for); leave it out, or change gpus_per_node"},
      {"label key", R"({"labels": {"Team_A/queue": "a"}})",
       "/launch/kubernetes/labels/Team_A~1queue",
       "launch.kubernetes.labels: \"Team_A/queue\" is not a label key (an optional DNS subdomain "
       "of at most 253 and '/', then at most 63 letters, digits, '-', '_' and '.', starting and "
       "ending with a letter or digit), as Kubernetes requires"},
      {"label value too long",
       R"({"pod_labels": {"run": "a123456789012345678901234567890123456789012345678901234567890123"}})",
       "/launch/kubernetes/pod_labels/run",
       "launch.kubernetes.pod_labels.run: "
       "\"a123456789012345678901234567890123456789012345678901234567890123\" is not a label "
       "value (a string: empty, or at most 63 letters, digits, '-', '_' and '.', starting and "
       "ending with a letter or digit), as Kubernetes requires"},
      {"label value a number", R"({"labels": {"run": 7}})", "/launch/kubernetes/labels/run",
       "launch.kubernetes.labels.run: 7 is not a label value (a string: empty, or at most 63 "
       "letters, digits, '-', '_' and '.', starting and ending with a letter or digit), as "
       "Kubernetes requires"},
      {"the manifest's own label", R"({"labels": {"app.kubernetes.io/managed-by": "helm"}})",
       "/launch/kubernetes/labels/app.kubernetes.io~1managed-by",
       "launch.kubernetes.labels: the manifest sets app.kubernetes.io/managed-by itself "
       "(zeroforge); leave it out"},
      {"annotation key", R"({"annotations": {"a b": "c"}})", "/launch/kubernetes/annotations/a b",
       "launch.kubernetes.annotations: \"a b\" is not an annotation key (a label key: an "
       "optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' and '.'), as "
       "Kubernetes requires"},
      {"annotation value", R"({"pod_annotations": {"a": true}})",
       "/launch/kubernetes/pod_annotations/a",
       "launch.kubernetes.pod_annotations.a must be a string, got true"},
      {"priority class", R"({"priority_class": "High"})", "/launch/kubernetes/priority_class",
       "launch.kubernetes.priority_class: \"High\" is not a DNS-1123 subdomain (lower-case "
       "letters, digits, '-' and '.', at most 253), as Kubernetes requires of a pod's "
       "priorityClassName"},
      {"scheduler name", R"({"scheduler_name": ""})", "/launch/kubernetes/scheduler_name",
       "launch.kubernetes.scheduler_name: \"\" is not a DNS-1123 subdomain (lower-case letters, "
       "digits, '-' and '.', at most 253), as Kubernetes requires of a pod's schedulerName"},
      {"a variable set twice",
       R"({"env": [{"name": "ZEROFORGE_DS_CONFIG", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/name",
       "launch.kubernetes.env: \"ZEROFORGE_DS_CONFIG\" is set already (launch.environment, or "
       "the companions for launch.style); a container takes a variable once"},
      {"an operator's variable",
       R"({"env": [{"name": "MASTER_ADDR", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}]})",
       "/launch/kubernetes/env/0/name",
       "launch.kubernetes.env: \"MASTER_ADDR\" is set by the Kubeflow training operator in every "
       "training container (the rendezvous and the ranks: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, "
       "RANK, PET_MASTER_ADDR, PET_MASTER_PORT, PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, "
       "PYTHONUNBUFFERED); leave it out"},
      {"TrainJob envFrom", R"({"api": "TrainJob", "env_from": [{"secretRef": {"name": "s"}}]})",
       "/launch/kubernetes/env_from",
       "launch.kubernetes.env_from: a TrainJob has no place for a pod's envFrom (Kubeflow "
       "Trainer 2.3 patches only a pod's affinity, containers' env and mounts, nodeSelector, "
       "tolerations, volumes and service account); set it in the ClusterTrainingRuntime, or use "
       "api PyTorchJob"},
      {"TrainJob priority class", R"({"api": "TrainJob", "priority_class": "high"})",
       "/launch/kubernetes/priority_class",
       "launch.kubernetes.priority_class: a TrainJob has no place for a pod's priorityClassName "
       "(Kubeflow Trainer 2.3 patches only a pod's affinity, containers' env and mounts, "
       "nodeSelector, tolerations, volumes and service account); set it in the "
       "ClusterTrainingRuntime, or use api PyTorchJob"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    if (std::string(c.name) == "a variable set twice") s.values["launch"]["style"] = "plain";
    s.kubernetes().update(Json::parse(c.kubernetes));
    CompanionPlan plan = s.plan();
    ASSERT_EQ(plan.problems.size(), 1u) << (plan.problems.empty() ? "" : plan.problems[0].message);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

// The job's name as each controller takes it: a DNS-1035 label (no leading digit), and for a
// TrainJob JobSet's budget: NAME-node-0-(N-1) and 6 characters the Job controller appends, at
// most 63.
TEST(KubernetesPodValuesTest, JobNamesAreCheckedByTheirControllersRules) {
  struct Case {
    const char* api;
    int nodes;
    std::size_t longest;  // the longest name taken
  };
  for (const Case& c : {Case{"TrainJob", 8, 48}, Case{"TrainJob", 16, 47}, Case{"TrainJob", 1, 48},
                        Case{"PyTorchJob", 1, 54}, Case{"PyTorchJob", 16, 53}}) {
    SCOPED_TRACE(std::string(c.api) + " x" + std::to_string(c.nodes));
    Subject s;
    s.nodes(c.nodes);
    s.kubernetes()["api"] = c.api;
    s.kubernetes()["name"] = "a" + std::string(c.longest - 1, 'b');
    EXPECT_TRUE(s.plan().problems.empty());
    s.kubernetes()["name"] = "a" + std::string(c.longest, 'b');
    CompanionPlan plan = s.plan();
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, "/launch/kubernetes/name");
  }
  Subject s;
  s.kubernetes()["api"] = "TrainJob";
  s.nodes(8);
  s.kubernetes()["name"] = "a" + std::string(48, 'b');
  EXPECT_EQ(s.plan().problems.at(0).message,
            "launch.kubernetes.name: \"a" + std::string(48, 'b') +
                "\" is too long: the TrainJob's JobSet names its last pod \"a" +
                std::string(48, 'b') +
                "-node-0-7\" and the Job controller appends 6 characters (\"-abcde\"), 64 in "
                "all, and JobSet's webhook refuses a pod name over 63 (a DNS-1035 label): at "
                "most 48 characters for 8 nodes; set a shorter launch.kubernetes.name");
  // A leading digit, given or the default (a family named 7B), for either API.
  for (const char* api : {"TrainJob", "PyTorchJob"}) {
    SCOPED_TRACE(api);
    Subject digit;
    digit.kubernetes()["api"] = api;
    digit.kubernetes()["name"] = "7b-run";
    CompanionPlan plan = digit.plan();
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, "/launch/kubernetes/name");
    EXPECT_TRUE(plan.problems[0].message.starts_with(
        "launch.kubernetes.name: \"7b-run\" starts with a digit, and the "))
        << plan.problems[0].message;
    digit.kubernetes().erase("name");
    digit.family = "7B";
    plan = digit.plan();
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_TRUE(plan.problems[0].message.starts_with(
        "launch.kubernetes.name: \"7b-medium-zero3\" (the default: the family's name and the "
        "config's path) starts with a digit"))
        << plan.problems[0].message;
  }
}

TEST(KubernetesNamesTest, TheRulesOfApimachinery) {
  EXPECT_TRUE(is_label_key("kueue.x-k8s.io/queue-name"));
  EXPECT_TRUE(is_label_key("MyName"));
  EXPECT_FALSE(is_label_key("/name"));
  EXPECT_FALSE(is_label_key("a/b/c"));
  EXPECT_FALSE(is_label_key("Example.com/name"));
  EXPECT_TRUE(is_label_value(""));
  EXPECT_FALSE(is_label_value("-a"));
  EXPECT_TRUE(is_dns1035_label("a-1"));
  EXPECT_FALSE(is_dns1035_label("1-a"));
  EXPECT_TRUE(is_env_var_name("my.env-name"));
  EXPECT_FALSE(is_env_var_name("..a"));
  EXPECT_FALSE(is_env_var_name("A=B"));
  EXPECT_TRUE(is_config_map_key("key.name"));
  EXPECT_FALSE(is_config_map_key("."));
  EXPECT_FALSE(is_config_map_key(std::string(254, 'k')));
}

}  // namespace
}  // namespace zf::pipeline
