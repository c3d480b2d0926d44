// SPDX-License-Identifier: MIT
// plan_kubernetes (kubernetes_plan.hpp): `launch.kubernetes` checked as the API server and the
// Kubeflow controllers would (names as DNS-1123 labels and subdomains, label keys and values,
// tolerations, volumes; Kubernetes 1.31 pkg/apis/core/validation, training-operator 1.9
// pkg/controller.v1/pytorch, trainer 2.3 pkg/runtime/framework/plugins/torch), the one request the
// tier can refuse (more GPUs per pod than its nodes have), and what the manifest's YAML cannot
// carry: the config as a literal block scalar, or failing that as a double-quoted one.
#include "kubernetes_plan.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "kubernetes_gang.hpp"
#include "kubernetes_names.hpp"
#include "kubernetes_pod_values.hpp"
#include "text_helpers.hpp"
#include "yaml_text.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::string_view, 20> kKubernetesKeys = {"api",
                                                              "name",
                                                              "namespace",
                                                              "image",
                                                              "service_account",
                                                              "node_selector",
                                                              "tolerations",
                                                              "volumes",
                                                              "volume_mounts",
                                                              "runtime",
                                                              "env",
                                                              "env_from",
                                                              "resources",
                                                              "labels",
                                                              "annotations",
                                                              "pod_labels",
                                                              "pod_annotations",
                                                              "priority_class",
                                                              "scheduler_name",
                                                              "gang"};
constexpr std::array<std::string_view, 5> kTolerationKeys = {"key", "operator", "value", "effect",
                                                             "tolerationSeconds"};
constexpr std::array<std::string_view, 4> kVolumeMountKeys = {"name", "mountPath", "readOnly",
                                                              "subPath"};
// Volumes the manifest defines itself: the ConfigMap's files, and a memory-backed /dev/shm
// (a container's default is 64 MiB, too little for NCCL and the data loaders' shared memory).
constexpr std::array<std::string_view, 3> kOwnVolumes = {"zeroforge-config", "zeroforge-hf-args",
                                                         "dshm"};
// Variables the training operator (PyTorchJob: envvar.go setPodEnv) or the Trainer's torch plugin
// (TrainJob: torch.go, TorchRunReservedEnvNames) set in the training container: the rendezvous
// and the ranks. The Trainer refuses a TrainJob that sets one; the operator appends its own after
// the job's, and the launch's value would be dropped or, for the PET_ ones torchrun reads, change
// the world.
constexpr std::array<std::string_view, 10> kOperatorVariables = {
    "MASTER_ADDR",     "MASTER_PORT", "WORLD_SIZE",         "RANK",          "PET_MASTER_ADDR",
    "PET_MASTER_PORT", "PET_NNODES",  "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PYTHONUNBUFFERED"};

// The volume sources of Kubernetes' core/v1 Volume (the PodSpec schema the Kubeflow CRDs embed,
// tests/data/kubernetes-crds; `image` since Kubernetes 1.31): the API server drops any other
// field of a volume, and refuses a volume left without a source.
constexpr std::array<std::string_view, 30> kVolumeSources = {"awsElasticBlockStore",
                                                             "azureDisk",
                                                             "azureFile",
                                                             "cephfs",
                                                             "cinder",
                                                             "configMap",
                                                             "csi",
                                                             "downwardAPI",
                                                             "emptyDir",
                                                             "ephemeral",
                                                             "fc",
                                                             "flexVolume",
                                                             "flocker",
                                                             "gcePersistentDisk",
                                                             "gitRepo",
                                                             "glusterfs",
                                                             "hostPath",
                                                             "image",
                                                             "iscsi",
                                                             "nfs",
                                                             "persistentVolumeClaim",
                                                             "photonPersistentDisk",
                                                             "portworxVolume",
                                                             "projected",
                                                             "quobyte",
                                                             "rbd",
                                                             "scaleIO",
                                                             "secret",
                                                             "storageos",
                                                             "vsphereVolume"};

// The most levels of objects and arrays a launch.kubernetes value may have (`volumes` is one, a
// volume two, its source three): Kubernetes' own objects are at most about 10 deep
// (ephemeral.volumeClaimTemplate.spec.selector.matchExpressions[].values[]), while YAML readers
// part below the JSON reader's 512: PyYAML composes recursively and stops with a RecursionError
// near 500 levels of flow collections (measured: 450 read, 500 not), go-yaml reads far deeper.
constexpr int kMaxObjectDepth = 32;

// What the API server and etcd take (docs/companions.md, "Kubernetes"): a ConfigMap's data at
// most 1 MiB (core/validation ValidateConfigMap, MaxSecretSize), any object at most 1.5 MiB
// (etcd's default --max-request-bytes, 1572864, which the API server's writes must fit).
constexpr std::size_t kMaxConfigMapData = std::size_t{1} << 20;
constexpr std::size_t kMaxObjectBytes = std::size_t{3} << 19;

