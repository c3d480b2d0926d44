// SPDX-License-Identifier: MIT
// The import's own findings (see import_notes.hpp).
#include "import/import_notes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string_view>

#include "import/json_compare.hpp"
#include "json_members.hpp"
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

// The validator's findings by pointer, so that each key finds its own in a few look-ups (one
// pass over all the findings per key was quadratic in a config of many ignored keys).
class JudgedIndex {
 public:
  explicit JudgedIndex(const std::vector<Finding>& judged) : judged_(judged) {
    for (std::size_t i = 0; i < judged.size(); ++i) by_pointer_.emplace_back(judged[i].pointer, i);
    std::sort(by_pointer_.begin(), by_pointer_.end());
  }

  // The rules of the findings about the key at `pointer` ("[ignored-key]", "[alias]"), in
  // the findings' order: what DeepSpeed makes of a key the template does not write.
  std::string rules(const std::string& pointer) const {
    // At the key, inside it, or at an object around it (not the whole config): ZeRO's keys
    // at stage 0 are one finding at /zero_optimization.
    std::vector<std::size_t> found;
    auto take = [&](std::string_view from, std::string_view to) {
      auto it = std::lower_bound(by_pointer_.begin(), by_pointer_.end(), from,
                                 [](const auto& entry, std::string_view key) {
                                   return std::string_view(entry.first) < key;
                                 });
      for (; it != by_pointer_.end() && std::string_view(it->first) < to; ++it) {
        found.push_back(it->second);
      }
    };
    take(pointer, pointer + '\0');       // at the key
    take(pointer + "/", pointer + "0");  // inside it ('0' follows '/')
    for (std::size_t slash = pointer.find('/', 1); slash != std::string::npos;
         slash = pointer.find('/', slash + 1)) {
      const std::string around = pointer.substr(0, slash);
      take(around, around + '\0');
    }
    std::sort(found.begin(), found.end());
    std::string out;
    for (std::size_t i : found) {
      const std::string rule = "[" + judged_[i].rule + "]";
      if (out.find(rule) == std::string::npos) out += (out.empty() ? "" : ", ") + rule;
    }
    return out;
  }

 private:
  const std::vector<Finding>& judged_;
  std::vector<std::pair<std::string, std::size_t>> by_pointer_;
};

void walk_extra(const std::string& file, const Json& extra, const Json* written,
                const std::string& pointer, const ConfigMapping& mapping, const JudgedIndex& judged,
                std::vector<Finding>& out) {
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
    if (const std::string rules = judged.rules(at); !rules.empty()) {
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
  if (extra.is_object()) walk_extra(file, extra, &written, "", mapping, JudgedIndex(judged), out);
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
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::string& word = w[i];
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
    // `no_offload`, `nooffload`, `non-offload`, `without_offload`, `wo_offload` say the opposite.
    const bool negated = word.starts_with("no") || word.starts_with("wo") ||
                         (i > 0 && (w[i - 1] == "no" || w[i - 1] == "non" || w[i - 1] == "not" ||
                                    w[i - 1] == "without" || w[i - 1] == "wo"));
    if (word.find("offload") != std::string::npos && !negated && !offloads(config)) {
      out.push_back(finding(file, "/zero_optimization", Severity::Warning, "import-name",
                            "the file name says \"" + word +
                                "\", but the config offloads nothing to cpu or nvme: rename it "
                                "or add the offload"));
    }
    if (word.find("offload") != std::string::npos && negated && offloads(config)) {
      out.push_back(finding(
          file, "/zero_optimization", Severity::Warning, "import-name",
          "the file name says no offload (\"" +
              (word.starts_with("no") || word.starts_with("wo") ? word : w[i - 1] + " " + word) +
              "\"), but the config offloads to cpu or nvme: rename it or "
              "remove the offload"));
    }
  }
  return out;
}

