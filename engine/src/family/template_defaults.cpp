// SPDX-License-Identifier: MIT
// Template defaults: the `defaults.json` of a template directory (its contract, its default
// values, and per-entry-template values such as deepspeed/zero3.json.j2's stage 3).
#include <filesystem>

#include "zeroforge/environment.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

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

}  // namespace

TemplateDefaults load_template_defaults(const Environment& environment,
                                        std::string_view template_name, std::string_view contract) {
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
  Json json = parse_json_text(read_file(*path), file);
  if (!json.is_object()) {
    throw Error(ErrorKind::Values, "expected an object, got " + std::string(json.type_name()), file,
                "/");
  }
  for (const auto& [key, value] : json.items()) {
    if (key != "contract" && key != "values" && key != "templates") {
      throw Error(ErrorKind::Values,
                  "unknown field '" + key + "' (expected contract, values, templates)", file,
                  "/" + escape_pointer_segment(key));
    }
  }
  if (auto it = json.find("contract"); it != json.end()) {
    if (!it->is_string()) throw Error(ErrorKind::Values, "expected a string", file, "/contract");
    defaults.contract = it->get<std::string>();
  }
  if (auto it = json.find("values"); it != json.end()) {
    if (!it->is_object()) throw Error(ErrorKind::Values, "expected an object", file, "/values");
    defaults.layers.push_back(Layer{{LayerKind::TemplateDefault, name}, *it, file, "/values", ""});
  } else if (!defaults.contract.empty() && defaults.contract + "/defaults.json" != name) {
    // `{"contract": "deepspeed"}` alone: a team's directory of templates that extend the
    // built-in ones takes the contract's defaults.
    defaults.layers = load_template_defaults(environment, defaults.contract + "/x").layers;
  }
  if (auto it = json.find("templates"); it != json.end()) {
    if (!it->is_object()) throw Error(ErrorKind::Values, "expected an object", file, "/templates");
    std::string key(template_name);
    if (auto entry = it->find(key); entry != it->end()) {
      std::string pointer = "/templates/" + escape_pointer_segment(key);
      if (!entry->is_object()) throw Error(ErrorKind::Values, "expected an object", file, pointer);
      defaults.layers.push_back(
          Layer{{LayerKind::TemplateDefault, name + " (" + key + ")"}, *entry, file, pointer, ""});
    }
  }
  return defaults;
}

}  // namespace zf