std::string keys_text(const auto& keys) {
  std::string text;
  for (auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
  return text;
}

std::string shown(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The first character beyond U+FFFF in `text`, or 0. tojson writes it as a surrogate pair
// (`\ud83d\ude00`, as Python's json does), which the YAML reader of kubectl and the API server
// (go-yaml, as libyaml) refuses in a double-quoted scalar: "invalid Unicode character escape".
char32_t astral_character(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0xF0 && c <= 0xF4 && detail::utf8_sequence_length(text, i) == 4) {
      return (static_cast<char32_t>(c & 0x07) << 18) |
             (static_cast<char32_t>(text[i + 1] & 0x3F) << 12) |
             (static_cast<char32_t>(text[i + 2] & 0x3F) << 6) |
             static_cast<char32_t>(text[i + 3] & 0x3F);
    }
  }
  return 0;
}

// `text` split into the lines of a YAML literal block scalar (`|`) that reads back as exactly
// `text`, or null when it cannot be one: the text must end with one line break and hold nothing
// a YAML reader ends a line at or refuses (find_line_control: NEL, U+2028, controls; a byte
// order mark U+FEFF, U+FFFE, U+FFFF), and its first line must not start with a space (the block's
// indentation is read from it).
Json literal_block_lines(const std::string& text) {
  if (text.empty() || text.back() != '\n' || (text.size() > 1 && text[text.size() - 2] == '\n') ||
      text.front() == ' ')
    return nullptr;
  for (std::string_view bad : {"\xEF\xBB\xBF", "\xEF\xBF\xBE", "\xEF\xBF\xBF"})
    if (text.find(bad) != std::string::npos) return nullptr;
  Json lines = Json::array();
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    if (detail::find_line_control(line)) return nullptr;
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

// The default job name: the family and the config's path as a DNS-1123 label
// (`llama-large-zero3`): lower case, every other character a '-', runs of '-' as one.
std::string default_name(const KubernetesSubject& subject) {
  std::string path = subject.config_path;
  if (path.ends_with(".json")) path.resize(path.size() - 5);
  const std::string source = subject.family.empty() ? path : subject.family + "-" + path;
  std::string name;
  for (char c : source) {
    const auto u = static_cast<unsigned char>(c);
    const char out = std::isalnum(u) && u < 0x80 ? static_cast<char>(std::tolower(u)) : '-';
    if (out == '-' && (name.empty() || name.back() == '-')) continue;
    name += out;
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name.empty() ? "zeroforge" : name;
}

// The pointer of the first object or array nested more than `levels` deep in `value` (itself
// at `pointer`, its first level), or "" when none is.
std::string too_deep(const Json& value, int levels, const std::string& pointer) {
  if (!value.is_structured()) return "";
  if (levels == 0) return pointer;
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      if (auto p = too_deep(item, levels - 1, pointer + "/" + escape_pointer_segment(key));
          !p.empty())
        return p;
  } else {
    for (std::size_t i = 0; i < value.size(); ++i)
      if (auto p = too_deep(value[i], levels - 1, pointer + "/" + std::to_string(i)); !p.empty())
        return p;
  }
  return "";
}

// A path that stays below the directory it is taken in (Kubernetes' validateLocalDescendingPath
// for a volume mount's subPath): relative, and no `..` element.
std::string descending_path_problem(std::string_view path) {
  if (path.starts_with("/")) return "is absolute";
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    if (path.substr(start, slash == std::string_view::npos ? slash : slash - start) == "..")
      return "climbs out of the volume with '..'";
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return "";
}

// The `kubectl apply -f` argument for `path` as a shell reads it: kubectl's -f is a list flag
// (pflag StringSlice), which reads its value as one line of CSV, so a path with a ',' or '"'
// is written as a quoted CSV field ('"' doubled) first; then the word is single-quoted for the
// shell unless it is only letters, digits and `_ . / - + : @ %`.
std::string apply_argument(const std::string& path) {
  std::string word = path;
  if (path.find_first_of(",\"") != std::string::npos) {
    word = "\"";
    for (char c : path) word += c == '"' ? std::string("\"\"") : std::string(1, c);
    word += '"';
  }
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("_./-+:@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

class KubernetesPlanner {
 public:
  KubernetesPlanner(const KubernetesSubject& subject, std::vector<CompanionProblem>& problems)
      : subject_(subject), problems_(problems) {}

  Json run(const Json* value) {
    Json k = Json::object();
    k["api"] = "PyTorchJob";
    k["api_version"] = "kubeflow.org/v1";
    k["name"] = default_name(subject_);
    k["config_map"] = nullptr;
    k["namespace"] = nullptr;
    k["image"] = nullptr;
    k["service_account"] = nullptr;
    k["node_selector"] = Json::object();
    k["tolerations"] = Json::array();
    k["volumes"] = Json::array();
    k["volumes_yaml"] = Json::array();
    k["volume_mounts"] = Json::array();
    k["runtime"] = "torch-distributed";
    add_pod_value_defaults(k);
    k["gang"] = nullptr;
    if (value != nullptr && !value->is_null()) read(*value, k);
    k["api_version"] = k["api"] == "TrainJob" ? "trainer.kubeflow.org/v1alpha1" : "kubeflow.org/v1";
    k["config_map"] = k["name"].get<std::string>() + "-config";
    add_files(k);
    k["apply_argument"] = apply_argument(companion_path("kubernetes", subject_.config_path));
    if (subject_.requested) check_job(k);
    return k;
  }

 private:
  void fail(std::string pointer, std::string message) {
    problems_.push_back({std::move(pointer), std::move(message)});
  }

  void read(const Json& value, Json& k) {
    if (!value.is_object()) {
      fail("/launch/kubernetes", "launch.kubernetes must be an object (" +
                                     keys_text(kKubernetesKeys) + ") or null, got " + value.dump());
      return;
    }
    for (const auto& [key, item] : value.items()) {
      const std::string pointer = "/launch/kubernetes/" + escape_pointer_segment(key);
      const std::string name = "launch.kubernetes." + key;
      if (std::string deep = too_deep(item, kMaxObjectDepth, pointer); !deep.empty()) {
        fail(deep, name + " nests deeper than " + std::to_string(kMaxObjectDepth) +
                       " levels; YAML readers differ on such a manifest (PyYAML stops with a "
                       "RecursionError near 500 levels, go-yaml reads on) and no Kubernetes "
                       "object is that deep");
        continue;
      }
      if (key == "api") {
        if (item != "PyTorchJob" && item != "TrainJob") {
          fail(pointer, name +
                            " must be \"PyTorchJob\" (kubeflow.org/v1) or \"TrainJob\" "
                            "(trainer.kubeflow.org/v1alpha1), got " +
                            item.dump());
          continue;
        }
        k[key] = item;
      } else if (key == "name" || key == "namespace") {
        if (item.is_null() && key == "namespace") continue;
        if (!item.is_string() || !is_dns_label(item.get<std::string>())) {
          fail(pointer, name + ": " +
                            (item.is_string() ? shown(item.get<std::string>()) : item.dump()) +
                            " is not a DNS-1123 label (at most 63 lower-case letters, digits and "
                            "'-', starting and ending with a letter or digit), as Kubernetes "
                            "requires of a " +
                            (key == "name" ? "job's name" : "namespace"));
          continue;
        }
        k[key] = item;
        if (key == "name") name_given_ = true;
      } else if (key == "service_account" || key == "runtime") {
        if (item.is_null() && key == "service_account") continue;
        if (!item.is_string() || !is_dns_subdomain(item.get<std::string>())) {
          fail(pointer, name + ": " +
                            (item.is_string() ? shown(item.get<std::string>()) : item.dump()) +
                            " is not a DNS-1123 subdomain (lower-case letters, digits, '-' and "
                            "'.', at most 253), as Kubernetes names a " +
                            (key == "runtime" ? "ClusterTrainingRuntime" : "service account"));
          continue;
        }
        k[key] = item;
      } else if (key == "image") {
        if (item.is_null()) continue;
        const bool ok = item.is_string() && !item.get<std::string>().empty() &&
                        std::none_of(item.get_ref<const std::string&>().begin(),
                                     item.get_ref<const std::string&>().end(),
                                     [](unsigned char c) { return c <= ' ' || c == 0x7f; });
        if (!ok) {
          fail(pointer, name +
                            " must be a container image reference (one word: "
                            "registry/repository:tag) or null, got " +
                            item.dump());
          continue;
        }
        k[key] = item;
      } else if (key == "node_selector") {
        read_node_selector(item, pointer, k);
      } else if (key == "tolerations") {
        read_tolerations(item, pointer, k);
      } else if (key == "volumes") {
        read_volumes(item, pointer, k);
      } else if (key == "volume_mounts") {
        mounts_ = &item;
        mounts_pointer_ = pointer;
      } else if (key == "gang") {
        read_gang(item, pointer, k, problems_);
      } else if (detail::is_listed(kPodValueKeys, key)) {
        read_pod_value(key, item, pointer, k, problems_);
      } else {
        std::string guess = detail::nearest_name(key, kKubernetesKeys);
        fail(pointer, "unknown key '" + key + "' in launch.kubernetes (expected " +
                          keys_text(kKubernetesKeys) + ")" +
                          (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      }
    }
    // Mounts name volumes: read once every volume is known, whatever the order of the keys.
    if (mounts_ != nullptr) read_volume_mounts(*mounts_, mounts_pointer_, k);
  }

  void read_node_selector(const Json& item, const std::string& pointer, Json& k) {
    if (item.is_null()) return;
    if (!item.is_object()) {
      fail(pointer,
           "launch.kubernetes.node_selector must be an object of node label to value "
           "(\"nvidia.com/gpu.product\": \"NVIDIA-H100-80GB-HBM3\"), got " +
               item.dump());
      return;
    }
    for (const auto& [label, text] : item.items()) {
      const std::string at = pointer + "/" + escape_pointer_segment(label);
      if (!is_label_key(label)) {
        fail(at, "launch.kubernetes.node_selector: " + shown(label) +
                     " is not a label key (an optional DNS subdomain and '/', then at most 63 "
                     "letters, digits, '-', '_' and '.', starting and ending with a letter or "
                     "digit)");
      } else if (!text.is_string() ||
                 (!text.get<std::string>().empty() && !is_label_name(text.get<std::string>()))) {
        fail(at, "launch.kubernetes.node_selector." + label + ": " + text.dump() +
                     " is not a label value (a string of at most 63 letters, digits, '-', '_' "
                     "and '.', starting and ending with a letter or digit)");
      }
    }
    k["node_selector"] = item;
  }

  void read_tolerations(const Json& item, const std::string& pointer, Json& k) {
    if (item.is_null()) return;
    if (!item.is_array()) {
      fail(pointer,
           "launch.kubernetes.tolerations must be a list of tolerations ({\"key\", "
           "\"operator\", \"value\", \"effect\", \"tolerationSeconds\"}), got " +
               item.dump());
      return;
    }
    for (std::size_t i = 0; i < item.size(); ++i) {
      const std::string at = pointer + "/" + std::to_string(i);
      if (std::string problem = toleration_problem(item[i], at); !problem.empty())
        fail(problem_pointer_.empty() ? at : problem_pointer_,
             "launch.kubernetes.tolerations: " + problem);
    }
    k["tolerations"] = item;
  }

  // What is wrong with one toleration (core/validation ValidateTolerations), or "";
  // problem_pointer_ names the field at fault.
  std::string toleration_problem(const Json& t, const std::string& at) {
    problem_pointer_.clear();
    if (!t.is_object())
      return "expected a toleration (an object of key, operator, value, effect, "
             "tolerationSeconds), got " +
             t.dump();
    for (const auto& [field, v] : t.items()) {
      problem_pointer_ = at + "/" + escape_pointer_segment(field);
      if (!detail::is_listed(kTolerationKeys, field)) {
        std::string guess = detail::nearest_name(field, kTolerationKeys);
        return "unknown key '" + field + "' in a toleration (expected " +
               keys_text(kTolerationKeys) + ")" +
               (guess.empty() ? "" : "; did you mean '" + guess + "'?");
      }
      if (field == "tolerationSeconds") {
        if (!v.is_number_integer())
          return "tolerationSeconds must be a whole number, got " + v.dump();
      } else if (!v.is_string()) {
        return field + " must be a string, got " + v.dump();
      }
    }
    problem_pointer_ = at;
    auto text = [&](const char* field) {
      return t.contains(field) && t[field].is_string() ? t[field].get<std::string>()
                                                       : std::string();
    };
    const std::string key = text("key"), op = t.contains("operator") ? text("operator") : "Equal";
    const std::string value = text("value"), effect = text("effect");
    if (!key.empty() && !is_label_key(key)) {
      problem_pointer_ = at + "/key";
      return shown(key) + " is not a label key (a taint's key is one)";
    }
    if (op != "Equal" && op != "Exists") {
      problem_pointer_ = at + "/operator";
      return "operator must be \"Exists\" or \"Equal\", got " + shown(op);
    }
    if (key.empty() && op != "Exists") {
      problem_pointer_ = at + "/operator";
      return "a toleration without a key tolerates every taint only with operator \"Exists\"";
    }
    if (op == "Exists" && !value.empty()) {
      problem_pointer_ = at + "/value";
      return "a toleration with operator \"Exists\" takes no value, got " + shown(value);
    }
    if (!value.empty() && !is_label_name(value)) {
      problem_pointer_ = at + "/value";
      return shown(value) + " is not a label value (a taint's value is one)";
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" &&
        effect != "NoExecute") {
      problem_pointer_ = at + "/effect";
      return "effect must be \"NoSchedule\", \"PreferNoSchedule\" or \"NoExecute\" (or left out: "
             "all three), got " +
             shown(effect);
    }
    if (t.contains("tolerationSeconds") && effect != "NoExecute") {
      problem_pointer_ = at + "/tolerationSeconds";
      return "tolerationSeconds applies only to effect \"NoExecute\"";
    }
    return "";
  }

  void read_volumes(const Json& item, const std::string& pointer, Json& k) {
    if (item.is_null()) return;
    if (!item.is_array()) {
      fail(pointer,
           "launch.kubernetes.volumes must be a list of Kubernetes volumes ({\"name\": "
           "\"data\", \"persistentVolumeClaim\": {\"claimName\": \"datasets\"}}), got " +
               item.dump());
      return;
    }
    for (std::size_t i = 0; i < item.size(); ++i) {
      const std::string at = pointer + "/" + std::to_string(i);
      const Json& v = item[i];
      if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) {
        fail(at,
             "launch.kubernetes.volumes: expected a volume (an object with a name and one "
             "source, {\"name\": \"data\", \"nfs\": {...}}), got " +
                 v.dump());
        continue;
      }
      const std::string name = v["name"];
      if (!is_dns_label(name)) {
        fail(at + "/name", "launch.kubernetes.volumes: " + shown(name) +
                               " is not a DNS-1123 label, as a volume's name must be");
        continue;
      }
      if (detail::is_listed(kOwnVolumes, name) || !volume_names_.insert(name).second) {
        fail(at + "/name",
             "launch.kubernetes.volumes: the volume name \"" + name + "\" is taken (" +
                 (detail::is_listed(kOwnVolumes, name)
                      ? "the manifest's own volumes are zeroforge-config, zeroforge-hf-args and "
                        "dshm"
                      : "listed twice") +
                 ")");
        continue;
      }
      std::size_t sources = 0;
      for (const auto& [field, source] : v.items()) {
        if (field == "name") continue;
        ++sources;
        if (!detail::is_listed(kVolumeSources, field)) {
          const std::string guess = detail::nearest_name(field, kVolumeSources);
          fail(at + "/" + escape_pointer_segment(field),
               "launch.kubernetes.volumes: volume \"" + name + "\" has an unknown source '" +
                   field + "' (Kubernetes' core/v1 Volume knows " + keys_text(kVolumeSources) +
                   ")" + (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
          continue;
        }
        if (!source.is_object())
          fail(at + "/" + escape_pointer_segment(field), "launch.kubernetes.volumes: the source " +
                                                             field + " must be an object, got " +
                                                             source.dump());
      }
      if (sources != 1)
        fail(at, "launch.kubernetes.volumes: volume \"" + name + "\" has " +
                     std::to_string(sources) +
                     " sources; a Kubernetes volume has exactly one (configMap, "
                     "persistentVolumeClaim, nfs, hostPath, emptyDir, ...)");
    }
    k["volumes"] = item;
    k["volumes_yaml"] = Json::array();
    for (const auto& volume : item) k["volumes_yaml"].push_back(yaml_flow_text(volume));
  }

  void read_volume_mounts(const Json& item, const std::string& pointer, Json& k) {
    if (item.is_null()) return;
    if (!item.is_array()) {
      fail(pointer,
           "launch.kubernetes.volume_mounts must be a list of volume mounts "
           "({\"name\": \"data\", \"mountPath\": \"/data\"}), got " +
               item.dump());
      return;
    }
    for (std::size_t i = 0; i < item.size(); ++i) {
      const std::string at = pointer + "/" + std::to_string(i);
      const Json& m = item[i];
      if (!m.is_object()) {
        fail(at, "launch.kubernetes.volume_mounts: expected a volume mount (an object of " +
                     keys_text(kVolumeMountKeys) + "), got " + m.dump());
        continue;
      }
      for (const auto& [field, v] : m.items()) {
        const std::string there = at + "/" + escape_pointer_segment(field);
        if (!detail::is_listed(kVolumeMountKeys, field)) {
          std::string guess = detail::nearest_name(field, kVolumeMountKeys);
          fail(there, "unknown key '" + field + "' in a volume mount (expected " +
                          keys_text(kVolumeMountKeys) + ")" +
                          (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
        } else if (field == "readOnly" ? !v.is_boolean() : !v.is_string()) {
          fail(there, "launch.kubernetes.volume_mounts: " + field + " must be " +
                          (field == "readOnly" ? "true or false" : "a string") + ", got " +
                          v.dump());
        }
      }
      const Json* name = m.contains("name") ? &m["name"] : nullptr;
      if (name == nullptr || !name->is_string() || !volume_names_.count(name->get<std::string>()))
        fail(at + "/name", "launch.kubernetes.volume_mounts: the mount names " +
                               (name == nullptr ? std::string("no volume") : name->dump()) +
                               ", which is not one of launch.kubernetes.volumes" +
                               (volume_names_.empty() ? " (there are none)" : ""));
      if (const Json* sub = m.contains("subPath") ? &m["subPath"] : nullptr;
          sub != nullptr && sub->is_string()) {
        if (std::string why = descending_path_problem(sub->get<std::string>()); !why.empty())
          fail(at + "/subPath", "launch.kubernetes.volume_mounts: subPath " + sub->dump() + " " +
                                    why +
                                    "; Kubernetes takes a path inside the volume (relative, no "
                                    "'..'), and refuses the pod");
      }
      const Json* path = m.contains("mountPath") ? &m["mountPath"] : nullptr;
      if (path == nullptr || !path->is_string() || !path->get<std::string>().starts_with("/"))
        fail(at + "/mountPath",
             "launch.kubernetes.volume_mounts: mountPath must be an absolute "
             "path, got " +
                 (path == nullptr ? std::string("none") : path->dump()));
    }
    k["volume_mounts"] = item;
  }

  // The ConfigMap's files: the config (and the hf-args), each mounted by its key where the launch
  // line names it: launch.config_dir's path when it is absolute, else under /zeroforge.
  void add_files(Json& k) {
    const std::string& ref = subject_.config_ref;
    const std::string mount = ref.starts_with("/") ? ref : "/zeroforge/" + ref;
    std::string text;
    append_json_text(text, *subject_.config);
    k["config_key"] = "deepspeed-config.json";
    k["config_mount"] = mount;
    k["config_lines"] = literal_block_lines(text);
    k["config_text"] = text;
    k["hf_args_key"] = nullptr;
    k["hf_args_mount"] = nullptr;
    k["hf_args_lines"] = nullptr;
    k["hf_args_text"] = nullptr;
    if (subject_.hf_args_path.empty() || subject_.hf_args == nullptr) return;
    // As the hf-args companion writes it (its template's tojson sorts the keys), but with
    // `deepspeed` naming the config where the pod mounts it: the file beside the config names
    // it from the directory the other launches start in, which a pod does not have.
    nlohmann::json sorted = *subject_.hf_args;
    if (sorted.contains("deepspeed")) sorted["deepspeed"] = mount;
    std::string args;
    append_json_text(args, Json(sorted));
    const std::string dir = mount.substr(0, mount.rfind('/') + 1);
    const std::string& path = subject_.hf_args_path;
    k["hf_args_key"] = "hf-args.json";
    k["hf_args_mount"] = dir + path.substr(path.rfind('/') + 1);
    k["hf_args_lines"] = literal_block_lines(args);
    k["hf_args_text"] = args;
  }

  // The job's name as its controller takes it. The training operator's webhook (1.9,
  // pkg/webhooks/pytorchjob validatePyTorchJob) refuses a PyTorchJob whose name is not a
  // DNS-1035 label (it names the replicas' Services), and its pods NAME-master-0 and
  // NAME-worker-N are host names (63). A TrainJob's JobSet is named after it, and JobSet's
  // webhook (pkg/webhooks/jobset_webhook.go) refuses a JobSet whose longest pod name,
  // NAME-node-0-(N-1) with the 5 characters the Job controller appends ("-abcde" in the
  // webhook), is not a DNS-1035 label: at most 63, starting with a letter.
  void check_name(const std::string& name, bool train_job) {
    // The name is a DNS-1123 label already (or refused as one); DNS-1035 adds a leading letter.
    if (!name.empty() && !std::islower(static_cast<unsigned char>(name.front()))) {
      fail("/launch/kubernetes/name",
           "launch.kubernetes.name: " + shown(name) +
               (name_given_ ? "" : " (the default: the family's name and the config's path)") +
               " starts with a digit, and the " +
               (train_job ? "JobSet controller (JobSet's webhook: the job's pods and Jobs must "
                            "be DNS-1035 labels)"
                          : "Kubeflow training operator (its webhook: a PyTorchJob's name must be "
                            "a DNS-1035 label, as its Services are)") +
               " refuses it; a job's name starts with a letter: set launch.kubernetes.name");
      return;
    }
    const std::string longest =
        name + (train_job            ? "-node-0-" + std::to_string(subject_.nodes - 1) + "-abcde"
                : subject_.nodes > 1 ? "-worker-" + std::to_string(subject_.nodes - 2)
                                     : std::string("-master-0"));
    if (longest.size() <= 63) return;
    if (train_job)
      fail("/launch/kubernetes/name",
           "launch.kubernetes.name: \"" + name +
               "\" is too long: the TrainJob's JobSet names its "
               "last pod \"" +
               longest.substr(0, longest.size() - 6) +
               "\" and the Job controller appends 6 characters (\"-abcde\"), " +
               std::to_string(longest.size()) +
               " in all, and JobSet's webhook refuses a pod name over 63 (a DNS-1035 label): "
               "at most " +
               std::to_string(63 - (longest.size() - name.size())) + " characters for " +
               std::to_string(subject_.nodes) + " node" + (subject_.nodes > 1 ? "s" : "") +
               "; set a shorter launch.kubernetes.name");
    else
      fail("/launch/kubernetes/name",
           "launch.kubernetes.name: \"" + name + "\" is too long: the PyTorchJob's pod \"" +
               longest + "\" has " + std::to_string(longest.size()) +
               " characters, and Kubernetes takes at most 63 in a host name; set a shorter "
               "launch.kubernetes.name");
  }

  // What only a written job is checked for: names its pods take, variables the operator owns,
  // the gang (which completes k.gang and k.labels for the template),
  // the tier's GPUs, the image, and text the manifest's YAML cannot carry.
  void check_job(Json& k) {
    const bool train_job = k["api"] == "TrainJob";
    check_name(k["name"], train_job);
    if (!train_job && k["image"].is_null())
      fail("/launch/kubernetes/image",
           "the kubernetes companion's PyTorchJob needs launch.kubernetes.image, the training "
           "container's image (with torch, DeepSpeed and the training script); a TrainJob "
           "(launch.kubernetes.api: TrainJob) runs its runtime's image instead");
    if (subject_.environment != nullptr && subject_.environment->is_object()) {
      for (const auto& [variable, v] : subject_.environment->items()) {
        if (!detail::is_listed(kOperatorVariables, variable)) continue;
        fail("/launch/environment/" + escape_pointer_segment(variable),
             "launch.environment." + variable + " is set by the " +
                 (train_job ? "Kubeflow Trainer" : "Kubeflow training operator") +
                 " in every training container (the rendezvous and the ranks: " +
                 keys_text(kOperatorVariables) + "); leave it out");
      }
    }
    std::vector<std::string> variables = subject_.variables;
    if (subject_.environment != nullptr && subject_.environment->is_object())
      for (const auto& [variable, v] : subject_.environment->items()) variables.push_back(variable);
    for (std::size_t i = 0; i < k["env"].size(); ++i) {
      const Json& variable = k["env"][i].value("name", Json());
      if (variable.is_string() &&
          detail::is_listed(kOperatorVariables, variable.get<std::string>()))
        fail("/launch/kubernetes/env/" + std::to_string(i) + "/name",
             "launch.kubernetes.env: " + variable.dump() + " is set by the " +
                 (train_job ? "Kubeflow Trainer" : "Kubeflow training operator") +
                 " in every training container (the rendezvous and the ranks: " +
                 keys_text(kOperatorVariables) + "); leave it out");
    }
    check_pod_values(k, subject_.gpus_per_node, variables, problems_);
    plan_gang(k, subject_.nodes, problems_);
    // Each path holds one mount (a Pod's volumeMounts are keyed by mountPath).
    std::set<std::string> paths = {k["config_mount"].get<std::string>(), "/dev/shm"};
    if (k["hf_args_mount"].is_string()) paths.insert(k["hf_args_mount"].get<std::string>());
    for (std::size_t i = 0; i < k["volume_mounts"].size(); ++i) {
      const Json& path = k["volume_mounts"][i].value("mountPath", Json());
      if (path.is_string() && !paths.insert(path.get<std::string>()).second)
        fail("/launch/kubernetes/volume_mounts/" + std::to_string(i) + "/mountPath",
             "launch.kubernetes.volume_mounts: " + path.dump() +
                 " is mounted already (the config, the Trainer's arguments, /dev/shm or another "
                 "mount); a pod mounts one volume at a path");
    }
    check_tier_gpus();
    check_astral(k);
    check_sizes(k);
  }

  // The ConfigMap's data and the job's size against what the API server and etcd take. The
  // job is counted as the JSON text of what it carries, once per pod template (a PyTorchJob
  // of several nodes has a Master's and a Worker's): less than the object the API server
  // stores, so nothing that fits is refused.
  void check_sizes(const Json& k) {
    auto dotted = [](std::string pointer) {
      pointer.erase(0, 1);
      std::replace(pointer.begin(), pointer.end(), '/', '.');
      return pointer;
    };
    const std::size_t config = k["config_text"].get_ref<const std::string&>().size();
    const std::size_t hf_args =
        k["hf_args_text"].is_string() ? k["hf_args_text"].get_ref<const std::string&>().size() : 0;
    if (config + hf_args > kMaxConfigMapData)
      fail("/",
           "the kubernetes companion's ConfigMap would hold " + std::to_string(config + hf_args) +
               " bytes of data (the config " + std::to_string(config) +
               (hf_args ? ", the Trainer's arguments " + std::to_string(hf_args) : std::string()) +
               "), and the API server refuses a ConfigMap over 1 MiB (1048576 bytes); "
               "make the config smaller");
    const bool train_job = k["api"] == "TrainJob";
    const std::size_t templates = !train_job && subject_.nodes > 1 ? 2 : 1;
    struct Part {
      const char* pointer;
      const Json* value;
    };
    const Part parts[] = {{"/launch/script", subject_.script},
                          {"/launch/args", subject_.args},
                          {"/launch/environment", subject_.environment},
                          {"/launch/kubernetes/image", &k["image"]},
                          {"/launch/kubernetes/node_selector", &k["node_selector"]},
                          {"/launch/kubernetes/tolerations", &k["tolerations"]},
                          {"/launch/kubernetes/volumes", &k["volumes"]},
                          {"/launch/kubernetes/volume_mounts", &k["volume_mounts"]},
                          {"/launch/kubernetes/env", &k["env"]},
                          {"/launch/kubernetes/env_from", &k["env_from"]},
                          {"/launch/kubernetes/pod_labels", &k["pod_labels"]},
                          {"/launch/kubernetes/pod_annotations", &k["pod_annotations"]}};
    std::size_t total = 0, largest = 0;
    const char* largest_at = "/launch";
    for (const Part& part : parts) {
      if (part.value == nullptr) continue;
      const std::size_t size = part.value->dump().size();
      total += size;
      if (size > largest) {
        largest = size;
        largest_at = part.pointer;
      }
    }
    if (subject_.hf_args != nullptr) total += subject_.hf_args->dump().size();
    total *= templates;
    if (total <= kMaxObjectBytes) return;
    fail(largest_at,
         std::string("the kubernetes companion's ") + (train_job ? "TrainJob" : "PyTorchJob") +
             " would be at least " + std::to_string(total) +
             " bytes (its command, environment "
             "and pod settings" +
             (templates > 1 ? ", in both its Master's and its Worker's pod "
                              "template"
                            : "") +
             "), and etcd stores an object of at most 1.5 MiB (1572864 bytes), so the API "
             "server refuses it; " +
             dotted(largest_at) + " is the largest part (" + std::to_string(largest) +
             " bytes): pass such data in a file or a volume");
  }

  // A pod asking for more GPUs than the tier's nodes have is never scheduled: it stays Pending.
  void check_tier_gpus() {
    const std::string shortfall = tier_gpu_shortfall(subject_.tier, subject_.gpus_per_node);
    if (shortfall.empty()) return;
    fail("/gpus_per_node", "the kubernetes companion asks each pod for gpus_per_node=" +
                               std::to_string(subject_.gpus_per_node) + " GPUs (nvidia.com/gpu: " +
                               std::to_string(subject_.gpus_per_node) + "), but " + shortfall +
                               "; Kubernetes would leave the pods pending for ever");
  }

  void check_astral(const Json& k) {
    auto walk = [&](auto&& self, const Json& v, const std::string& pointer) -> void {
      if (v.is_string()) {
        if (char32_t c = astral_character(v.get_ref<const std::string&>()); c != 0)
          fail(pointer, shown(v.get<std::string>()) + " holds " + detail::code_point_name(c) +
                            ", beyond U+FFFF: the manifest writes it as a JSON escape pair, which "
                            "Kubernetes' YAML reader refuses; leave it out of the launch");
      } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i)
          self(self, v[i], pointer + "/" + std::to_string(i));
      } else if (v.is_object()) {
        for (const auto& [key, item] : v.items())
          self(self, item, pointer + "/" + escape_pointer_segment(key));
      }
    };
    if (subject_.script != nullptr) walk(walk, *subject_.script, "/launch/script");
    if (subject_.args != nullptr) walk(walk, *subject_.args, "/launch/args");
    if (subject_.environment != nullptr) walk(walk, *subject_.environment, "/launch/environment");
    for (const char* key :
         {"image", "node_selector", "tolerations", "volumes", "volume_mounts", "env", "env_from",
          "labels", "annotations", "pod_labels", "pod_annotations"})
      walk(walk, k[key], std::string("/launch/kubernetes/") + key);
    walk(walk, Json(subject_.config_ref), "/launch/config_dir");
    // The config's text goes in a literal block, where any character is itself; only when it
    // cannot (a line break YAML reads) is it a double-quoted scalar, with escapes.
    if (k["config_lines"].is_null() && astral_character(k["config_text"].get<std::string>()) != 0)
      fail("/",
           "the config holds both a character a YAML block cannot (a control, NEL, U+2028) "
           "and one beyond U+FFFF, so the ConfigMap cannot carry it as written");
  }

  const KubernetesSubject& subject_;
  std::vector<CompanionProblem>& problems_;
  std::set<std::string> volume_names_;
  bool name_given_ = false;  // launch.kubernetes.name was set (else the default is used)
  const Json* mounts_ = nullptr;
  std::string mounts_pointer_;
  std::string problem_pointer_;
};

}  // namespace

Json plan_kubernetes(const Json* value, const KubernetesSubject& subject,
                     std::vector<CompanionProblem>& problems) {
  return KubernetesPlanner(subject, problems).run(value);
}

}  // namespace zf::pipeline
