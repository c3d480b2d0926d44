// SPDX-License-Identifier: MIT
// The `kubernetes` companion through the real executable: every manifest of every shipped family
// (and of a multi-node family using every launch.kubernetes value), for both APIs, read by PyYAML
// (YAML 1.1, as Kubernetes' go-yaml), is valid against the Kubeflow CRD's own OpenAPI v3 schema
// (tests/data/kubernetes-crds/), its ConfigMap holds the config byte for byte, and its command is
// the launch the other companions run. Then the refusals, with their exact text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "support/cli_runner.hpp"
#include "support/openapi_check.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

const fs::path kSource = ZF_SOURCE_DIR;
const fs::path kCrds = kSource / "tests" / "data" / "kubernetes-crds";

struct Api {
  std::string kind, api_version, schema_file;
};
const std::vector<Api> kApis = {
    {"PyTorchJob", "kubeflow.org/v1", "kubeflow.org_pytorchjobs.v1.schema.json"},
    {"TrainJob", "trainer.kubeflow.org/v1alpha1",
     "trainer.kubeflow.org_trainjobs.v1alpha1.schema.json"}};

// A multi-node family with every launch.kubernetes value, and arguments YAML and the kubelet
// read specially: `yes`, a number, `$(id)`, `$$`, '#', quotes, a path with spaces.
constexpr const char* kEverything = R"({
  "name": "Team_LLaMA.v2", "template": "deepspeed/config.json.j2",
  "values": {"stage": 3, "precision": "bf16", "global_batch_size": 512,
    "launch": {
      "args": ["--output_dir", "runs/$(id) it's #1", "yes", "8", "$$HOME", "no: on"],
      "config_dir": "/mnt/team configs",
      "environment": {"NCCL_DEBUG": "WARN", "TOKEN_FILE": "off"},
      "kubernetes": {
        "namespace": "ml-team", "image": "registry.example.com/train:2.4",
        "service_account": "trainer.sa", "node_selector": {"nvidia.com/gpu.product": "H100"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                        {"key": "spot", "value": "true", "effect": "NoExecute",
                         "tolerationSeconds": 60}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}],
        "volume_mounts": [{"name": "data", "mountPath": "/data", "readOnly": true}],
        "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
                {"name": "WANDB_PROJECT",
                 "valueFrom": {"configMapKeyRef": {"name": "team", "key": "wandb.project",
                                                   "optional": true}}}],
        "resources": {"requests": {"cpu": "48", "memory": "900Gi"},
                      "limits": {"memory": 1099511627776, "vpc.amazonaws.com/efa": "4"}},
        "labels": {"kueue.x-k8s.io/queue-name": "team-a"},
        "annotations": {"team.example.com/owner": "ml platform: #1"},
        "pod_labels": {"team": "ml", "empty": ""},
        "pod_annotations": {"prometheus.io/scrape": "true"}}}},
  "axes": {"micro_batch_size": [1, 2]},
  "tiers": ["small", "medium", "large"],
  "companions": ["kubernetes", "hf-args"]
})";

// Runs a shell command; its stdout, or nullopt when it fails.
std::optional<std::string> shell(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  if (::pclose(pipe) != 0) return std::nullopt;
  return out;
}

// Every file's documents as PyYAML's safe_load_all reads them, or nullopt without PyYAML (a
// failure under CI=true, where setup.sh --test installed it).
std::optional<Json> read_yaml(const std::vector<fs::path>& files) {
  if (!shell("python3 -c 'import yaml' 2>/dev/null")) {
    if (const char* ci = std::getenv("CI"); ci != nullptr && std::string(ci) == "true")
      ADD_FAILURE() << "python3 with PyYAML is missing, and in CI it must be (setup.sh --test)";
    std::cerr << "[  SKIPPED ] python3 with PyYAML is not available\n";
    return std::nullopt;
  }
  std::string command =
      "python3 -c 'import json, sys, yaml; print(json.dumps([list(yaml.safe_load_all(open(f, "
      "encoding=\"utf-8\"))) for f in sys.argv[1:]]))'";
  for (const auto& f : files) command += " '" + f.string() + "'";
  auto out = shell(command);
  EXPECT_TRUE(out.has_value()) << command;
  return out ? std::optional<Json>(Json::parse(*out)) : std::nullopt;
}

const Json& schema_of(const Api& api) {
  static std::map<std::string, Json> schemas;
  auto [it, added] = schemas.try_emplace(api.kind);
  if (added) it->second = Json::parse(read_file(kCrds / api.schema_file));
  return it->second;
}

