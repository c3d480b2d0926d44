// SPDX-License-Identifier: MIT
// The pod values of launch.kubernetes (kubernetes_pod_values.hpp), checked by the rules of
// Kubernetes 1.31 pkg/apis/core/validation (ValidateEnv, ValidateEnvFrom,
// ValidateResourceRequirements, ValidatePodSpec) and apimachinery's ValidateObjectMeta (labels,
// annotations): what the API server would refuse is refused at its pointer, with the rule.
#include "kubernetes_pod_values.hpp"

#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "kubernetes_names.hpp"
#include "text_helpers.hpp"
#include "zeroforge/values.hpp"

namespace zf::pipeline {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::string_view, 2> kEnvKeys = {"name", "valueFrom"};
// The sources of a variable zeroforge writes: plain values are launch.environment's, which
// every launch sets alike; these two are Kubernetes' own.
constexpr std::array<std::string_view, 2> kValueSources = {"secretKeyRef", "configMapKeyRef"};
constexpr std::array<std::string_view, 3> kKeySelectorKeys = {"name", "key", "optional"};
constexpr std::array<std::string_view, 3> kEnvFromKeys = {"secretRef", "configMapRef", "prefix"};
constexpr std::array<std::string_view, 2> kEnvSourceKeys = {"name", "optional"};
constexpr std::array<std::string_view, 2> kResourcesKeys = {"requests", "limits"};
// Resources a container asks for by their own names (core/validation
// validateContainerResourceName: the standard ones; hugepages are left out here); any other is
// an extended resource, named with a domain prefix (nvidia.com/gpu, vpc.amazonaws.com/efa).
constexpr std::array<std::string_view, 3> kNativeResources = {"cpu", "memory", "ephemeral-storage"};
constexpr std::string_view kGpuResource = "nvidia.com/gpu";
// The label the manifest puts on each of its objects itself.
constexpr std::string_view kManagedBy = "app.kubernetes.io/managed-by";
// apimachinery ValidateAnnotationsSize: the keys and values of one object's annotations.
constexpr std::size_t kMaxAnnotationBytes = 256 * 1024;

std::string list_text(const auto& keys) {
  std::string text;
  for (auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
  return text;
}

std::string child(const std::string& pointer, std::string_view key) {
  return pointer + "/" + escape_pointer_segment(key);
}

// A resource.Quantity's value (its grammar, the CRDs' pattern: a signed decimal number, then a
// binary suffix Ki..Ei, a decimal one n, u, m, k, M, G, T, P, E, or an exponent e/E and a
// number), or nullopt when `text` is none. As a long double: exact for every whole count and
// for the binary suffixes, within 1e-18 of the rest, which is all a comparison needs here.
std::optional<long double> quantity_value(std::string_view text) {
  auto number = [](std::string_view s, std::size_t& i) -> std::optional<long double> {
    long double sign = 1;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
    long double value = 0, scale = 1;
    bool digits = false, point = false;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits = true;
        value = value * 10 + (c - '0');
        if (point) scale *= 10;
      } else if (c == '.' && !point) {
        point = true;
      } else {
        break;
      }
    }
    if (!digits) return std::nullopt;
    return sign * value / scale;
  };
  std::size_t i = 0;
  const auto mantissa = number(text, i);
  if (!mantissa) return std::nullopt;
  const std::string_view suffix = text.substr(i);
  static constexpr std::array<std::pair<std::string_view, int>, 6> binary = {
      {{"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}}};
  static constexpr std::array<std::pair<std::string_view, int>, 10> decimal = {{{"", 0},
                                                                                {"n", -9},
                                                                                {"u", -6},
                                                                                {"m", -3},
                                                                                {"k", 3},
                                                                                {"M", 6},
                                                                                {"G", 9},
                                                                                {"T", 12},
                                                                                {"P", 15},
                                                                                {"E", 18}}};
  for (const auto& [name, power] : binary)
    if (suffix == name) return std::ldexp(*mantissa, power);
  for (const auto& [name, power] : decimal)
    if (suffix == name) return *mantissa * std::pow(10.0L, power);
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::size_t j = 1;
    const auto exponent = number(suffix, j);
    if (exponent && j == suffix.size()) return *mantissa * std::pow(10.0L, *exponent);
  }
  return std::nullopt;
}

class PodValueReader {
 public:
  PodValueReader(Json& k, std::vector<CompanionProblem>& problems) : k_(k), problems_(problems) {}

  void read(std::string_view key, const Json& item, const std::string& pointer) {
    if (item.is_null()) return;
    if (key == "env") {
      read_env(item, pointer);
    } else if (key == "env_from") {
      read_env_from(item, pointer);
    } else if (key == "resources") {
      read_resources(item, pointer);
    } else if (key == "labels" || key == "pod_labels") {
      read_labels(key, item, pointer);
    } else if (key == "annotations" || key == "pod_annotations") {
      read_annotations(key, item, pointer);
    } else {
      read_pod_name(key, item, pointer);
    }
  }

 private:
  void fail(std::string pointer, std::string message) {
    problems_.push_back({std::move(pointer), std::move(message)});
  }

  // Unknown keys of `object` refused with a did-you-mean; true when there were none.
  template <std::size_t N>
  bool known_keys(const Json& object, const std::array<std::string_view, N>& keys,
                  const std::string& pointer, const std::string& what) {
    bool ok = true;
    for (const auto& [field, v] : object.items()) {
      if (detail::is_listed(keys, field)) continue;
      const std::string guess = detail::nearest_name(field, keys);
      fail(child(pointer, field), "unknown key '" + field + "' in " + what + " (expected " +
                                      list_text(keys) + ")" +
                                      (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      ok = false;
    }
    return ok;
  }

  // A reference to a Secret or ConfigMap (`name`, and `key` for a key selector), `optional`.
  void read_reference(const Json& ref, const std::string& pointer, const std::string& what,
                      bool with_key) {
    if (!ref.is_object()) {
      fail(pointer, what + " must be an object (" +
                        (with_key ? list_text(kKeySelectorKeys) : list_text(kEnvSourceKeys)) +
                        "), got " + ref.dump());
      return;
    }
    if (with_key ? !known_keys(ref, kKeySelectorKeys, pointer, what)
                 : !known_keys(ref, kEnvSourceKeys, pointer, what))
      return;
    const Json* name = ref.contains("name") ? &ref["name"] : nullptr;
    if (name == nullptr || !name->is_string() || !is_dns_subdomain(name->get<std::string>()))
      fail(child(pointer, "name"),
           what + ": the name " + (name == nullptr ? std::string("is missing") : name->dump()) +
               (name == nullptr ? "" : " is not a DNS-1123 subdomain") +
               " (lower-case letters, digits, '-' and '.', at most 253), as "
               "Kubernetes names a Secret or ConfigMap");
    if (with_key) {
      const Json* key = ref.contains("key") ? &ref["key"] : nullptr;
      if (key == nullptr || !key->is_string() || !is_config_map_key(key->get<std::string>()))
        fail(child(pointer, "key"),
             what + ": the key " + (key == nullptr ? std::string("is missing") : key->dump()) +
                 (key == nullptr ? "" : " is not a key of a Secret or ConfigMap") +
                 " (at most 253 letters, digits, '-', '_' and '.')");
    }
    if (ref.contains("optional") && !ref["optional"].is_boolean())
      fail(child(pointer, "optional"),
           what + ": optional must be true or false, got " + ref["optional"].dump());
  }

  void read_env(const Json& item, const std::string& pointer) {
    if (!item.is_array()) {
      fail(pointer,
           "launch.kubernetes.env must be a list of variables from Secrets and ConfigMaps "
           "({\"name\": \"HF_TOKEN\", \"valueFrom\": {\"secretKeyRef\": {\"name\": \"hf\", "
           "\"key\": \"token\"}}}), got " +
               item.dump());
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < item.size(); ++i) {
      const std::string here = pointer + "/" + std::to_string(i);
      const Json& v = item[i];
      if (!v.is_object()) {
        fail(here,
             "launch.kubernetes.env: expected a variable (an object of name and valueFrom), "
             "got " +
                 v.dump());
        continue;
      }
      if (v.contains("value")) {
        fail(child(here, "value"),
             "launch.kubernetes.env takes variables from Secrets and ConfigMaps (valueFrom); a "
             "plain value goes in launch.environment, which every launch sets");
        continue;
      }
      if (!known_keys(v, kEnvKeys, here, "a variable of launch.kubernetes.env")) continue;
      const Json* name = v.contains("name") ? &v["name"] : nullptr;
      if (name == nullptr || !name->is_string() || !is_env_var_name(name->get<std::string>())) {
        fail(child(here, "name"),
             "launch.kubernetes.env: the name " +
                 (name == nullptr ? std::string("is missing") : name->dump()) +
                 (name == nullptr ? "" : " is not a variable name") +
                 " (letters, digits, '_', '-' and '.', not starting with a digit), as "
                 "Kubernetes requires");
      } else if (!names.insert(name->get<std::string>()).second) {
        fail(child(here, "name"), "launch.kubernetes.env: " + name->dump() + " is listed twice");
      }
      const Json* from = v.contains("valueFrom") ? &v["valueFrom"] : nullptr;
      const std::string from_at = child(here, "valueFrom");
      if (from == nullptr || !from->is_object() || from->size() != 1) {
        fail(from_at, "launch.kubernetes.env: valueFrom must be an object of exactly one of " +
                          list_text(kValueSources) + ", got " +
                          (from == nullptr ? std::string("none") : from->dump()));
        continue;
      }
      const std::string source = from->begin().key();
      const Json& ref = from->begin().value();
      if (!detail::is_listed(kValueSources, source)) {
        const std::string guess = detail::nearest_name(source, kValueSources);
        fail(child(from_at, source), "unknown key '" + source +
                                         "' in valueFrom of launch.kubernetes.env (expected " +
                                         list_text(kValueSources) + ")" +
                                         (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
        continue;
      }
      read_reference(ref, child(from_at, source), "launch.kubernetes.env: " + source, true);
    }
    k_["env"] = item;
  }

  void read_env_from(const Json& item, const std::string& pointer) {
    if (!item.is_array()) {
      fail(pointer,
           "launch.kubernetes.env_from must be a list of Secrets and ConfigMaps whose keys "
           "become variables ({\"secretRef\": {\"name\": \"wandb\"}}), got " +
               item.dump());
      return;
    }
    for (std::size_t i = 0; i < item.size(); ++i) {
      const std::string here = pointer + "/" + std::to_string(i);
      const Json& v = item[i];
      if (!v.is_object()) {
        fail(here, "launch.kubernetes.env_from: expected an object of " + list_text(kEnvFromKeys) +
                       ", got " + v.dump());
        continue;
      }
      if (!known_keys(v, kEnvFromKeys, here, "an entry of launch.kubernetes.env_from")) continue;
      const bool secret = v.contains("secretRef"), config_map = v.contains("configMapRef");
      if (secret == config_map) {
        fail(here, std::string("launch.kubernetes.env_from: an entry names ") +
                       (secret ? "both secretRef and configMapRef"
                               : "neither secretRef nor "
                                 "configMapRef") +
                       "; Kubernetes takes exactly one");
        continue;
      }
      const char* source = secret ? "secretRef" : "configMapRef";
      read_reference(v[source], child(here, source),
                     std::string("launch.kubernetes.env_from: ") + source, false);
      if (v.contains("prefix") &&
          (!v["prefix"].is_string() || !is_env_var_name(v["prefix"].get<std::string>())))
        fail(child(here, "prefix"),
             "launch.kubernetes.env_from: the prefix " + v["prefix"].dump() +
                 " is not the start of a variable name (letters, digits, '_', '-' and '.', not "
                 "starting with a digit), as Kubernetes requires");
    }
    k_["env_from"] = item;
  }

  void read_resources(const Json& item, const std::string& pointer) {
    if (!item.is_object()) {
      fail(pointer,
           "launch.kubernetes.resources must be an object of requests and limits ({\"requests\": "
           "{\"cpu\": \"32\", \"memory\": \"512Gi\"}}), got " +
               item.dump());
      return;
    }
    if (!known_keys(item, kResourcesKeys, pointer, "launch.kubernetes.resources")) return;
    // Each side's values by resource, for the request <= limit rule below.
    std::array<std::vector<std::pair<std::string, long double>>, 2> read;
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string key(kResourcesKeys[side]);
      if (!item.contains(key) || item[key].is_null()) continue;
      const Json& list = item[key];
      const std::string list_at = child(pointer, key);
      if (!list.is_object()) {
        fail(list_at, "launch.kubernetes.resources." + key +
                          " must be an object of resource to quantity, got " + list.dump());
        continue;
      }
      Json out = Json::object();
      for (const auto& [name, q] : list.items()) {
        const std::string here = child(list_at, name);
        const bool native = detail::is_listed(kNativeResources, name);
        // IsExtendedResourceName: a domain-prefixed name outside kubernetes.io.
        const bool extended =
            !native && name.find('/') != std::string::npos && is_label_key(name) &&
            name.find("kubernetes.io/") == std::string::npos && !name.starts_with("requests.");
        if (!native && !extended) {
          const std::string guess = detail::nearest_name(name, kNativeResources);
          fail(here, "launch.kubernetes.resources." + key + ": unknown resource '" + name +
                         "' (a container asks for " + list_text(kNativeResources) +
                         ", or an extended resource named with its domain, as nvidia.com/gpu)" +
                         (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
          continue;
        }
        std::optional<long double> value;
        std::string text;
        if (q.is_number_integer()) {
          text = q.dump();
          value = quantity_value(text);
        } else if (q.is_string()) {
          text = q.get<std::string>();
          value = quantity_value(text);
        }
        if (!value || *value < 0) {
          fail(here, "launch.kubernetes.resources." + key + "." + name + ": " + q.dump() +
                         (value ? " is negative" : " is not a Kubernetes quantity") +
                         " (a whole number, or a string such as \"500m\", \"64\", \"512Gi\", "
                         "\"1.5e3\")");
          continue;
        }
        if (extended && std::floor(*value) != *value) {
          fail(here, "launch.kubernetes.resources." + key + "." + name + ": " + q.dump() +
                         " must be a whole number, as Kubernetes counts an extended resource");
          continue;
        }
        read[side].emplace_back(name, *value);
        if (name == kGpuResource) {
          k_["gpu_resources"][here] = static_cast<std::int64_t>(*value);
          continue;  // the template writes the config's own count
        }
        out[name] = text;
      }
      k_[side == 0 ? "requests" : "limits"] = std::move(out);
    }
    // ValidateResourceRequirements: a request is at most its limit, and an extended resource's
    // request is its limit (it cannot be overcommitted), which must then be given.
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    for (const auto& requested : read[0]) {
      const auto& name = requested.first;
      const auto& request = requested.second;
      const std::string here = child(child(pointer, "requests"), name);
      const bool extended = !detail::is_listed(kNativeResources, name);
      const auto limit = std::find_if(read[1].begin(), read[1].end(),
                                      [&](const auto& entry) { return entry.first == name; });
      if (limit == read[1].end()) {
        if (extended && name != kGpuResource)
          fail(here, "launch.kubernetes.resources.requests." + name +
                         ": an extended resource needs its limit too (Kubernetes: \"Limit must "
                         "be set for non overcommitable resources\"); set it in limits");
      } else if (extended ? request != limit->second : request > limit->second) {
        fail(here,
             "launch.kubernetes.resources.requests." + name + " is " +
                 (extended ? "not equal to" : "more than") + " its limit (" +
                 item["limits"][name].dump() + "); Kubernetes requires a request " +
                 (extended ? "equal to the limit of an extended resource" : "at most its limit"));
      }
    }
  }

  void read_labels(std::string_view key, const Json& item, const std::string& pointer) {
    const std::string name = "launch.kubernetes." + std::string(key);
    if (!item.is_object()) {
      fail(pointer, name +
                        " must be an object of label to value (\"kueue.x-k8s.io/queue-name\": "
                        "\"team-a\"), got " +
                        item.dump());
      return;
    }
    for (const auto& [label, value] : item.items()) {
      const std::string here = child(pointer, label);
      if (!is_label_key(label)) {
        fail(here, name + ": " + Json(label).dump() +
                       " is not a label key (an optional DNS subdomain of at most 253 and '/', "
                       "then at most 63 letters, digits, '-', '_' and '.', starting and ending "
                       "with a letter or digit), as Kubernetes requires");
      } else if (label == kManagedBy) {
        fail(here, name + ": the manifest sets " + std::string(kManagedBy) +
                       " itself (zeroforge); leave it out");
      } else if (!value.is_string() || !is_label_value(value.get<std::string>())) {
        fail(here, name + "." + label + ": " + value.dump() +
                       " is not a label value (a string: empty, or at most 63 letters, digits, "
                       "'-', '_' and '.', starting and ending with a letter or digit), as "
                       "Kubernetes requires");
      }
    }
    k_[std::string(key)] = item;
  }

  void read_annotations(std::string_view key, const Json& item, const std::string& pointer) {
    const std::string name = "launch.kubernetes." + std::string(key);
    if (!item.is_object()) {
      fail(pointer, name + " must be an object of annotation to text, got " + item.dump());
      return;
    }
    std::size_t bytes = 0;
    for (const auto& [annotation, value] : item.items()) {
      const std::string here = child(pointer, annotation);
      std::string lower = annotation;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      // ValidateAnnotations: a label key, whatever the case of its letters.
      if (!is_label_key(lower)) {
        fail(here, name + ": " + Json(annotation).dump() +
                       " is not an annotation key (a label key: an optional DNS subdomain and "
                       "'/', then at most 63 letters, digits, '-', '_' and '.'), as Kubernetes "
                       "requires");
      } else if (!value.is_string()) {
        fail(here, name + "." + annotation + " must be a string, got " + value.dump());
      } else {
        bytes += annotation.size() + value.get_ref<const std::string&>().size();
      }
    }
    if (bytes > kMaxAnnotationBytes)
      fail(pointer, name + " hold " + std::to_string(bytes) +
                        " bytes of keys and values, and Kubernetes takes at most 262144 (256 KiB) "
                        "in one object's annotations");
    k_[std::string(key)] = item;
  }

  void read_pod_name(std::string_view key, const Json& item, const std::string& pointer) {
    const std::string name = "launch.kubernetes." + std::string(key);
    if (!item.is_string() || !is_dns_subdomain(item.get<std::string>())) {
      fail(pointer, name + ": " + item.dump() +
                        " is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', "
                        "at most 253), as Kubernetes requires of a pod's " +
                        (key == "priority_class" ? "priorityClassName" : "schedulerName"));
      return;
    }
    k_[std::string(key)] = item;
  }

  Json& k_;
  std::vector<CompanionProblem>& problems_;
};

}  // namespace

void add_pod_value_defaults(Json& k) {
  k["env"] = Json::array();
  k["env_from"] = Json::array();
  k["requests"] = Json::object();
  k["limits"] = Json::object();
  k["gpu_resources"] = Json::object();
  k["labels"] = Json::object();
  k["annotations"] = Json::object();
  k["pod_labels"] = Json::object();
  k["pod_annotations"] = Json::object();
  k["priority_class"] = nullptr;
  k["scheduler_name"] = nullptr;
}

void read_pod_value(std::string_view key, const Json& item, const std::string& pointer, Json& k,
                    std::vector<CompanionProblem>& problems) {
  PodValueReader(k, problems).read(key, item, pointer);
}

void check_pod_values(const Json& k, std::int64_t gpus_per_node,
                      const std::vector<std::string>& variables,
                      std::vector<CompanionProblem>& problems) {
  for (const auto& [pointer, count] : k["gpu_resources"].items())
    if (count != gpus_per_node)
      problems.push_back(
          {pointer,
           "launch.kubernetes.resources: nvidia.com/gpu: " + count.dump() +
               " disagrees with the config's gpus_per_node=" + std::to_string(gpus_per_node) +
               " (the tier's GPUs per node, the count torchrun starts a rank for and "
               "the manifest asks each pod for); leave it out, or change gpus_per_node"});
  for (std::size_t i = 0; i < k["env"].size(); ++i) {
    const Json& name = k["env"][i].value("name", Json());
    if (!name.is_string()) continue;
    if (std::find(variables.begin(), variables.end(), name.get<std::string>()) != variables.end())
      problems.push_back({"/launch/kubernetes/env/" + std::to_string(i) + "/name",
                          "launch.kubernetes.env: " + name.dump() +
                              " is set already (launch.environment, or the companions for "
                              "launch.style); a container takes a variable once"});
  }
  if (k["api"] != "TrainJob") return;
  // Trainer 2.3's TrainJob: its trainer takes env, and runtimePatches a pod spec of
  // affinity, containers (env, volumeMounts, securityContext), nodeSelector, tolerations,
  // volumes, serviceAccountName and a few more (the CRD, tests/data/kubernetes-crds): no
  // envFrom, priorityClassName or schedulerName, which the ClusterTrainingRuntime sets.
  const std::pair<const char*, const char*> unplaced[] = {{"env_from", "envFrom"},
                                                          {"priority_class", "priorityClassName"},
                                                          {"scheduler_name", "schedulerName"}};
  for (const auto& [key, field] : unplaced) {
    const Json& v = k[key];
    if (v.is_null() || (v.is_array() && v.empty())) continue;
    problems.push_back({std::string("/launch/kubernetes/") + key,
                        std::string("launch.kubernetes.") + key +
                            ": a TrainJob has no place for a pod's " + field +
                            " (Kubeflow Trainer 2.3 patches only a pod's affinity, containers' env "
                            "and mounts, nodeSelector, tolerations, volumes and service account); "
                            "set it in the ClusterTrainingRuntime, or use api PyTorchJob"});
  }
}

}  // namespace zf::pipeline