namespace {

// 64-bit mixing (splitmix64's finalizer): the hashes below are sums of these, so a weak mix
// would let unrelated trees sum alike. Equal hashes are confirmed by comparing the values.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return mix(a * 0x100000001b3ULL ^ mix(b)); }
std::uint64_t text_hash(std::string_view text) { return std::hash<std::string_view>{}(text); }

constexpr std::uint64_t kEmptyObject = 0x6f626a656374ULL, kObject = 0x4f424a454354ULL;
constexpr std::uint64_t kArray = 0x6172726179ULL, kNull = 0x6e756c6cULL, kTrue = 0x74727565ULL,
                        kFalse = 0x66616c7365ULL, kString = 0x737472ULL, kNumber = 0x6e756dULL;

// A number's hash as same_json compares numbers: an integer and a float that are the same
// number hash alike.
std::uint64_t number_hash(const Json& v) {
  auto integer = [](bool negative, std::uint64_t magnitude) {
    return mix(kNumber, mix(negative ? 1 : 0, magnitude));
  };
  if (v.is_number_unsigned()) return integer(false, v.get<std::uint64_t>());
  if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    return integer(i < 0,
                   i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i));
  }
  const double d = v.get<double>();
  if (d == std::floor(d) && std::fabs(d) < 18446744073709551616.0) {
    return integer(d < 0, static_cast<std::uint64_t>(std::fabs(d)));
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  return mix(kNumber + 1, bits);
}

// A value's hash as same_json compares values: objects whatever their key order.
std::uint64_t value_hash(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: {
      if (v.empty()) return kEmptyObject;
      std::uint64_t sum = 0;
      for (const auto& [key, value] : v.items()) sum += mix(text_hash(key), value_hash(value));
      return mix(kObject, sum);
    }
    case Json::value_t::array: {
      std::uint64_t h = kArray;
      for (const auto& item : v) h = mix(h, value_hash(item));
      return mix(h, v.size());
    }
    case Json::value_t::string:
      return mix(kString, text_hash(v.get_ref<const std::string&>()));
    case Json::value_t::boolean:
      return v.get<bool>() ? kTrue : kFalse;
    case Json::value_t::null:
      return kNull;
    default:
      return number_hash(v);
  }
}

// One member (at any depth) of one input: its key's path, and the hash of the input without it.
struct Node {
  std::uint64_t path = 0;  // hash of the pointer
  std::uint64_t rest = 0;  // the input's hash without this member
  std::uint32_t input = 0;
  std::uint32_t order = 0;  // where the member comes in the input, depth first
  const Json* value = nullptr;
  std::string pointer;
};

// An input's hash is the sum over its leaves (non-objects and empty objects) of
// mix(path, value): two inputs are the same value when their leaves are, so the input without
// the member at P hashes as the sum less the leaves below P (plus P's parent as an empty
// object, when P was its only member).
struct Hasher {
  std::vector<Node>& nodes;
  std::uint32_t input;
  std::uint32_t order = 0;

  // Returns the sum over the leaves of `object`'s members; `path` is the object's.
  std::uint64_t walk(const Json& object, std::uint64_t path, std::string& pointer, bool root) {
    std::uint64_t sum = 0;
    const std::size_t length = pointer.size();
    for (const auto& [key, value] : object.items()) {
      const std::uint64_t at = mix(path, text_hash(key));
      pointer += '/';
      pointer += escape_pointer_segment(key);
      const std::size_t index = nodes.size();
      nodes.push_back(Node{at, 0, input, order++, &value, pointer});
      const std::uint64_t below = value.is_object() && !value.empty()
                                      ? walk(value, at, pointer, false)
                                      : mix(at, value_hash(value));
      // For now `rest` holds what removing the member takes away; done() finishes it.
      nodes[index].rest = below - (object.size() == 1 && !root ? mix(path, kEmptyObject) : 0);
      sum += below;
      pointer.resize(length);
    }
    return sum;
  }
};