// The kubelet's $(NAME) expansion of a container's command (third_party/forked/golang/expansion):
// `$$` is `$`, `$(NAME)` the variable's value when the container has it, anything else as is.
std::string kubelet_expand(const std::string& word, const std::map<std::string, std::string>& env) {
  std::string out;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '$' || i + 1 == word.size()) {
      out += word[i];
    } else if (word[i + 1] == '$') {
      out += '$';
      ++i;
    } else if (word[i + 1] == '(') {
      const std::size_t close = word.find(')', i + 2);
      const std::string name = close == std::string::npos ? "" : word.substr(i + 2, close - i - 2);
      if (close != std::string::npos && env.count(name)) {
        out += env.at(name);
        i = close;
      } else {
        out += word[i];
      }
    } else {
      out += word[i];
    }
  }
  return out;
}

struct Checked {
  std::size_t manifests = 0, multi_node = 0;
};

// Checks one generated directory's manifests against its configs, the hf-args files and `api`.
void check_manifests(const fs::path& out, const Api& api, const Json& launch_args,
                     Checked& checked) {
  Json manifest = Json::parse(read_file(out / "manifest.json"));
  std::vector<fs::path> files;
  for (const auto& entry : manifest.at("configs"))
    files.push_back(out / entry.at("companions").at("kubernetes").get<std::string>());
  std::optional<Json> documents = read_yaml(files);
  if (!documents) return;
  ASSERT_EQ(documents->size(), files.size());
  std::size_t i = 0;
  for (const auto& entry : manifest.at("configs")) {
    SCOPED_TRACE(files[i].string());
    const Json& docs = (*documents)[i++];
    ASSERT_EQ(docs.size(), 2u);
    const Json& map = docs[0];
    const Json& job = docs[1];
    EXPECT_EQ(map.at("apiVersion"), "v1");
    EXPECT_EQ(map.at("kind"), "ConfigMap");
    // The config, byte for byte, as the ConfigMap gives it to the pod.
    EXPECT_EQ(map.at("data").at("deepspeed-config.json").get<std::string>(),
              read_file(out / entry.at("path").get<std::string>()));
    EXPECT_EQ(job.at("apiVersion"), api.api_version);
    EXPECT_EQ(job.at("kind"), api.kind);
    for (const auto& problem : test::openapi_problems(schema_of(api), job))
      ADD_FAILURE() << api.kind << " against its CRD schema: " << problem;
    const std::int64_t world = entry.at("world_size");
    // Every shipped tier's nodes hold the same GPUs: the container's and the job's counts.
    Json container, pod_spec;
    std::int64_t nodes = 0;
    std::map<std::string, std::string> env = {
        {"PET_NODE_RANK", "1"}, {"PET_MASTER_ADDR", "job-master-0"}, {"PET_MASTER_PORT", "23456"}};
    if (api.kind == "PyTorchJob") {
      const Json& specs = job.at("spec").at("pytorchReplicaSpecs");
      nodes =
          specs.at("Master").at("replicas").get<std::int64_t>() +
          (specs.contains("Worker") ? specs.at("Worker").at("replicas").get<std::int64_t>() : 0);
      pod_spec = specs.at("Master").at("template").at("spec");
      container = pod_spec.at("containers").at(0);
      EXPECT_EQ(container.at("name"), "pytorch");  // the operator finds its container by name
      EXPECT_EQ(job.at("spec").at("nprocPerNode"), std::to_string(world / nodes));
    } else {
      const Json& trainer = job.at("spec").at("trainer");
      nodes = trainer.at("numNodes");
      EXPECT_EQ(trainer.at("numProcPerNode"), world / nodes);
      container = trainer;
      pod_spec = job.at("spec")
                     .at("runtimePatches")
                     .at(0)
                     .at("trainingRuntimeSpec")
                     .at("template")
                     .at("spec")
                     .at("replicatedJobs")
                     .at(0)
                     .at("template")
                     .at("spec")
                     .at("template")
                     .at("spec");
      EXPECT_EQ(pod_spec.at("containers").at(0).at("name"), "node");
    }
    const std::int64_t gpus = world / nodes;
    const Json& limits = api.kind == "PyTorchJob" ? container.at("resources").at("limits")
                                                  : container.at("resourcesPerNode").at("limits");
    EXPECT_EQ(limits.at("nvidia.com/gpu"), gpus);
    // The command, as the kubelet hands it to torchrun: the world, the script, launch.args as
    // written, and --deepspeed where the ConfigMap's config is mounted.
    std::vector<std::string> words;
    for (const auto& w : container.at("command")) words.push_back(kubelet_expand(w, env));
    ASSERT_GE(words.size(), 6u);
    EXPECT_EQ(words[0], "torchrun");
    auto after = [&](const std::string& flag) {
      auto it = std::find(words.begin(), words.end(), flag);
      return it == words.end() || it + 1 == words.end() ? std::string() : *(it + 1);
    };
    EXPECT_EQ(after("--nnodes"), std::to_string(nodes));
    EXPECT_EQ(after("--nproc_per_node"), std::to_string(gpus));
    if (nodes > 1) {
      ++checked.multi_node;
      EXPECT_EQ(after("--node_rank"), "1");
      EXPECT_EQ(after("--master_addr"), "job-master-0");
    }
    auto script = std::find(words.begin(), words.end(), "train.py");
    ASSERT_NE(script, words.end());
    for (std::size_t a = 0; a < launch_args.size(); ++a)
      EXPECT_EQ(*(script + 1 + static_cast<std::ptrdiff_t>(a)), launch_args[a].get<std::string>());
    const std::string config_mount = after("--deepspeed");
    Json mounts = api.kind == "PyTorchJob" ? container.at("volumeMounts")
                                           : pod_spec.at("containers").at(0).at("volumeMounts");
    EXPECT_EQ(mounts.at(0).at("mountPath"), config_mount);
    EXPECT_EQ(mounts.at(0).at("subPath"), "deepspeed-config.json");
    // The Trainer's arguments file: the hf-args companion's, naming the config where it is
    // mounted.
    if (entry.at("companions").contains("hf-args")) {
      Json hf =
          Json::parse(read_file(out / entry.at("companions").at("hf-args").get<std::string>()));
      hf["deepspeed"] = config_mount;
      const std::string text = map.at("data").at("hf-args.json");
      EXPECT_EQ(Json::parse(text), hf);
      std::string normal;
      append_json_text(normal, hf);
      EXPECT_EQ(text, normal);
    }
    ++checked.manifests;
  }
}

