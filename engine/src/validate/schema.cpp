// SPDX-License-Identifier: MIT
// The compiled-in schema data (parsed once) and the small helpers every rule family uses to
// walk it and the config.
#include <algorithm>
#include <cmath>
#include <deque>
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

json resolved_copy(const json& schema, const json& node) {
  json resolved = schema.at("sections").at(node.at("$ref").get<std::string>());
  for (const auto& [key, value] : node.items()) {
    if (key != "$ref") resolved[key] = value;
  }
  return resolved;
}

ValueType value_type(std::string_view name) {
  if (name == "any") return ValueType::Any;
  if (name == "integer") return ValueType::Integer;
  if (name == "number") return ValueType::Number;
  if (name == "boolean") return ValueType::Boolean;
  if (name == "string") return ValueType::String;
  if (name == "array") return ValueType::Array;
  if (name == "object") return ValueType::Object;
  return ValueType::Unknown;
}

// Everything but `keys` and `canonical`, which CompiledSchema links.
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
      for (const auto& each : *t)
        facts.types.push_back(value_type(each.get_ref<const std::string&>()));
    } else if (t->is_string()) {
      facts.types.push_back(value_type(t->get_ref<const std::string&>()));
    }
  }
  for (ValueType type : facts.types) facts.type_mask |= 1U << static_cast<unsigned>(type);
  facts.any_type = facts.types.empty() || std::find(facts.types.begin(), facts.types.end(),
                                                    ValueType::Any) != facts.types.end();
  if (auto min = resolved.find("min"); min != resolved.end() && min->is_number())
    facts.min = min->get<double>();
  if (auto max = resolved.find("max"); max != resolved.end() && max->is_number())
    facts.max = max->get<double>();
  if (auto allowed = resolved.find("enum"); allowed != resolved.end())
    facts.enum_values = &*allowed;
  if (auto stages = resolved.find("stages"); stages != resolved.end()) {
    facts.stages = &*stages;
    for (const auto& each : *stages) {
      int stage = each.get<int>();
      if (stage >= 0 && stage <= 3) facts.stage_mask |= 1U << stage;  // a config's stage is 0-3
    }
  }
  if (auto why = resolved.find("no_effect"); why != resolved.end()) facts.no_effect = &*why;
  return facts;
}

// The facts of every node reachable from the embedded schema's root and sections, linked
// parent to child, made once (on first use, thread-safely) and read without locks afterwards.
class CompiledSchema {
 public:
  explicit CompiledSchema(const json& schema) : schema_(schema), root_(visit(root_node(schema))) {
    for (const auto& [name, section] : schema.at("sections").items()) visit(section);
  }
  const NodeFacts& root() const { return root_; }
  const NodeFacts* find(const json& node) const {
    auto it = by_node_.find(&node);
    return it == by_node_.end() ? nullptr : it->second;
  }

 private:
  NodeFacts& visit(const json& node) {
    if (auto it = by_node_.find(&node); it != by_node_.end()) return *it->second;
    const json* resolved = &node;
    if (node.is_object() && node.contains("$ref"))
      resolved = &copies_.emplace_back(resolved_copy(schema_, node));
    NodeFacts& facts = facts_.emplace_back(make_facts(*resolved));
    by_node_.emplace(&node, &facts);
    by_node_.emplace(resolved, &facts);
    auto keys = resolved->find("keys");
    if (keys == resolved->end() || !keys->is_object()) return facts;
    std::vector<NodeFacts*> aliases;
    for (const auto& [name, child] : keys->items()) {
      NodeFacts& child_facts = visit(child);
      facts.keys.insert(name, &child_facts);
      if (child_facts.alias) aliases.push_back(&child_facts);
    }
    for (NodeFacts* alias : aliases) {
      // Every alias names a sibling (SchemaDataTest.EveryAliasNamesASibling).
      alias->canonical =
          facts.keys.find(alias->resolved->at("alias_of").get_ref<const std::string&>());
    }
    return facts;
  }

  const json& schema_;
  std::deque<json> copies_;      // resolved `$ref` nodes; a deque keeps their addresses
  std::deque<NodeFacts> facts_;  // likewise for the facts the sections link to
  std::unordered_map<const json*, NodeFacts*> by_node_;
  const NodeFacts& root_;
};

const CompiledSchema& compiled_schema() {
  static const CompiledSchema compiled(deepspeed_schema_data());
  return compiled;
}

}  // namespace

const NodeFacts& root_facts() { return compiled_schema().root(); }

const json& resolve(const json& node) {
  // Every node of the root and the sections was compiled; only `$ref` nodes resolve elsewhere.
  const NodeFacts* facts = compiled_schema().find(node);
  return facts != nullptr ? *facts->resolved : node;
}

const json& root_node(const json& schema) { return schema.at("root"); }

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
  return detail::nearest_name(key, candidates);
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
  const json* zero = member(config, "zero_optimization");
  if (zero == nullptr) return 0;
  if (zero->is_boolean()) return zero->get<bool>() ? 1 : 0;  // legacy form
  const json* stage = member(*zero, "stage");
  if (stage == nullptr) return 0;
  std::optional<long long> value = as_integer(*stage);
  if (!value && stage->is_string()) {
    // pydantic's lax mode reads "3" as 3.
    const auto& text = stage->get_ref<const std::string&>();
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') value = text[0] - '0';
  }
  return value && *value >= 0 && *value <= 3 ? static_cast<int>(*value) : 0;
}

const json* bf16_section(const json& config) {
  if (const json* bf16 = member(config, "bf16")) return bf16;
  return member(config, "bfloat16");
}

bool enabled_true(const json* section) {
  return section != nullptr && is_true(*section, "enabled");
}

bool is_true(const json& object, std::string_view key) {
  const json* value = member(object, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

void Context::report(std::string pointer, Severity severity, const char* rule,
                     std::string message) const {
  if (options.strict && severity == Severity::Warning) severity = Severity::Error;
  findings.push_back(Finding{file, std::move(pointer), severity, rule, std::move(message)});
}

}  // namespace zf::validate
