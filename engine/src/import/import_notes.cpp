// SPDX-License-Identifier: MIT
// The import's own findings (see import_notes.hpp).
#include "import/import_notes.hpp"

#include <cctype>
#include <filesystem>

#include "import/json_compare.hpp"
#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

// A value for a message: compact JSON, cut at 80 characters.
std::string shown(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

Finding finding(const std::string& file, std::string pointer, Severity severity, const char* rule,
                std::string message) {
  return Finding{file, std::move(pointer), severity, rule, std::move(message)};
}

// The rules of the validator's findings about the key at `pointer` ("[ignored-key]",
// "[alias]"): what DeepSpeed makes of a key the template does not write.
std::string judged_rules(const std::vector<Finding>& judged, const std::string& pointer) {
  std::string out;
  for (const Finding& f : judged) {
    // At the key, inside it, or at an object around it (not the whole config): ZeRO's keys
    // at stage 0 are one finding at /zero_optimization.
    const bool inside = f.pointer == pointer || f.pointer.starts_with(pointer + "/") ||
                        (!f.pointer.empty() && pointer.starts_with(f.pointer + "/"));
    const std::string rule = "[" + f.rule + "]";
    if (inside && out.find(rule) == std::string::npos) {
      out += (out.empty() ? "" : ", ") + rule;
    }
  }
  return out;
}

void walk_extra(const std::string& file, const Json& extra, const Json* written,
                const std::string& pointer, const ConfigMapping& mapping,
                const std::vector<Finding>& judged, std::vector<Finding>& out) {
  for (const auto& [key, value] : extra.items()) {
    const std::string at = pointer + "/" + escape_pointer_segment(key);
    const Json* inside = written != nullptr && written->is_object() && written->contains(key)
                             ? &written->at(key)
                             : nullptr;
    if (inside != nullptr && inside->is_object() && value.is_object()) {
      walk_extra(file, value, inside, at, mapping, judged, out);
      continue;
    }
    const Binding* binding = binding_of_key(mapping, at);
    std::string why = binding != nullptr && !binding->demoted_because.empty()
                          ? "a value could say it, but " + binding->demoted_because
                          : "no value of the template writes it";
    if (const std::string rules = judged_rules(judged, at); !rules.empty()) {
      why += "; " + rules + " above";
    }
    out.push_back(finding(file, at, Severity::Note, "import-passthrough",
                          "carried as written in extra (" + why + "): " + shown(value)));
  }
}

// The words of a file name: runs of letters and digits, lower case.
std::vector<std::string> words(const std::string& file) {
  std::string stem = std::filesystem::path(file).filename().string();
  if (stem.size() > 5 && stem.ends_with(".json")) stem.resize(stem.size() - 5);
  std::vector<std::string> out;
  std::string word;
  for (char c : stem) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      out.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// The stage a name states: `zero3`, `z3`, `stage3`, or `zero`/`stage` then `3`.
std::optional<int> stage_in_name(const std::vector<std::string>& w, std::string& said) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    for (const char* prefix : {"zero", "stage", "z"}) {
      const std::string p = prefix;
      if (w[i].size() == p.size() + 1 && w[i].starts_with(p) && w[i].back() >= '0' &&
          w[i].back() <= '3') {
        said = w[i];
        return w[i].back() - '0';
      }
      if (w[i] == p && p != "z" && i + 1 < w.size() && w[i + 1].size() == 1 && w[i + 1][0] >= '0' &&
          w[i + 1][0] <= '3') {
        said = w[i] + " " + w[i + 1];
        return w[i + 1][0] - '0';
      }
    }
  }
  return std::nullopt;
}

const Json* at(const Json& config, std::initializer_list<const char*> path) {
  const Json* node = &config;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return node;
}

bool enabled(const Json& config, const char* section, bool count_auto) {
  const Json* v = at(config, {section, "enabled"});
  if (v == nullptr) return false;
  return (v->is_boolean() && v->get<bool>()) || (count_auto && v->is_string() && *v == "auto");
}

// Where bf16 is turned on: `bf16`, or its old spelling `bfloat16`.
std::string bf16_pointer(const Json& config) {
  return enabled(config, "bf16", true) ? "/bf16/enabled" : "/bfloat16/enabled";
}