// The pod values of kEverything where each API carries them, as PyYAML reads the manifest.
void check_pod_values(const fs::path& out, const Api& api) {
  Json manifest = Json::parse(read_file(out / "manifest.json"));
  const fs::path file =
      out / manifest.at("configs").at(0).at("companions").at("kubernetes").get<std::string>();
  std::optional<Json> documents = read_yaml({file});
  if (!documents) return;
  const Json& job = (*documents)[0][1];
  const Json given = Json::parse(kEverything).at("values").at("launch").at("kubernetes");
  EXPECT_EQ(job.at("metadata").at("labels"), Json({{"app.kubernetes.io/managed-by", "zeroforge"},
                                                   {"kueue.x-k8s.io/queue-name", "team-a"}}));
  EXPECT_EQ(job.at("metadata").at("annotations"), given.at("annotations"));
  const bool train_job = api.kind == "TrainJob";
  const Json& container = train_job ? job.at("spec").at("trainer")
                                    : job.at("spec")
                                          .at("pytorchReplicaSpecs")
                                          .at("Master")
                                          .at("template")
                                          .at("spec")
                                          .at("containers")
                                          .at(0);
  const Json& pod_template =
      train_job ? job.at("spec")
                      .at("runtimePatches")
                      .at(0)
                      .at("trainingRuntimeSpec")
                      .at("template")
                      .at("spec")
                      .at("replicatedJobs")
                      .at(0)
                      .at("template")
                      .at("spec")
                      .at("template")
                : job.at("spec").at("pytorchReplicaSpecs").at("Master").at("template");
  EXPECT_EQ(pod_template.at("metadata").at("labels"), given.at("pod_labels"));
  EXPECT_EQ(pod_template.at("metadata").at("annotations"), given.at("pod_annotations"));
  const Json& env = container.at("env");
  // As objects (tojson writes a flow mapping's keys sorted).
  EXPECT_EQ(nlohmann::json(Json(std::vector<Json>(env.end() - 2, env.end()))),
            nlohmann::json(given.at("env")));
  const Json& resources = container.at(train_job ? "resourcesPerNode" : "resources");
  EXPECT_EQ(resources.at("requests"), given.at("resources").at("requests"));
  // The launch's limits (a whole number as its digits), then the config's GPUs per node.
  Json limits = resources.at("limits");
  EXPECT_TRUE(limits.at("nvidia.com/gpu").is_number_integer());
  limits.erase("nvidia.com/gpu");
  EXPECT_EQ(limits, Json::parse(R"({"memory": "1099511627776", "vpc.amazonaws.com/efa": "4"})"));
  if (!train_job) {
    EXPECT_EQ(container.at("envFrom").size(), 2u);
    EXPECT_EQ(pod_template.at("spec").at("priorityClassName"), "high-priority");
    EXPECT_EQ(pod_template.at("spec").at("schedulerName"), "default-scheduler");
  }
}

