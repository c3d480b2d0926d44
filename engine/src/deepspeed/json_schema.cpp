// SPDX-License-Identifier: MIT
// deepspeed_json_schema: a JSON Schema (draft 2020-12) for editors, generated from the same
// schema data the validator uses. Sections DeepSpeed validates strictly forbid other keys;
// "auto" is accepted exactly where the HF Trainer fills it.
#include <nlohmann/json.hpp>

#include "rules.hpp"
#include "zeroforge/deepspeed_release.hpp"

namespace zf {
namespace {

using json = nlohmann::ordered_json;

// A `$ref` node as the section it names, with the referring node's own fields over it.
json resolved(const json& data, const json& node) {
  if (!node.is_object() || !node.contains("$ref")) return node;
  json out = data.at("sections").at(node.at("$ref").get<std::string>());
  for (const auto& [key, value] : node.items()) {
    if (key != "$ref") out[key] = value;
  }
  return out;
}

unsigned stage_mask(const json& stages) {
  unsigned mask = 0;
  for (const auto& stage : stages) mask |= 1U << stage.get<int>();  // 0-3 (compile_schema)
  return mask;
}

// Who fills "auto" at `pointer` on the Trainer's path: the Trainer, or after it the newest
// accelerate; nullptr for nobody.
const char* hf_filled(const json& data, const std::string& pointer) {
  for (const auto& fill : data.at("hf_trainer").at("fills")) {
    if (fill.at("pointer").get_ref<const std::string&>() == pointer)
      return "the Hugging Face Trainer";
  }
  for (const auto& fill : data.at("accelerate").at("releases").back().at("fills")) {
    if (fill.at("pointer").get_ref<const std::string&>() == pointer)
      return "accelerate, to which the Hugging Face Trainer hands the config";
  }
  return nullptr;
}

std::string describe(const json& node) {
  std::string text = node.value("doc", "");
  auto add = [&](const std::string& part) {
    if (text.empty()) {
      text = part;
    } else {
      text += (text.back() == '.' ? " " : ". ") + part;
    }
  };
  if (auto d = node.find("default"); d != node.end()) add("Default " + d->dump() + ".");
  if (auto s = node.find("stages"); s != node.end() && s->size() < 4) {
    add("Has an effect at ZeRO stage " + deepspeed::stages_text(stage_mask(*s)) + " only.");
  }
  if (auto no = node.find("no_effect"); no != node.end())
    add("No effect: " + no->get<std::string>() + ".");
  if (auto dep = node.find("deprecated"); dep != node.end())
    add("Deprecated: " + dep->get<std::string>() + ".");
  return text;
}

json convert(const json& data, const json& raw, const json& parent, const std::string& pointer);

json convert_section(const json& data, const json& section, const std::string& pointer) {
  json out = json::object();
  std::string description = describe(section);
  if (!description.empty()) out["description"] = description;
  out["type"] = section.value("nullable", false) ? json::array({"object", "null"}) : json("object");
  json properties = json::object();
  if (auto keys = section.find("keys"); keys != section.end()) {
    for (const auto& [key, child] : keys->items()) {
      properties[key] = convert(data, child, section, deepspeed::pointer_join(pointer, key));
    }
  }
  if (!properties.empty()) out["properties"] = properties;
  if (auto required = section.find("required"); required != section.end())
    out["required"] = *required;
  out["additionalProperties"] = section.value("kind", "dict") != "pydantic";
  if (section.value("legacy_bool", false)) {
    json either = json::object();
    either["description"] = out.value("description", "");
    out.erase("description");
    either["anyOf"] =
        json::array({out,
                     {{"type", "boolean"},
                      {"deprecated", true},
                      {"description", "Legacy form: true = stage 1, false = stage 0."}}});
    return either;
  }
  return out;
}

json convert(const json& data, const json& raw, const json& parent, const std::string& pointer) {
  const json node = resolved(data, raw);
  if (auto alias = node.find("alias_of"); alias != node.end()) {
    std::string canonical = alias->get<std::string>();
    json target = convert(data, parent.at("keys").at(canonical), parent, pointer);
    target["description"] = "Accepted spelling of \"" + canonical + "\"" +
                            (node.value("legacy", false) ? " (legacy)" : "") + ". " +
                            target.value("description", "");
    return target;
  }
  if (node.contains("keys") || node.contains("kind")) return convert_section(data, node, pointer);
  json out = json::object();
  std::string description = describe(node);
  if (!description.empty()) out["description"] = description;
  json types = json::array();
  if (auto t = node.find("type"); t != node.end()) {
    if (t->is_array()) {
      types = *t;
    } else if (*t != "any") {
      types.push_back(*t);
    }
  }
  if (!types.empty()) {
    if (node.value("nullable", false)) types.push_back("null");
    out["type"] = types.size() == 1 ? types[0] : types;
  }
  if (auto min = node.find("min"); min != node.end()) out["minimum"] = *min;
  if (auto max = node.find("max"); max != node.end()) out["maximum"] = *max;
  if (auto e = node.find("enum"); e != node.end()) {
    out["enum"] = *e;
    if (node.value("nullable", false)) out["enum"].push_back(nullptr);
  }
  if (auto d = node.find("default"); d != node.end()) out["default"] = *d;
  if (node.contains("deprecated")) out["deprecated"] = true;
  if (const char* filler = hf_filled(data, pointer)) {
    json either = json::object();
    either["description"] = out.value("description", "") + " \"auto\": filled by " + filler + ".";
    out.erase("description");
    either["anyOf"] = json::array({out, {{"const", "auto"}}});
    return either;
  }
  return out;
}

}  // namespace

nlohmann::ordered_json deepspeed_json_schema(std::string_view version) {
  const json data = deepspeed_schema_data_at(version);
  const json& ds = data.at("deepspeed");
  json schema = json::object();
  schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  schema["title"] = "DeepSpeed configuration";
  schema["description"] =
      "DeepSpeed " + ds.at("version").get<std::string>() + " config (" +
      ds.at("repository").get<std::string>() + " @ " + ds.at("commit").get<std::string>() +
      "), generated by zeroforge. Unknown top-level keys are allowed because DeepSpeed ignores "
      "them (zeroforge validate warns); \"auto\" is allowed where the HF Trainer fills it.";
  schema["x-deepspeed-version"] = ds.at("version");
  schema["x-deepspeed-commit"] = ds.at("commit");
  json root = convert_section(data, data.at("root"), "");
  root.erase("description");
  for (auto& [key, value] : root.items()) schema[key] = value;
  // DeepSpeed needs one of the two batch keys unless elasticity computes the batch.
  schema["anyOf"] = json::array({
      {{"required", json::array({"train_batch_size"})}},
      {{"required", json::array({"train_micro_batch_size_per_gpu"})}},
      {{"required", json::array({"elasticity"})},
       {"properties",
        {{"elasticity",
          {{"properties", {{"enabled", {{"const", true}}}}},
           {"required", json::array({"enabled"})}}}}}},
  });
  return schema;
}

}  // namespace zf