bool offloads(const Json& config) {
  for (const char* block : {"offload_optimizer", "offload_param"}) {
    const Json* device = at(config, {"zero_optimization", block, "device"});
    if (device != nullptr && (*device == "cpu" || *device == "nvme")) return true;
  }
  const Json* old = at(config, {"zero_optimization", "cpu_offload"});
  return old != nullptr && old->is_boolean() && old->get<bool>();
}

}  // namespace

std::vector<Finding> passthrough_notes(const std::string& file, const Json& extra,
                                       const Json& written, const ConfigMapping& mapping,
                                       const std::vector<Finding>& judged) {
  std::vector<Finding> out;
  if (extra.is_object()) walk_extra(file, extra, &written, "", mapping, judged, out);
  return out;
}

std::vector<Finding> name_notes(const std::string& file, const Json& config) {
  std::vector<Finding> out;
  const std::vector<std::string> w = words(file);
  std::string said;
  if (auto named = stage_in_name(w, said)) {
    const Json* stage = at(config, {"zero_optimization", "stage"});
    const int actual = stage != nullptr && stage->is_number_integer() ? stage->get<int>() : 0;
    if (*named != actual) {
      out.push_back(finding(
          file, stage != nullptr ? "/zero_optimization/stage" : "", Severity::Warning,
          "import-name",
          "the file name says ZeRO stage " + std::to_string(*named) + " (\"" + said +
              "\"), but the config " +
              (stage != nullptr ? "sets stage " + std::to_string(actual)
                                : std::string("sets no stage (DeepSpeed's stage 0)")) +
              ": whoever picks the file by its name gets the other stage; rename it or fix the "
              "stage"));
    }
  }
  const bool fp16 = enabled(config, "fp16", true);
  const bool bf16 = enabled(config, "bf16", true) || enabled(config, "bfloat16", true);
  for (const auto& word : w) {
    const bool promises_fp16 = word == "fp16", promises_bf16 = word == "bf16";
    const bool promises_fp32 = word == "fp32";
    std::string has = fp16 && bf16 ? "fp16 and bf16" : fp16 ? "fp16" : bf16 ? "bf16" : "fp32";
    if ((promises_fp16 && !fp16) || (promises_bf16 && !bf16) || (promises_fp32 && (fp16 || bf16))) {
      // At the section that is on (the precision the config really has), if any.
      const std::string pointer = fp16 ? "/fp16/enabled" : bf16 ? bf16_pointer(config) : "";
      out.push_back(finding(file, pointer, Severity::Warning, "import-name",
                            "the file name says " + word + ", but the config enables " + has +
                                ": rename it or fix the precision"));
    }
    if (word.find("offload") != std::string::npos && !word.starts_with("no") && !offloads(config)) {
      out.push_back(finding(file, "/zero_optimization", Severity::Warning, "import-name",
                            "the file name says \"" + word +
                                "\", but the config offloads nothing to cpu or nvme: rename it "
                                "or add the offload"));
    }
  }
  return out;
}

std::vector<Pair> find_pairs(const std::vector<const Json*>& configs) {
  std::vector<Pair> out;
  for (std::size_t j = 0; j < configs.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      const std::vector<std::string> differences = json_differences(*configs[i], *configs[j]);
      if (differences.size() > 1) continue;
      Pair pair{i, j, std::nullopt, "", ""};
      if (!differences.empty()) {
        pair.pointer = differences.front();
        const Path path = from_pointer(*pair.pointer);
        auto value_at = [&](const Json& config) -> std::string {
          const Json* node = &config;
          for (const auto& key : path) {
            if (!node->is_object() || !node->contains(key)) return "absent";
            node = &node->at(key);
          }
          return shown(*node);
        };
        pair.earlier_value = value_at(*configs[i]);
        pair.later_value = value_at(*configs[j]);
      }
      out.push_back(std::move(pair));
    }
  }
  return out;
}

Finding pair_finding(const Pair& pair, const std::vector<std::string>& names) {
  const std::string& earlier = names[pair.earlier];
  if (!pair.pointer) {
    return finding(names[pair.later], "", Severity::Note, "import-duplicate",
                   "the same config as " + earlier +
                       " (as JSON values): keep one, or say in their names why there are two");
  }
  return finding(names[pair.later], *pair.pointer, Severity::Note, "import-one-key",
                 "the only key that differs from " + earlier + ": " + pair.later_value + " here, " +
                     pair.earlier_value +
                     " there; check that this is the difference the pair is for");
}

}  // namespace zf::importer
