// SPDX-License-Identifier: MIT
// Template defaults: the `defaults.json` of a template directory (its contract, its default
// values, and per-entry-template values such as deepspeed/zero3.json.j2's stage 3).
#include "zeroforge/template_defaults.hpp"

#include <filesystem>

#include "zeroforge/environment.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string directory_of(std::string_view template_name) {
  auto slash = template_name.rfind('/');
  return slash == std::string_view::npos ? std::string()
                                         : std::string(template_name.substr(0, slash));
}

std::string shown_path(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return (ec ? path.lexically_normal() : canonical).string();
}

// `pinned` of a defaults.json: every entry is checked (a typo in another template's pins is an
// error here too); the pins of `template_name` are returned, each with the value its
// `templates` entry gives it.
TemplatePins read_pins(const Json& pinned, const Json& templates, std::string_view template_name,
                       const std::string& file) {
  if (!pinned.is_object()) throw Error(ErrorKind::Values, "expected an object", file, "/pinned");
  TemplatePins pins;
  pins.template_name = std::string(template_name);
  for (const auto& [pinned_template, names] : pinned.items()) {
    std::string pointer = "/pinned/" + escape_pointer_segment(pinned_template);
    auto entry = templates.find(pinned_template);
    if (entry == templates.end()) {
      throw Error(ErrorKind::Values,
                  "'" + pinned_template + "' has no entry under templates to take values from",
                  file, pointer);
    }
    if (!names.is_array()) {
      throw Error(ErrorKind::Values, "expected a list of value names", file, pointer);
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      const Json& value_name = names[i];
      std::string at = pointer + "/" + std::to_string(i);
      if (!value_name.is_string()) throw Error(ErrorKind::Values, "expected a string", file, at);
      auto value = entry->find(value_name.get<std::string>());
      if (value == entry->end()) {
        throw Error(ErrorKind::Values,
                    "'" + value_name.get<std::string>() + "' is not set by templates/" +
                        pinned_template + ", so there is no value to pin",
                    file, at);
      }
      if (pinned_template == template_name) {
        pins.values.set(value_name.get<std::string>(), Value::from_json(*value));
      }
    }
  }
  return pins;
}

}  // namespace

namespace {

// A template without a defaults.json of its own that extends another (`{% extends
// "deepspeed/config.json.j2" %}` in a team's directory) takes its parent's defaults: the
// contract, the values and the parent's per-template entry. Inheritance deeper than the
// renderer's own limit is left to the renderer to refuse.
std::optional<std::string> parent_with_defaults(const Environment& environment,
                                                std::string_view template_name) {
  if (!environment.resolve(template_name)) return std::nullopt;
  std::optional<std::string> parent = environment.load(template_name)->static_parent();
  if (!parent || *parent == template_name || !environment.resolve(*parent)) return std::nullopt;
  return parent;
}

}  // namespace

TemplateDefaults load_template_defaults(const Environment& environment, std::string_view requested,
                                        std::string_view contract) {
  // The template whose defaults apply: this one, or the nearest parent with a defaults.json
  // (a cycle of extends, which the renderer refuses, ends the walk at max_depth).
  std::string template_name(requested);
  for (int depth = 0; contract.empty() && depth < environment.options().max_depth; ++depth) {
    std::string dir = directory_of(template_name);
    if (environment.resolve(dir.empty() ? "defaults.json" : dir + "/defaults.json")) break;
    std::optional<std::string> parent = parent_with_defaults(environment, template_name);
    if (!parent) break;
    template_name = std::move(*parent);
  }
  std::string dir = directory_of(template_name);
  std::string name = dir.empty() ? "defaults.json" : dir + "/defaults.json";
  std::optional<fs::path> path = environment.resolve(name);
  if (!path && !contract.empty()) {
    name = std::string(contract) + "/defaults.json";
    path = environment.resolve(name);
  }
  TemplateDefaults defaults;
  if (!path) {
    if (!contract.empty()) {
      throw Error(ErrorKind::Template, "contract '" + std::string(contract) + "' has no " + name +
                                           " on the template search path");
    }
    return defaults;
  }

  std::string file = shown_path(*path);
  Json json = parse_json_text(read_file(*path), file, JsonNumbers::AsWritten);
  if (!json.is_object()) {
    throw Error(ErrorKind::Values, "expected an object, got " + std::string(json.type_name()), file,
                "/");
  }
  for (const auto& [key, value] : json.items()) {
    if (key != "contract" && key != "values" && key != "templates" && key != "pinned") {
      throw Error(ErrorKind::Values,
                  "unknown field '" + key + "' (expected contract, values, templates, pinned)",
                  file, "/" + escape_pointer_segment(key));
    }
  }
  if (auto it = json.find("contract"); it != json.end()) {
    if (!it->is_string()) throw Error(ErrorKind::Values, "expected a string", file, "/contract");
    defaults.contract = it->get<std::string>();
  }
  if (auto it = json.find("values"); it != json.end()) {
    if (!it->is_object()) throw Error(ErrorKind::Values, "expected an object", file, "/values");
    defaults.layers.push_back(
        Layer{LayerSource{LayerKind::TemplateDefault, name}, *it, file, "/values", ""});
  } else if (!defaults.contract.empty() && defaults.contract + "/defaults.json" != name) {
    // `{"contract": "deepspeed"}` alone: a team's directory of templates that extend the
    // built-in ones takes the contract's defaults.
    defaults.layers = load_template_defaults(environment, defaults.contract + "/x").layers;
  }
  static const Json kNoTemplates = Json::object();
  const Json* templates = &kNoTemplates;
  if (auto it = json.find("templates"); it != json.end()) {
    if (!it->is_object()) throw Error(ErrorKind::Values, "expected an object", file, "/templates");
    templates = &*it;
    std::string key(template_name);
    if (auto entry = it->find(key); entry != it->end()) {
      std::string pointer = "/templates/" + escape_pointer_segment(key);
      if (!entry->is_object()) throw Error(ErrorKind::Values, "expected an object", file, pointer);
      defaults.layers.push_back(
          Layer{LayerSource{LayerKind::TemplateDefault, name + " (" + key + ")"}, *entry, file,
                pointer, ""});
    }
  }
  if (auto it = json.find("pinned"); it != json.end()) {
    defaults.pins = read_pins(*it, *templates, template_name, file);
    defaults.pins.file = name;
  }
  return defaults;
}

}  // namespace zf
