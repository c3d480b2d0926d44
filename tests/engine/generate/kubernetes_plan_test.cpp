// SPDX-License-Identifier: MIT
// plan_kubernetes (engine/src/generate/kubernetes_plan.cpp), through plan_companions as generate
// calls it: `job.kubernetes` with its defaults and the site's values, the config's text as the
// ConfigMap's literal block, and every refusal with its pointer and exact message.
#include "generate/kubernetes_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generate/companions.hpp"
#include "support/plan_subject.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {
namespace {

using Json = nlohmann::ordered_json;

// A ZeRO-3 bf16 config on nodes of 8 GPUs, in a family whose name is not a DNS label.
struct Subject : test::PlanSubject {
  Subject() {
    path = "large/zero3-offload-bf16.json";
    family = "Llama_3.70B";
  }
};

TEST(KubernetesPlanTest, DefaultsNameTheJobAfterTheFamilyAndMountTheConfigUnderZeroforge) {
  Subject s;
  s.nodes(4);
  s.path = "large/zero3-offload-bf16.json";
  CompanionPlan plan = s.plan({"kubernetes"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].second, "large/zero3-offload-bf16.k8s.yaml");
  const Json& k = plan.job.at("kubernetes");
  std::string text;
  append_json_text(text, s.config);
  Json lines = Json::array();
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  Json expected = Json::parse(R"({
    "api": "PyTorchJob", "api_version": "kubeflow.org/v1",
    "name": "llama-3-70b-large-zero3-offload-bf16",
    "config_map": "llama-3-70b-large-zero3-offload-bf16-config",
    "namespace": null, "image": "nvcr.io/nvidia/pytorch:24.05-py3", "service_account": null,
    "node_selector": {}, "tolerations": [], "volumes": [], "volumes_yaml": [],
    "volume_mounts": [], "runtime": "torch-distributed", "env": [], "env_from": [],
    "requests": {}, "limits": {}, "gpu_resources": {}, "labels": {}, "annotations": {},
    "pod_labels": {}, "pod_annotations": {}, "priority_class": null, "scheduler_name": null, "gang": null,
    "config_key": "deepspeed-config.json",
    "config_mount": "/zeroforge/large/zero3-offload-bf16.json",
    "config_lines": null, "config_text": null, "hf_args_key": null, "hf_args_mount": null,
    "hf_args_lines": null, "hf_args_text": null,
    "apply_argument": "large/zero3-offload-bf16.k8s.yaml"})");
  expected["config_lines"] = lines;
  expected["config_text"] = text;
  EXPECT_EQ(k, expected);
  EXPECT_FALSE(s.plan({"torchrun"}).job.contains("kubernetes")) << "only for its companion";