// True when `a` and `b` (objects) are the same value once the member at path[depth...] is
// removed from both (an object it empties stays as an empty object).
bool same_except(const Json& a, const Json& b, const Path& path, std::size_t depth) {
  if (!a.is_object() || !b.is_object()) return false;
  const std::string& skip = path[depth];
  const bool last = depth + 1 == path.size();
  const std::size_t a_size = a.size() - (a.contains(skip) && last ? 1 : 0);
  const std::size_t b_size = b.size() - (b.contains(skip) && last ? 1 : 0);
  if (a_size != b_size) return false;
  const detail::MemberIndex in_b(b, a.size());
  for (const auto& [key, value] : a.items()) {
    const Json* other = in_b.find(key);
    if (key == skip) {
      if (last) continue;
      if (other == nullptr || !same_except(value, *other, path, depth + 1)) return false;
    } else if (other == nullptr || !same_json(value, *other)) {
      return false;
    }
  }
  return last || a.contains(skip);
}

std::string names_list(const std::vector<std::size_t>& inputs,
                       const std::vector<std::string>& values,
                       const std::vector<std::string>& names, std::size_t skip) {
  std::string out;
  std::size_t listed = 0, left = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k == skip) continue;
    if (listed == kShownInputs) {
      ++left;
      continue;
    }
    out += (listed++ == 0 ? "" : ", ") + names[inputs[k]];
    if (!values.empty()) out += " (" + values[k] + ")";
  }
  if (left > 0) out += " and " + std::to_string(left) + " more";
  return out;
}

}  // namespace

std::vector<Variation> find_variations(const std::vector<const Json*>& configs) {
  std::vector<Variation> out;
  if (configs.size() < 2) return out;
  std::vector<Node> nodes;
  std::vector<std::uint64_t> whole(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::size_t first = nodes.size();
    Hasher hasher{nodes, static_cast<std::uint32_t>(i)};
    std::string pointer;
    whole[i] = configs[i]->is_object() ? hasher.walk(*configs[i], 0, pointer, true) : 0;
    for (std::size_t n = first; n < nodes.size(); ++n) nodes[n].rest = whole[i] - nodes[n].rest;
  }
  // Where each group is said: its last input, then the key's place in that input.
  struct Keyed {
    std::size_t last, order;
    Variation variation;
  };
  std::vector<Keyed> found;

  // The same value: equal hashes, confirmed.
  std::vector<std::pair<std::uint64_t, std::size_t>> by_hash;
  for (std::size_t i = 0; i < configs.size(); ++i) by_hash.emplace_back(whole[i], i);
  std::sort(by_hash.begin(), by_hash.end());
  for (std::size_t start = 0; start < by_hash.size();) {
    std::size_t end = start;
    std::vector<std::size_t> left;
    while (end < by_hash.size() && by_hash[end].first == by_hash[start].first) {
      left.push_back(by_hash[end++].second);
    }
    while (left.size() > 1) {
      std::vector<std::size_t> group{left.front()}, rest;
      for (std::size_t k = 1; k < left.size(); ++k) {
        (same_json(*configs[left[k]], *configs[left.front()]) ? group : rest).push_back(left[k]);
      }
      if (group.size() > 1) {
        found.push_back(Keyed{group.back(), 0, Variation{std::nullopt, group, {}}});
      }
      left = std::move(rest);
    }
    start = end;
  }

  // One key apart: the same hash without the member at the same path.
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Node &x = nodes[a], &y = nodes[b];
    if (x.path != y.path) return x.path < y.path;
    if (x.rest != y.rest) return x.rest < y.rest;
    return a < b;  // by input, then by place
  });
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start;
    const Node& head = nodes[order[start]];
    while (end < order.size() && nodes[order[end]].path == head.path &&
           nodes[order[end]].rest == head.rest) {
      ++end;
    }
    // The inputs without the member whose hash is the rest: absent there.
    std::vector<std::pair<std::size_t, const Node*>> candidates;
    for (std::size_t k = start; k < end; ++k) {
      const Node& n = nodes[order[k]];
      if (candidates.empty() || candidates.back().first != n.input) {
        candidates.emplace_back(n.input, &n);
      }
    }
    const Path path = from_pointer(head.pointer);
    auto it =
        std::lower_bound(by_hash.begin(), by_hash.end(), std::pair{head.rest, std::size_t{0}});
    for (; it != by_hash.end() && it->first == head.rest; ++it) {
      if (value_at(*configs[it->second], path) == nullptr)
        candidates.emplace_back(it->second, nullptr);
    }
    start = end;
    if (candidates.size() < 2) continue;
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    while (candidates.size() > 1) {
      const std::size_t first = candidates.front().first;
      std::vector<std::pair<std::size_t, const Node*>> group{candidates.front()}, rest;
      for (std::size_t k = 1; k < candidates.size(); ++k) {
        const bool same = same_except(*configs[first], *configs[candidates[k].first], path, 0);
        (same ? group : rest).push_back(candidates[k]);
      }
      candidates = std::move(rest);
      if (group.size() < 2) continue;
      // Two values at least, and not objects everywhere (then the keys inside say it).
      bool all_objects = true, one_value = true;
      const Json* first_value = group.front().second ? group.front().second->value : nullptr;
      for (const auto& [input, node] : group) {
        const Json* value = node ? node->value : nullptr;
        if (value == nullptr || !value->is_object()) all_objects = false;
        if ((value == nullptr) != (first_value == nullptr) ||
            (value != nullptr && !same_json(*value, *first_value))) {
          one_value = false;
        }
      }
      if (all_objects || one_value) continue;
      Variation v;
      v.pointer = head.pointer;
      std::size_t place = SIZE_MAX;
      for (const auto& [input, node] : group) {
        v.inputs.push_back(input);
        v.values.push_back(node ? shown(*node->value) : "absent");
        if (node != nullptr && place == SIZE_MAX) place = node->order;
      }
      found.push_back(Keyed{v.inputs.back(), place + 1, std::move(v)});
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Keyed& a, const Keyed& b) {
    return a.last != b.last ? a.last < b.last : a.order < b.order;
  });
  for (auto& k : found) out.push_back(std::move(k.variation));
  return out;
}