TEST(KubernetesCliTest, EveryManifestValidatesAgainstItsCrdSchemaAndCarriesTheConfig) {
  TempDir dir;
  const fs::path family = dir.write("everything.json", kEverything);
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.kind);
    Checked checked;
    std::vector<std::string> families;
    for (const auto& entry : fs::directory_iterator(kSource / "presets" / "families"))
      families.push_back(entry.path().stem().string());
    std::sort(families.begin(), families.end());
    for (const auto& name : families) {
      SCOPED_TRACE(name);
      const fs::path out = dir.path() / (api.kind + "-" + name);
      auto result = run_cli({"generate", name, "-o", out.string(), "--companions",
                             "kubernetes,hf-args", "--set", "launch.kubernetes.api=" + api.kind,
                             "--set", "launch.kubernetes.image=pytorch/pytorch:2.4.0-cuda12.1"});
      ASSERT_EQ(result.exit_code, 0) << result.err;
      const Json family_json =
          Json::parse(read_file(kSource / "presets/families" / (name + ".json")));
      const Json args = family_json.contains(Json::json_pointer("/values/launch/args"))
                            ? family_json.at(Json::json_pointer("/values/launch/args"))
                            : Json::array();
      check_manifests(out, api, args, checked);
    }
    const fs::path out = dir.path() / (api.kind + "-everything");
    std::vector<std::string> args = {"generate", family.string(),
                                     "-o",       out.string(),
                                     "--set",    "launch.kubernetes.api=" + api.kind};
    // What only a PyTorchJob has a field for (a TrainJob's runtime sets them).
    if (api.kind == "PyTorchJob")
      for (const char* set :
           {"launch.kubernetes.env_from=[{\"secretRef\": {\"name\": \"wandb\"}}, "
            "{\"configMapRef\": {\"name\": \"team-env\", \"optional\": true}, \"prefix\": "
            "\"TEAM_\"}]",
            "launch.kubernetes.priority_class=high-priority",
            "launch.kubernetes.scheduler_name=default-scheduler"}) {
        args.push_back("--set");
        args.push_back(set);
      }
    auto result = run_cli(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    check_manifests(out, api, Json::parse(kEverything).at("values").at("launch").at("args"),
                    checked);
    check_pod_values(out, api);
    if (HasFailure() || checked.manifests == 0) return;  // skipped without PyYAML
    EXPECT_GE(checked.manifests, 20u);
    EXPECT_GE(checked.multi_node, 3u);
  }
}

// The checker refuses what the API server would: it is no test that cannot fail.
TEST(KubernetesCliTest, TheSchemaCheckFindsWhatTheApiServerRefuses) {
  const Json& schema = schema_of(kApis[0]);
  Json job = Json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
    "metadata": {"name": "j"}, "spec": {"nprocPerNode": 8, "pytorchReplicaSpecs": {"Master": {
      "replicas": "1", "restartPolicy": "Never", "template": {"spec": {"containers": [
        {"name": "pytorch", "image": "i", "command": ["torchrun", 8],
         "resources": {"limits": {"nvidia.com/gpu": "eight"}},
         "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
         "volumeMount": []}]}}}}}})");
  EXPECT_EQ(
      test::openapi_problems(schema, job),
      (std::vector<std::string>{
          "/spec/nprocPerNode: expected string, got 8",
          "/spec/pytorchReplicaSpecs/Master/replicas: expected integer, got \"1\"",
          "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/command/1: expected "
          "string, got 8",
          "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits/"
          "nvidia.com~1gpu: \"eight\" does not match \"^(\\\\+|-)?(([0-9]+(\\\\.[0-9]*)?)|(\\\\.["
          "0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\\\+|-)?(([0-9]+(\\\\.[0-9]*)?)|(\\\\.[0-9]+))"
          "))?$\"",
          "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/env/1: a duplicate of "
          "the list's key [\"A\"]",
          "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/volumeMount: unknown "
          "field \"volumeMount\""}));
  Json train = Json::parse(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "j"}, "spec": {"trainer": {"numNodes": "2"}}})");
  EXPECT_EQ(test::openapi_problems(schema_of(kApis[1]), train),
            (std::vector<std::string>{"/spec: the required field \"runtimeRef\" is missing",
                                      "/spec/trainer/numNodes: expected integer, got \"2\""}));
}

