// SPDX-License-Identifier: MIT
// The compiled-in schema data (parsed once) and the small helpers every rule family uses to
// walk it and the config.
#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "rules.hpp"
#include "text_helpers.hpp"
#include "validate/schema_text.hpp"
#include "zeroforge/values.hpp"

namespace zf {

const nlohmann::ordered_json& deepspeed_schema_data() {
  // The text is compiled in and checked by a test, so a parse failure here is a build bug.
  static const nlohmann::ordered_json data = nlohmann::ordered_json::parse(validate::schema_text());
  return data;
}

}  // namespace zf

namespace zf::validate {

namespace {

// A value built once per schema node and kept for the life of the process: schema nodes (the
// embedded data, or nodes a cache here returned) live that long, so their addresses are
// stable keys. Each call site has its own cache.
template <typename T, typename Build>
const T& once_per_node(const json& node, Build&& build) {
  static std::mutex mutex;
  static std::unordered_map<const json*, std::unique_ptr<const T>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[&node];
  if (!slot) slot = std::make_unique<const T>(build());
  return *slot;
}

}  // namespace

namespace {

json resolved_copy(const json& schema, const json& node) {
  json resolved = schema.at("sections").at(node.at("$ref").get<std::string>());
  for (const auto& [key, value] : node.items()) {
    if (key != "$ref") resolved[key] = value;
  }
  return resolved;
}

NodeFacts make_facts(const json& resolved) {
  NodeFacts facts;
  facts.resolved = &resolved;
  if (!resolved.is_object()) return facts;
  facts.section = resolved.contains("keys") || resolved.contains("kind");
  std::string kind = resolved.value("kind", "dict");
  facts.kind = kind == "pydantic" ? NodeFacts::Kind::Pydantic
               : kind == "open"   ? NodeFacts::Kind::Open
                                  : NodeFacts::Kind::Dict;
  facts.legacy_bool = resolved.value("legacy_bool", false);
  facts.nullable = resolved.value("nullable", false);
  facts.strict_int = resolved.value("strict_int", false);
  facts.alias = resolved.contains("alias_of");
  facts.deprecated = resolved.contains("deprecated");
  if (auto t = resolved.find("type"); t != resolved.end()) {
    if (t->is_array()) {
      for (const auto& each : *t) facts.types.push_back(each.get_ref<const std::string&>());
    } else if (t->is_string()) {
      facts.types.push_back(t->get_ref<const std::string&>());
    }
  }
  facts.any_type = facts.types.empty() ||
                   std::find(facts.types.begin(), facts.types.end(), "any") != facts.types.end();
  if (auto min = resolved.find("min"); min != resolved.end() && min->is_number())
    facts.min = min->get<double>();
  if (auto max = resolved.find("max"); max != resolved.end() && max->is_number())
    facts.max = max->get<double>();
  if (auto allowed = resolved.find("enum"); allowed != resolved.end())
    facts.enum_values = &*allowed;
  if (auto stages = resolved.find("stages"); stages != resolved.end()) facts.stages = &*stages;
  if (auto why = resolved.find("no_effect"); why != resolved.end()) facts.no_effect = &*why;
  if (auto keys = resolved.find("keys"); keys != resolved.end() && keys->is_object()) {
    for (const auto& [name, child] : keys->items()) facts.keys.emplace(name, &child);
  }
  return facts;
}

// The facts of every node reachable from the embedded schema's root and sections, made once
// (on first use, thread-safely) and read without locks afterwards.
class CompiledSchema {
 public:
  explicit CompiledSchema(const json& schema) : schema_(schema) {
    visit(root_node(schema));
    for (const auto& [name, section] : schema.at("sections").items()) visit(section);
  }
  const NodeFacts* find(const json& node) const {
    auto it = facts_.find(&node);
    return it == facts_.end() ? nullptr : &it->second;
  }

 private:
  void visit(const json& node) {
    if (facts_.contains(&node)) return;
    const json* resolved = &node;
    if (node.is_object() && node.contains("$ref"))
      resolved = &copies_.emplace_back(resolved_copy(schema_, node));
    NodeFacts facts = make_facts(*resolved);
    std::vector<const json*> children;
    for (const auto& [name, child] : facts.keys) children.push_back(child);
    if (resolved != &node) facts_.emplace(resolved, facts);
    facts_.emplace(&node, std::move(facts));
    if (resolved != &node) visit(*resolved);
    for (const json* child : children) visit(*child);
  }