  // The default name is the family and the path as a DNS-1123 label, however long: a name too
  // long for the job's pods is refused, not cut (two configs would share a cut one).
  s.path = "clusters/h100-reserved/llama-3-70b-instruct/zero3-offload-bf16.json";
  plan = s.plan({"kubernetes"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/launch/kubernetes/name");
  EXPECT_EQ(plan.problems[0].message,
            "launch.kubernetes.name: \"llama-3-70b-clusters-h100-reserved-llama-3-70b-instruct-"
            "zero3-offload-bf16\" is too long: the PyTorchJob's pod \"llama-3-70b-clusters-h100-"
            "reserved-llama-3-70b-instruct-zero3-offload-bf16-worker-2\" has 83 characters, and "
            "Kubernetes takes at most 63 in a host name; set a shorter launch.kubernetes.name");
}

TEST(KubernetesPlanTest, TheHfArgsFileNamesTheConfigWhereThePodMountsIt) {
  Subject s;
  s.path = "medium/zero3.json";
  s.values["launch"]["config_dir"] = "/shared/team configs";
  s.kubernetes()["api"] = "TrainJob";
  CompanionPlan plan = s.plan({"hf-args", "kubernetes"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  const Json& k = plan.job.at("kubernetes");
  EXPECT_EQ(k.at("api_version"), "trainer.kubeflow.org/v1alpha1");
  EXPECT_EQ(k.at("config_mount"), "/shared/team configs/medium/zero3.json");
  EXPECT_EQ(k.at("hf_args_mount"), "/shared/team configs/medium/zero3.hf-args.json");
  const Json hf = Json::parse(k.at("hf_args_text").get<std::string>());
  EXPECT_EQ(hf.at("deepspeed"), "/shared/team configs/medium/zero3.json");
  EXPECT_EQ(hf.at("per_device_train_batch_size"), 4);
  EXPECT_EQ(hf.begin().key(), "bf16") << "keys sorted, as the hf-args template's tojson writes";
}

TEST(KubernetesPlanTest, AConfigYamlCannotHoldAsABlockIsWrittenQuoted) {
  Subject s;
  s.config["comment"] = "ends here\u2028or here";
  CompanionPlan plan = s.plan({"kubernetes"});
  ASSERT_TRUE(plan.problems.empty()) << plan.problems[0].message;
  EXPECT_TRUE(plan.job.at("kubernetes").at("config_lines").is_null());
  s.config["comment"] = "\u2028 and \U0001F600";
  plan = s.plan({"kubernetes"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/");
  EXPECT_EQ(plan.problems[0].message,
            "the config holds both a character a YAML block cannot (a control, NEL, U+2028) and "
            "one beyond U+FFFF, so the ConfigMap cannot carry it as written");
}

TEST(KubernetesPlanTest, RefusesWhatTheApiServerOrTheKubeflowControllersWould) {
  struct Case {
    const char* name;
    const char* kubernetes;  // launch.kubernetes, JSON
    const char* pointer;
    const char* message;
  };
  // launch.kubernetes itself is checked whichever companions are written (as launch.slurm);
  // what only a written job is checked for takes the kubernetes companion.
  const std::vector<Case> cases = {
      {"not an object", R"("pytorch")", "/launch/kubernetes",
       "launch.kubernetes must be an object (api, name, namespace, image, service_account, "
       "node_selector, tolerations, volumes, volume_mounts, runtime, env, env_from, resources, "
       "labels, annotations, pod_labels, pod_annotations, priority_class, scheduler_name, gang) or "
       "null, got \"pytorch\""},
      {"unknown key", R"({"image": "i", "namspace": "ml"})", "/launch/kubernetes/namspace",
       "unknown key 'namspace' in launch.kubernetes (expected api, name, namespace, image, "
       "service_account, node_selector, tolerations, volumes, volume_mounts, runtime, env, "
       "env_from, resources, labels, annotations, pod_labels, pod_annotations, priority_class, "
       "scheduler_name, gang); did you mean 'namespace'?"},
      {"api", R"({"image": "i", "api": "MPIJob"})", "/launch/kubernetes/api",
       "launch.kubernetes.api must be \"PyTorchJob\" (kubeflow.org/v1) or \"TrainJob\" "
       "(trainer.kubeflow.org/v1alpha1), got \"MPIJob\""},
      {"namespace upper case", R"({"image": "i", "namespace": "ML-Team"})",
       "/launch/kubernetes/namespace",
       "launch.kubernetes.namespace: \"ML-Team\" is not a DNS-1123 label (at most 63 lower-case "
       "letters, digits and '-', starting and ending with a letter or digit), as Kubernetes "
       "requires of a namespace"},
      {"name with a dot", R"({"image": "i", "name": "llama.zero3"})", "/launch/kubernetes/name",
       "launch.kubernetes.name: \"llama.zero3\" is not a DNS-1123 label (at most 63 lower-case "
       "letters, digits and '-', starting and ending with a letter or digit), as Kubernetes "
       "requires of a job's name"},
      {"name a number", R"({"image": "i", "name": 7})", "/launch/kubernetes/name",
       "launch.kubernetes.name: 7 is not a DNS-1123 label (at most 63 lower-case letters, digits "
       "and '-', starting and ending with a letter or digit), as Kubernetes requires of a job's "
       "name"},
      {"service account", R"({"image": "i", "service_account": "Trainer"})",
       "/launch/kubernetes/service_account",
       "launch.kubernetes.service_account: \"Trainer\" is not a DNS-1123 subdomain (lower-case "
       "letters, digits, '-' and '.', at most 253), as Kubernetes names a service account"},
      {"image with a space", R"({"image": "pytorch 2.4"})", "/launch/kubernetes/image",
       "launch.kubernetes.image must be a container image reference (one word: "
       "registry/repository:tag) or null, got \"pytorch 2.4\""},
      {"no image for a PyTorchJob", R"({})", "/launch/kubernetes/image",
       "the kubernetes companion's PyTorchJob needs launch.kubernetes.image, the training "
       "container's image (with torch, DeepSpeed and the training script); a TrainJob "
       "(launch.kubernetes.api: TrainJob) runs its runtime's image instead"},
      {"node selector value", R"({"image": "i", "node_selector": {"gpu": "H100 80GB"}})",
       "/launch/kubernetes/node_selector/gpu",
       "launch.kubernetes.node_selector.gpu: \"H100 80GB\" is not a label value (a string of at "
       "most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit)"},
      {"node selector key", R"({"image": "i", "node_selector": {"gpu type": "h100"}})",
       "/launch/kubernetes/node_selector/gpu type",
       "launch.kubernetes.node_selector: \"gpu type\" is not a label key (an optional DNS "
       "subdomain and '/', then at most 63 letters, digits, '-', '_' and '.', starting and "
       "ending with a letter or digit)"},
      {"tolerations not a list", R"({"image": "i", "tolerations": {"key": "gpu"}})",
       "/launch/kubernetes/tolerations",
       "launch.kubernetes.tolerations must be a list of tolerations ({\"key\", \"operator\", "
       "\"value\", \"effect\", \"tolerationSeconds\"}), got {\"key\":\"gpu\"}"},
      {"toleration unknown key",
       R"({"image": "i", "tolerations": [{"key": "gpu", "efect": "NoSchedule"}]})",
       "/launch/kubernetes/tolerations/0/efect",
       "launch.kubernetes.tolerations: unknown key 'efect' in a toleration (expected key, "
       "operator, value, effect, tolerationSeconds); did you mean 'effect'?"},
      {"toleration operator",
       R"({"image": "i", "tolerations": [{"key": "gpu", "operator": "In"}]})",
       "/launch/kubernetes/tolerations/0/operator",
       "launch.kubernetes.tolerations: operator must be \"Exists\" or \"Equal\", got \"In\""},
      {"toleration Exists with a value",
       R"({"image": "i", "tolerations": [{"key": "gpu", "operator": "Exists", "value": "x"}]})",
       "/launch/kubernetes/tolerations/0/value",
       "launch.kubernetes.tolerations: a toleration with operator \"Exists\" takes no value, got "
       "\"x\""},
      {"toleration without a key", R"({"image": "i", "tolerations": [{"value": "x"}]})",
       "/launch/kubernetes/tolerations/0/operator",
       "launch.kubernetes.tolerations: a toleration without a key tolerates every taint only with "
       "operator \"Exists\""},
      {"toleration seconds without NoExecute",
       R"({"image": "i", "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30}]})",
       "/launch/kubernetes/tolerations/0/tolerationSeconds",
       "launch.kubernetes.tolerations: tolerationSeconds applies only to effect \"NoExecute\""},
      {"toleration effect",
       R"({"image": "i", "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoRun"}]})",
       "/launch/kubernetes/tolerations/0/effect",
       "launch.kubernetes.tolerations: effect must be \"NoSchedule\", \"PreferNoSchedule\" or "
       "\"NoExecute\" (or left out: all three), got \"NoRun\""},
      {"toleration not an object", R"({"image": "i", "tolerations": ["gpu"]})",
       "/launch/kubernetes/tolerations/0",
       "launch.kubernetes.tolerations: expected a toleration (an object of key, operator, value, "
       "effect, tolerationSeconds), got \"gpu\""},
      {"volume with two sources",
       R"({"image": "i", "volumes": [{"name": "data", "nfs": {"server": "s", "path": "/"}, "emptyDir": {}}]})",
       "/launch/kubernetes/volumes/0",
       "launch.kubernetes.volumes: volume \"data\" has 2 sources; a Kubernetes volume has exactly "
       "one (configMap, persistentVolumeClaim, nfs, hostPath, emptyDir, ...)"},
      {"volume named as the manifest's own",
       R"({"image": "i", "volumes": [{"name": "dshm", "emptyDir": {}}]})",
       "/launch/kubernetes/volumes/0/name",
       "launch.kubernetes.volumes: the volume name \"dshm\" is taken (the manifest's own volumes "
       "are zeroforge-config, zeroforge-hf-args and dshm)"},
      {"mount of no volume",
       R"({"image": "i", "volume_mounts": [{"name": "data", "mountPath": "/data"}]})",
       "/launch/kubernetes/volume_mounts/0/name",
       "launch.kubernetes.volume_mounts: the mount names \"data\", which is not one of "
       "launch.kubernetes.volumes (there are none)"},
      {"mount key misspelt",
       R"({"image": "i", "volumes": [{"name": "data", "emptyDir": {}}], "volume_mounts": [{"name": "data", "mountPath": "/data", "readonly": true}]})",
       "/launch/kubernetes/volume_mounts/0/readonly",
       "unknown key 'readonly' in a volume mount (expected name, mountPath, readOnly, subPath); "
       "did you mean 'readOnly'?"},
      {"mount over the config",
       R"({"image": "i", "volumes": [{"name": "data", "emptyDir": {}}], "volume_mounts": [{"name": "data", "mountPath": "/dev/shm"}]})",
       "/launch/kubernetes/volume_mounts/0/mountPath",
       "launch.kubernetes.volume_mounts: \"/dev/shm\" is mounted already (the config, the "
       "Trainer's arguments, /dev/shm or another mount); a pod mounts one volume at a path"},
      {"name too long for its pods",
       R"({"image": "i", "name": "llama-3-70b-instruct-h100-reserved-zero3-offload-bf16-x"})",
       "/launch/kubernetes/name",
       "launch.kubernetes.name: \"llama-3-70b-instruct-h100-reserved-zero3-offload-bf16-x\" is "
       "too long: the PyTorchJob's pod \"llama-3-70b-instruct-h100-reserved-zero3-offload-bf16-x-"
       "master-0\" has 64 characters, and Kubernetes takes at most 63 in a host name; set a "
       "shorter launch.kubernetes.name"},
      {"an emoji",
       R"({"image": "i", "node_selector": {"team": "ml"}, "volumes": [{"name": "d", "nfs": {"path": "/\ud83d\ude00"}}]})",
       "/launch/kubernetes/volumes/0/nfs/path",
       "\"/\U0001F600\" holds U+1F600, beyond U+FFFF: the manifest writes it as a JSON escape "
       "pair, "
       "which Kubernetes' YAML reader refuses; leave it out of the launch"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.path = "medium/zero3.json";
    s.family = "llama";
    s.kubernetes() = Json::parse(c.kubernetes);
    CompanionPlan plan = s.plan({"torchrun"});
    if (plan.problems.empty()) plan = s.plan({"kubernetes"});  // a check of the written job
    ASSERT_EQ(plan.problems.size(), 1u) << plan.problems[0].message;
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

TEST(KubernetesPlanTest, RefusesWhatTheLaunchAndTheTierCannotGiveAJob) {
  Subject s;
  s.values["launch"]["environment"] = {{"NCCL_DEBUG", "WARN"}, {"PET_NNODES", "2"}};
  s.values["launch"]["args"] = {"--run-name", "\U0001F680 launch"};
  s.kubernetes()["api"] = "TrainJob";
  // Checked whichever companions are written; the job's own checks only where it is.
  EXPECT_TRUE(s.plan({"torchrun"}).problems.empty());
  CompanionPlan plan = s.plan({"kubernetes"});
  ASSERT_EQ(plan.problems.size(), 2u);
  EXPECT_EQ(plan.problems[0].pointer, "/launch/environment/PET_NNODES");
  EXPECT_EQ(plan.problems[0].message,
            "launch.environment.PET_NNODES is set by the Kubeflow Trainer in every training "
            "container (the rendezvous and the ranks: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, "
            "PET_MASTER_ADDR, PET_MASTER_PORT, PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, "
            "PYTHONUNBUFFERED); leave it out");
  EXPECT_EQ(plan.problems[1].pointer, "/launch/args/1");

  // More GPUs per pod than the tier's nodes have: the pods would stay pending.
  Subject big;
  big.values["gpus_per_node"] = 16;
  big.facts.world_size = 16;
  Tier tier{"h100x8", "/opt/zeroforge/share/presets/tiers/h100x8-reserved-partition.json",
            Json::parse(R"({"gpus_per_node": 8, "nodes": 1})")};
  big.tier = &tier;
  EXPECT_TRUE(big.plan({"torchrun"}).problems.empty());
  plan = big.plan({"kubernetes"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/gpus_per_node");
  EXPECT_EQ(
      plan.problems[0].message,
      "the kubernetes companion asks each pod for gpus_per_node=16 GPUs (nvidia.com/gpu: 16), "
      "but the nodes of tier 'h100x8' have 8 "
      "(/opt/zeroforge/share/presets/tiers/h100x8-reserved-partition.json); Kubernetes would "
      "leave the pods pending for ever");
}

// What the API server refuses although it is well formed (issue #36): a volume source it does
// not know, a subPath outside its volume, nesting YAML readers differ on, and objects over its
// size limits.
TEST(KubernetesPlanTest, RefusesWhatTheApiServerLimitsRefuse) {
  struct Case {
    const char* name;
    Json kubernetes;
    std::string pointer;
    std::string message;  // empty: accepted
  };
  auto volume = [](const char* source) {
    return Json::parse(R"({"image": "i", "volumes": [{"name": "d", )" + std::string(source) +
                       "}], \"volume_mounts\": []}");
  };
  auto mount = [](const char* sub_path) {
    Json k = Json::parse(R"({"image": "i", "volumes": [{"name": "d", "emptyDir": {}}]})");
    k["volume_mounts"] = {{{"name", "d"}, {"mountPath", "/data"}, {"subPath", sub_path}}};
    return k;
  };
  Json deep = Json::object();
  for (int i = 0; i < 31; ++i) deep = Json{{"x", deep}};  // the source: levels 3 to 34
  Json deep_ok = Json::object();
  for (int i = 0; i < 28; ++i) deep_ok = Json{{"x", deep_ok}};
  const std::string sources =
      "awsElasticBlockStore, azureDisk, azureFile, cephfs, cinder, configMap, csi, downwardAPI, "
      "emptyDir, ephemeral, fc, flexVolume, flocker, gcePersistentDisk, gitRepo, glusterfs, "
      "hostPath, image, iscsi, nfs, persistentVolumeClaim, photonPersistentDisk, portworxVolume, "
      "projected, quobyte, rbd, scaleIO, secret, storageos, vsphereVolume";
  Json too_deep = volume("\"csi\": {}");
  too_deep["volumes"][0]["csi"] = deep;
  Json deep_enough = volume("\"csi\": {}");
  deep_enough["volumes"][0]["csi"] = deep_ok;
  std::string deep_pointer = "/launch/kubernetes/volumes/0/csi";
  for (int i = 0; i < 30; ++i) deep_pointer += "/x";
  const std::vector<Case> cases = {
      {"misspelt source", volume(R"("persistentVolumeClam": {"claimName": "c"})"),
       "/launch/kubernetes/volumes/0/persistentVolumeClam",
       "launch.kubernetes.volumes: volume \"d\" has an unknown source 'persistentVolumeClam' "
       "(Kubernetes' core/v1 Volume knows " +
           sources + "); did you mean 'persistentVolumeClaim'?"},
      {"unknown source", volume(R"("s3": {"bucket": "b"})"), "/launch/kubernetes/volumes/0/s3",
       "launch.kubernetes.volumes: volume \"d\" has an unknown source 's3' (Kubernetes' core/v1 "
       "Volume knows " +
           sources + ")"},
      {"every known source is taken", volume(R"("image": {"reference": "r"})"), "", ""},
      {"absolute subPath", mount("/etc"), "/launch/kubernetes/volume_mounts/0/subPath",
       "launch.kubernetes.volume_mounts: subPath \"/etc\" is absolute; Kubernetes takes a path "
       "inside the volume (relative, no '..'), and refuses the pod"},
      {"climbing subPath", mount("../../etc"), "/launch/kubernetes/volume_mounts/0/subPath",
       "launch.kubernetes.volume_mounts: subPath \"../../etc\" climbs out of the volume with "
       "'..'; Kubernetes takes a path inside the volume (relative, no '..'), and refuses the pod"},
      {"climbing at the end", mount("a/.."), "/launch/kubernetes/volume_mounts/0/subPath",
       "launch.kubernetes.volume_mounts: subPath \"a/..\" climbs out of the volume with '..'; "
       "Kubernetes takes a path inside the volume (relative, no '..'), and refuses the pod"},
      {"dots inside a name", mount("a..b/..c/c.."), "", ""},
      {"too deep", too_deep, deep_pointer,
       "launch.kubernetes.volumes nests deeper than 32 levels; YAML readers differ on such a "
       "manifest (PyYAML stops with a RecursionError near 500 levels, go-yaml reads on) and no "
       "Kubernetes object is that deep"},
      {"deep enough", deep_enough, "", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Subject s;
    s.kubernetes() = c.kubernetes;
    CompanionPlan plan = s.plan({"kubernetes"});
    if (c.message.empty()) {
      EXPECT_TRUE(plan.problems.empty()) << plan.problems[0].message;
      continue;
    }
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, c.pointer);
    EXPECT_EQ(plan.problems[0].message, c.message);
  }
}

// The ConfigMap's data at most 1 MiB, the job at most 1.5 MiB (etcd), counted at the byte.
TEST(KubernetesPlanTest, RefusesObjectsOverTheApiServersSizeLimits) {
  // A config whose text is exactly `bytes` long.
  auto config_of = [](std::size_t bytes) {
    Json config{{"train_batch_size", 256}, {"x", ""}};
    std::string empty;
    append_json_text(empty, config);
    config["x"] = std::string(bytes - empty.size(), 'a');
    return config;
  };
  for (std::size_t bytes : {std::size_t{1} << 20, (std::size_t{1} << 20) + 1}) {
    SCOPED_TRACE(bytes);
    Subject s;
    s.config = config_of(bytes);
    std::string text;
    append_json_text(text, s.config);
    ASSERT_EQ(text.size(), bytes);
    CompanionPlan plan = s.plan({"kubernetes"});
    if (bytes == std::size_t{1} << 20) {
      EXPECT_TRUE(plan.problems.empty()) << plan.problems[0].message;
      continue;
    }
    ASSERT_EQ(plan.problems.size(), 1u);
    EXPECT_EQ(plan.problems[0].pointer, "/");
    EXPECT_EQ(plan.problems[0].message,
              "the kubernetes companion's ConfigMap would hold 1048577 bytes of data (the config "
              "1048577), and the API server refuses a ConfigMap over 1 MiB (1048576 bytes); make "
              "the config smaller");
  }

  // 9 arguments of 100,000 bytes: 0.9 MB, once in one pod template, twice with a Worker's.
  Subject s;
  s.values["launch"]["args"] = Json::array();
  for (int i = 0; i < 9; ++i) s.values["launch"]["args"].push_back(std::string(100000, 'a'));
  EXPECT_TRUE(s.plan({"kubernetes"}).problems.empty());
  s.nodes(2);
  CompanionPlan plan = s.plan({"kubernetes"});
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].pointer, "/launch/args");
  const std::size_t part = s.values["launch"]["args"].dump().size();
  EXPECT_NE(
      plan.problems[0].message.find("the kubernetes companion's PyTorchJob would be at least "),
      std::string::npos);
  EXPECT_NE(plan.problems[0].message.find(
                "in both its Master's and its Worker's pod template), and etcd stores an object "
                "of at most 1.5 MiB (1572864 bytes), so the API server refuses it; launch.args is "
                "the largest part (" +
                std::to_string(part) + " bytes): pass such data in a file or a volume"),
            std::string::npos)
      << plan.problems[0].message;
  EXPECT_TRUE(s.plan({"torchrun"}).problems.empty()) << "only a written job is checked";
}

// kubectl's -f takes a list (pflag's StringSlice reads it as CSV): a path with ',' or '"' is
// one CSV field, then one shell word.
TEST(KubernetesPlanTest, TheApplyLineQuotesThePathForTheShellAndForKubectl) {
  struct Case {
    std::string config_path, argument;
  };
  const std::vector<Case> cases = {
      {"medium/zero3.json", "medium/zero3.k8s.yaml"},
      {"a b/zero3.json", "'a b/zero3.k8s.yaml'"},
      {"a,b/zero3.json", R"('"a,b/zero3.k8s.yaml"')"},
      {"say \"hi\"/it's.json", R"('"say ""hi""/it'\''s.k8s.yaml"')"},
      {"$(id)/x.json", "'$(id)/x.k8s.yaml'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.config_path);
    Subject s;
    s.path = c.config_path;
    CompanionPlan plan = s.plan({"kubernetes"});
    EXPECT_EQ(plan.job["kubernetes"]["apply_argument"], c.argument);
  }
}

TEST(KubernetesPlanTest, PathAndTemplate) {
  EXPECT_EQ(companion_path("kubernetes", "medium/zero3.json"), "medium/zero3.k8s.yaml");
  EXPECT_EQ(companion_template("kubernetes"), "companions/kubernetes.yaml.j2");
  EXPECT_FALSE(companion_is_executable("kubernetes"));
}

}  // namespace
}  // namespace zf::pipeline