Finding variation_finding(const Variation& v, const std::vector<std::string>& names) {
  const std::size_t n = v.inputs.size();
  const std::string& here = names[v.inputs.back()];
  const std::string& earlier = names[v.inputs.front()];
  if (!v.pointer) {
    if (n == 2) {
      return finding(here, "", Severity::Note, "import-duplicate",
                     "the same config as " + earlier +
                         " (as JSON values): keep one, or say in their names why there are two");
    }
    return finding(here, "", Severity::Note, "import-duplicate",
                   "the same config as " + std::to_string(n - 1) +
                       " other inputs (as JSON values): " + names_list(v.inputs, {}, names, n - 1) +
                       ": keep one, or say in their names why there are " + std::to_string(n));
  }
  if (n == 2) {
    return finding(here, *v.pointer, Severity::Note, "import-one-key",
                   "the only key that differs from " + earlier + ": " + v.values.back() +
                       " here, " + v.values.front() +
                       " there; check that this is the difference the pair is for");
  }
  return finding(here, *v.pointer, Severity::Note, "import-one-key",
                 "the only key in which " + std::to_string(n) +
                     " inputs that are otherwise the same config differ: " + v.values.back() +
                     " here; " + names_list(v.inputs, v.values, names, n - 1) +
                     "; check that these are the differences they are for");
}

std::string variation_sentence(const Variation& v, const std::vector<std::string>& names) {
  const std::size_t n = v.inputs.size();
  const std::string& here = names[v.inputs.back()];
  const std::string& earlier = names[v.inputs.front()];
  if (!v.pointer) {
    if (n == 2) return here + " is the same config as " + earlier + ".";
    return std::to_string(n) +
           " configs are the same config: " + names_list(v.inputs, {}, names, SIZE_MAX) + ".";
  }
  if (n == 2) {
    return here + " differs from " + earlier + " only at " + *v.pointer + " (" + v.values.back() +
           " vs " + v.values.front() + ").";
  }
  return std::to_string(n) + " configs differ only at " + *v.pointer + ": " +
         names_list(v.inputs, v.values, names, SIZE_MAX) + ".";
}

}  // namespace zf::importer