// Bad values are refused at the file and pointer where they were written, with exit 2 and nothing
// written: a family's value, the site profile's, a --set, and a GPU count the tier lacks.
TEST(KubernetesCliTest, BadValuesAreRefusedAtTheirPlaceAndNothingIsWritten) {
  TempDir dir;
  const std::string family =
      dir.write("platform/ml-training/families/llama-3-70b-instruct/family.json", R"({
    "name": "llama", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 512,
               "launch": {"kubernetes": {"namespace": "ML_Team", "image": "pytorch/pytorch:2.4.0",
                                         "tolerations": [{"key": "gpu", "operator": "Exists",
                                                          "value": "h100"}]}}},
    "tiers": ["medium"], "companions": ["kubernetes"]})")
          .string();
  const fs::path out = dir.path() / "out";
  auto bad = run_cli({"generate", family, "-o", out.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            family +
                ": /values/launch/kubernetes/namespace: error: variant 'medium': "
                "launch.kubernetes.namespace: \"ML_Team\" is not a DNS-1123 label (at most 63 "
                "lower-case letters, digits and '-', starting and ending with a letter or digit), "
                "as Kubernetes requires of a namespace [companion.values]\n" +
                family +
                ": /values/launch/kubernetes/tolerations/0/value: error: variant 'medium': "
                "launch.kubernetes.tolerations: a toleration with operator \"Exists\" takes no "
                "value, got \"h100\" [companion.values]\n"
                "zeroforge: error: family 'llama' not generated; nothing was written "
                "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out));

  // --set merges into the family's object (arrays replace): the fixed values, and a misspelt key.
  auto unknown = run_cli(
      {"generate", family, "-o", out.string(), "--set", "launch.kubernetes.namespace=ml", "--set",
       "launch.kubernetes.tolerations=[]", "--set", "launch.kubernetes.servce_account=sa"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(
      unknown.err,
      "--set launch.kubernetes.servce_account=sa: "
      "/launch/kubernetes/servce_account: error: variant 'medium': unknown key "
      "'servce_account' in launch.kubernetes (expected api, name, namespace, image, "
      "service_account, node_selector, tolerations, volumes, volume_mounts, runtime, env, "
      "env_from, resources, labels, annotations, pod_labels, pod_annotations, "
      "priority_class, scheduler_name, gang); did you mean 'service_account'? [companion.values]\n"
      "zeroforge: error: family 'llama' not generated; nothing was written "
      "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out));

  // The site profile's kubernetes object becomes launch.kubernetes for every config.
  const fs::path site = dir.write("platform/ml-training/sites/h100-reserved/site-profile.json",
                                  R"({"kubernetes": {"namespace": "ml", "image": "i",
                                      "node_selector": {"pool": "h100 reserved"}}})");
  const std::string with_site =
      dir.write("platform/ml-training/families/llama-3-70b-instruct/site-family.json",
                R"({"name": "llama", "template": "deepspeed/config.json.j2",
                    "values": {"global_batch_size": 512}, "tiers": ["medium"],
                    "plugins": [{"name": "site_fields", "options": {"profile": ")" +
                    site.string() + R"("}}], "companions": ["kubernetes"]})")
          .string();
  auto from_site = run_cli({"generate", with_site, "-o", out.string()});
  EXPECT_EQ(from_site.exit_code, 2);
  EXPECT_EQ(from_site.err,
            "plugin site_fields: /launch/kubernetes/node_selector/pool: error: variant 'medium': "
            "launch.kubernetes.node_selector.pool: \"h100 reserved\" is not a label value (a "
            "string of at most 63 letters, digits, '-', '_' and '.', starting and ending with a "
            "letter or digit) [companion.values]\n"
            "zeroforge: error: family 'llama' not generated; nothing was written "
            "[generate.not-generated]\n");
  dir.write("platform/ml-training/sites/h100-reserved/site-profile.json",
            R"({"kubernetes": {"namespace": "ml", "image": "i"}})");
  ASSERT_EQ(run_cli({"generate", with_site, "-o", out.string()}).exit_code, 0);
  EXPECT_NE(read_file(out / "medium/config.k8s.yaml").find("\n  namespace: \"ml\"\n"),
            std::string::npos);
  fs::remove_all(out);

  // 16 GPUs per pod on a tier whose nodes have 8: the pods would stay pending for ever.
  dir.write("platform/ml-training/families/llama-3-70b-instruct/tiers/h100x8.json",
            R"({"gpus_per_node": 8, "nodes": 2, "cpu_memory_gib": 2048})");
  const std::string tiered =
      dir.write("platform/ml-training/families/llama-3-70b-instruct/tiered.json",
                R"({"name": "llama", "template": "deepspeed/config.json.j2",
                    "values": {"global_batch_size": 512,
                               "launch": {"kubernetes": {"api": "TrainJob"}}},
                    "tiers": ["h100x8"], "companions": ["kubernetes"]})")
          .string();
  auto gpus = run_cli({"generate", tiered, "-o", out.string(), "--set", "gpus_per_node=16"});
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_EQ(
      gpus.err,
      "--set gpus_per_node=16: /gpus_per_node: error: variant 'h100x8': the kubernetes "
      "companion asks each pod for gpus_per_node=16 GPUs (nvidia.com/gpu: 16), but the "
      "nodes of tier 'h100x8' have 8 (" +
          (dir.path() / "platform/ml-training/families/llama-3-70b-instruct/tiers/h100x8.json")
              .string() +
          "); Kubernetes would leave the pods pending for ever [companion.values]\n"
          "zeroforge: error: family 'llama' not generated; nothing was written "
          "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run_cli({"generate", tiered, "-o", out.string()}).exit_code, 0);
}

// What the manifest says is what each reader takes (issue #36): its apply line, run by a shell
// and read as kubectl's -f reads a list (one line of CSV), names the file for any path; a
// volume's float PyYAML reads as the number written (tojson's 1e+20 it read as a string); a
// volume over the API server's limits is refused at its place.
TEST(KubernetesCliTest, ItsApplyLineAndItsVolumesReadAsWrittenAndItsLimitsHold) {
  TempDir dir;
  const std::string family = dir.write("family.json", R"({
    "name": "llama", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 512, "launch": {"kubernetes": {"image": "i",
      "volumes": [{"name": "scratch", "emptyDir": {"medium": "on", "sizeLimit": 1e20}}]}}},
    "tiers": ["medium"], "output": "team a,b \"q\" it's/{{ tier }}.json",
    "companions": ["kubernetes"]})")
                                 .string();
  const fs::path out = dir.path() / "out";
  auto result = run_cli({"generate", family, "-o", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string relative = "team a,b \"q\" it's/medium.k8s.yaml";
  const std::string text = read_file(out / relative);
  const std::string marker = "\n# kubectl apply -f ";
  const std::size_t at = text.find(marker);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string argument =
      text.substr(at + marker.size(), text.find('\n', at + 1) - at - marker.size());
  // The shell's word, then Go's encoding/csv reading of it as Python's csv module does (both
  // RFC 4180: a quoted field, "" for a quote).
  const fs::path word = dir.path() / "word";
  ASSERT_EQ(std::system(("printf '%s' " + argument + " > '" + word.string() + "'").c_str()), 0);
  std::optional<std::string> fields = shell(
      "python3 -c 'import csv, json, sys; print(json.dumps(next(csv.reader([open(sys.argv[1]"
      ").read()]))))' '" +
      word.string() + "'");
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(Json::parse(*fields), Json::array({relative})) << argument;

  // read_yaml quotes its paths for the shell with '...': a copy at a plain path.
  const fs::path copy = dir.write("manifest.yaml", text);
  std::optional<Json> documents = read_yaml({copy});
  if (documents) {
    const Json& job = (*documents)[0][1];
    const Json& volumes =
        job.at(Json::json_pointer("/spec/pytorchReplicaSpecs/Master/template/spec/volumes"));
    EXPECT_EQ(
        volumes.back(),
        Json::parse(R"({"name": "scratch", "emptyDir": {"medium": "on", "sizeLimit": 1e20}})"));
  }

  // Every source of the CRD's own Volume schema is one a volume may have (and the unit test
  // lists the 30 the message names): one volume of each.
  const Json& volume_schema = schema_of(kApis[0]).at(Json::json_pointer(
      "/properties/spec/properties/pytorchReplicaSpecs/additionalProperties/properties/template/"
      "properties/spec/properties/volumes/items/properties"));
  Json volumes = Json::array();
  for (const auto& [source, unused] : volume_schema.items()) {
    if (source == "name") continue;
    volumes.push_back({{"name", "v" + std::to_string(volumes.size())}, {source, Json::object()}});
  }
  EXPECT_EQ(volumes.size(), 30u);
  auto every = run_cli({"generate", family, "-o", (dir.path() / "every").string(), "--set",
                        "launch.kubernetes.volumes=" + volumes.dump()});
  EXPECT_EQ(every.exit_code, 0) << every.err;

  // A misspelt source: refused where written.
  auto bad = run_cli({"generate", family, "-o", (dir.path() / "bad").string(), "--set",
                      R"(launch.kubernetes.volumes=[{"name": "d", "hostpath": {"path": "/x"}}])"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(": /launch/kubernetes/volumes/0/hostpath: error: variant 'medium': "
                         "launch.kubernetes.volumes: volume \"d\" has an unknown source "
                         "'hostpath' (Kubernetes' core/v1 Volume knows "),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("; did you mean 'hostPath'? [companion.values]\n"), std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(dir.path() / "bad"));
}

// Gang scheduling as each consumer reads it: the PyTorchJob's runPolicy.schedulingPolicy (the
// training operator makes the PodGroup from it), a TrainJob's Volcano queue annotation on the
// JobSet template it patches, Kueue's queue label; every manifest valid against its CRD schema.
TEST(KubernetesCliTest, GangSchedulingWritesWhatEachControllerReadsAndFitsItsCrd) {
  struct Case {
    const char* name;
    std::size_t api;  // kApis
    std::vector<std::string> sets;
    const char* pointer;   // in the job, as PyYAML reads it
    const char* expected;  // JSON; "absent" for none
  };
  const char* trainer_annotations =
      "/spec/runtimePatches/0/trainingRuntimeSpec/template/metadata/annotations";
  const std::vector<Case> cases = {
      {"no gang", 0, {}, "/spec/runPolicy", "absent"},
      {"volcano",
       0,
       {R"(launch.kubernetes.gang={"scheduler": "volcano", "queue": "research"})"},
       "/spec/runPolicy/schedulingPolicy",
       R"({"minAvailable": 8, "queue": "research", "priorityClass": "training-high"})"},
      {"volcano, a minimum",
       0,
       {R"(launch.kubernetes.gang={"scheduler": "volcano", "min_available": 2})",
        "launch.kubernetes.scheduler_name=volcano"},
       "/spec/runPolicy/schedulingPolicy",
       R"({"minAvailable": 2, "priorityClass": "training-high"})"},
      {"coscheduling",
       0,
       {R"(launch.kubernetes.gang={"scheduler": "coscheduling", "schedule_timeout_seconds": 600})"},
       "/spec/runPolicy/schedulingPolicy",
       R"({"minAvailable": 8, "scheduleTimeoutSeconds": 600})"},
      {"kueue",
       0,
       {R"(launch.kubernetes.gang={"scheduler": "kueue", "queue": "team-a"})"},
       "/metadata/labels",
       R"({"app.kubernetes.io/managed-by": "zeroforge", "kueue.x-k8s.io/queue-name": "team-a"})"},
      {"kueue writes no run policy",
       0,
       {R"(launch.kubernetes.gang={"scheduler": "kueue", "queue": "team-a"})"},
       "/spec/runPolicy",
       "absent"},
      {"a TrainJob, no gang",
       1,
       {"launch.kubernetes.priority_class=null"},
       "/spec/runtimePatches/0/trainingRuntimeSpec/template/metadata",
       "absent"},
      {"a TrainJob, volcano",
       1,
       {"launch.kubernetes.priority_class=null",
        R"(launch.kubernetes.gang={"scheduler": "volcano", "queue": "research"})"},
       trainer_annotations,
       R"({"scheduling.volcano.sh/queue-name": "research"})"},
      {"a TrainJob, kueue",
       1,
       {"launch.kubernetes.priority_class=null",
        R"(launch.kubernetes.gang={"scheduler": "kueue", "queue": "team-a"})"},
       "/metadata/labels",
       R"({"app.kubernetes.io/managed-by": "zeroforge", "kueue.x-k8s.io/queue-name": "team-a"})"},
  };
  TempDir dir;
  const std::string family = dir.write("gang.json", R"({
    "name": "llama", "template": "deepspeed/config.json.j2",
    "values": {"stage": 3, "global_batch_size": 512,
               "launch": {"kubernetes": {"image": "nvcr.io/nvidia/pytorch:24.05-py3",
                                         "priority_class": "training-high"}}},
    "tiers": ["large"], "output": "{{ tier }}.json", "companions": ["kubernetes"]})")
                                 .string();
  std::vector<fs::path> files;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].name);
    const fs::path out = dir.path() / ("out" + std::to_string(i));
    std::vector<std::string> args = {
        "generate",   family,  "-o",
        out.string(), "--set", "launch.kubernetes.api=" + kApis[cases[i].api].kind};
    for (const auto& set : cases[i].sets) {
      args.push_back("--set");
      args.push_back(set);
    }
    auto result = run_cli(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    files.push_back(out / "large.k8s.yaml");
  }
  std::optional<Json> documents = read_yaml(files);
  if (!documents) return;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.name);
    const Json& job = (*documents)[i].at(1);
    for (const auto& problem : test::openapi_problems(schema_of(kApis[c.api]), job))
      ADD_FAILURE() << kApis[c.api].kind << " against its CRD schema: " << problem;
    const Json::json_pointer at(c.pointer);
    if (std::string(c.expected) == "absent") {
      EXPECT_FALSE(job.contains(at)) << job.dump();
    } else {
      ASSERT_TRUE(job.contains(at)) << job.dump();
      EXPECT_EQ(job.at(at), Json::parse(c.expected));
    }
  }
}