  const json& schema_;
  std::deque<json> copies_;  // resolved `$ref` nodes; a deque keeps their addresses
  std::unordered_map<const json*, NodeFacts> facts_;
};

}  // namespace

const NodeFacts& facts_of(const json& schema, const json& node) {
  if (&schema == &deepspeed_schema_data()) {
    static const CompiledSchema compiled(schema);
    if (const NodeFacts* facts = compiled.find(node)) return *facts;
  }
  // Another schema (tests) or a node the compiled schema does not reach: made on first use.
  return once_per_node<NodeFacts>(node, [&] {
    if (!node.is_object() || !node.contains("$ref")) return make_facts(node);
    const json& resolved = once_per_node<json>(node, [&] { return resolved_copy(schema, node); });
    return make_facts(resolved);
  });
}

const json& resolve(const json& schema, const json& node) {
  return *facts_of(schema, node).resolved;
}

const json& root_node(const json& schema) { return schema.at("root"); }

const json* child_node(const json& schema, const json& section, std::string_view key) {
  const auto& keys = facts_of(schema, section).keys;
  auto it = keys.find(key);
  return it == keys.end() ? nullptr : it->second;
}

std::string PointerPath::str() const {
  if (parent == nullptr) return std::string();
  std::string out = parent->str();
  out += '/';
  out += is_index ? std::to_string(index) : escape_pointer_segment(key);
  return out;
}

std::string pointer_join(const std::string& pointer, std::string_view key) {
  return pointer + "/" + escape_pointer_segment(key);
}

const json* at_pointer(const json& document, const std::string& pointer) {
  try {
    const auto ptr = json::json_pointer(pointer);
    return document.contains(ptr) ? &document.at(ptr) : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

bool is_auto(const json& value) {
  return value.is_string() && value.get_ref<const std::string&>() == "auto";
}

std::optional<long long> as_integer(const json& value) {
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
      return static_cast<long long>(d);
  }
  return std::nullopt;
}

std::string show(const json& value) { return value.dump(); }

std::string closest(std::string_view key, const std::vector<std::string>& candidates) {
  // Near misses only: a couple of typos, scaled with the length so `tpye` finds `type` but
  // unrelated short keys do not match.
  std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, key.size() / 4));
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    std::size_t d = detail::edit_distance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string stages_text(const json& stages) {
  std::vector<int> list;
  for (const auto& s : stages) list.push_back(s.get<int>());
  std::sort(list.begin(), list.end());
  if (list.empty()) return "";
  if (list.size() == 1) return std::to_string(list.front());
  bool contiguous = list.back() - list.front() + 1 == static_cast<int>(list.size());
  if (contiguous) return std::to_string(list.front()) + "-" + std::to_string(list.back());
  std::string out;
  for (int s : list) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

int zero_stage(const json& config) {
  auto zero = config.find("zero_optimization");
  if (zero == config.end()) return 0;
  if (zero->is_boolean()) return zero->get<bool>() ? 1 : 0;  // legacy form
  if (!zero->is_object()) return 0;
  auto stage = zero->find("stage");
  if (stage == zero->end()) return 0;
  std::optional<long long> value = as_integer(*stage);
  if (!value && stage->is_string()) {
    // pydantic's lax mode reads "3" as 3.
    const auto& text = stage->get_ref<const std::string&>();
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') value = text[0] - '0';
  }
  return value && *value >= 0 && *value <= 3 ? static_cast<int>(*value) : 0;
}

const json* bf16_section(const json& config) {
  if (auto it = config.find("bf16"); it != config.end()) return &*it;
  if (auto it = config.find("bfloat16"); it != config.end()) return &*it;
  return nullptr;
}

bool enabled_true(const json* section) {
  if (section == nullptr || !section->is_object()) return false;
  auto it = section->find("enabled");
  return it != section->end() && it->is_boolean() && it->get<bool>();
}

bool is_true(const json& object, const std::string& key) {
  if (!object.is_object()) return false;
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

void Context::report(std::string pointer, Severity severity, const char* rule,
                     std::string message) const {
  if (options.strict && severity == Severity::Warning) severity = Severity::Error;
  findings.push_back(Finding{file, std::move(pointer), severity, rule, std::move(message)});
}

}  // namespace zf::validate