// A team's companions/kubernetes.yaml.j2 that extends the shipped partial and overrides three of
// its blocks (the one docs/companions.md shows): its manifests are the shipped ones with only its
// lines added, in every pod template, for both APIs, and valid against the CRD schemas.
constexpr const char* kTeamTemplate = R"({#- the shipped job and a log shipper -#}
{%- extends "companions/partials/kubernetes.yaml.j2" -%}
{%- block volume_mounts %}
{{- super() }}
{{ pad }}    - name: logs
{{ pad }}      mountPath: /logs
{%- endblock %}
{%- block containers %}
{%- if not train_job %}
{{ pad }}  - name: log-shipper
{{ pad }}    image: "fluent/fluent-bit:3.1"
{{ pad }}    volumeMounts:
{{ pad }}    - name: logs
{{ pad }}      mountPath: /logs
{{ pad }}      readOnly: true
{%- endif %}
{%- endblock %}
{%- block volumes %}
{{- super() }}
{{ pad }}  - name: logs
{{ pad }}    emptyDir: {}
{%- endblock %}
)";

// The lines of `team` that are not in `shipped`, when `team` is `shipped` with lines inserted
// (each line of `shipped` matched in order); nullopt when it is not.
std::optional<std::vector<std::string>> inserted_lines(const std::string& team,
                                                       const std::string& shipped) {
  auto split = [](const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = text.find('\n', start);
      lines.push_back(text.substr(start, end - start));
      start = end == std::string::npos ? text.size() : end + 1;
    }
    return lines;
  };
  const std::vector<std::string> a = split(team), b = split(shipped);
  std::vector<std::string> inserted;
  std::size_t j = 0;
  for (const auto& line : a) {
    if (j < b.size() && line == b[j]) {
      ++j;
    } else {
      inserted.push_back(line);
    }
  }
  if (j != b.size()) return std::nullopt;
  return inserted;
}

TEST(KubernetesCliTest, ATeamTemplateExtendsTheShippedOneAndChangesOnlyItsBlocks) {
  TempDir dir;
  const fs::path family = dir.write("everything.json", kEverything);
  const fs::path templates = dir.path() / "team-templates";
  dir.write("team-templates/companions/kubernetes.yaml.j2", kTeamTemplate);
  for (const Api& api : kApis) {
    SCOPED_TRACE(api.kind);
    const fs::path shipped = dir.path() / ("shipped-" + api.kind);
    const fs::path team = dir.path() / ("team-" + api.kind);
    for (const auto& [out, extra] : std::vector<std::pair<fs::path, std::vector<std::string>>>{
             {shipped, {}}, {team, {"--template-dir", templates.string()}}}) {
      std::vector<std::string> args = {"generate", family.string(),
                                       "-o",       out.string(),
                                       "--set",    "launch.kubernetes.api=" + api.kind};
      args.insert(args.end(), extra.begin(), extra.end());
      auto result = run_cli(args);
      ASSERT_EQ(result.exit_code, 0) << result.err;
    }
    const std::string p4 = api.kind == "TrainJob" ? std::string(18, ' ') : std::string(8, ' ');
    std::vector<std::string> per_pod = {p4 + "    - name: logs", p4 + "      mountPath: /logs"};
    if (api.kind == "PyTorchJob")
      for (const char* line : {"  - name: log-shipper", "    image: \"fluent/fluent-bit:3.1\"",
                               "    volumeMounts:", "    - name: logs", "      mountPath: /logs",
                               "      readOnly: true"})
        per_pod.push_back(p4 + line);
    per_pod.push_back(p4 + "  - name: logs");
    per_pod.push_back(p4 + "    emptyDir: {}");
    Json manifest = Json::parse(read_file(team / "manifest.json"));
    std::vector<fs::path> files;
    for (const auto& entry : manifest.at("configs")) {
      const std::string path = entry.at("companions").at("kubernetes");
      SCOPED_TRACE(path);
      files.push_back(team / path);
      auto inserted = inserted_lines(read_file(team / path), read_file(shipped / path));
      ASSERT_TRUE(inserted.has_value()) << "the shipped manifest's lines are not all there";
      const std::size_t pods =
          api.kind == "TrainJob" || entry.at("launch").at("nodes") == 1 ? 1 : 2;
      std::vector<std::string> expected;
      for (std::size_t i = 0; i < pods; ++i)
        expected.insert(expected.end(), per_pod.begin(), per_pod.end());
      EXPECT_EQ(*inserted, expected);
    }
    std::optional<Json> documents = read_yaml(files);
    if (!documents) continue;
    for (std::size_t i = 0; i < files.size(); ++i) {
      SCOPED_TRACE(files[i].string());
      const Json& job = (*documents)[i].at(1);
      for (const auto& problem : test::openapi_problems(schema_of(api), job))
        ADD_FAILURE() << api.kind << " against its CRD schema: " << problem;
    }
  }
}

// A value the companion needs that no layer wrote is placed where the family would write it
// (its file and /values pointer), not on a line that names no file.
TEST(KubernetesCliTest, ARequiredValueLeftOutIsPlacedWhereTheFamilyWouldWriteIt) {
  TempDir dir;
  for (const char* launch : {R"(, "launch": {"kubernetes": {"namespace": "ml"}})", ""}) {
    const std::string family = dir.write("teams/llm/family.json", std::string(R"({"name": "llama",
      "template": "deepspeed/config.json.j2", "values": {"global_batch_size": 512)") +
                                                                      launch + R"(},
      "tiers": ["medium"], "companions": ["kubernetes"]})")
                                   .string();
    const fs::path out = dir.path() / "out";
    auto r = run_cli({"generate", family, "-o", out.string()});
    EXPECT_EQ(r.exit_code, 2) << launch;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_TRUE(first.starts_with(family +
                                  ": /values/launch/kubernetes/image: error: variant 'medium': "
                                  "the kubernetes companion's PyTorchJob needs "
                                  "launch.kubernetes.image, the training container's image"))
        << first;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace zf
