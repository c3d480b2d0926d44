// SPDX-License-Identifier: MIT
// Family files: reading and checking the JSON format of docs/families.md into zf::Family.
// Every error names the file and the JSON pointer of the offending field.
#include "zeroforge/family_file.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "text_helpers.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/path_text.hpp"
#include "zeroforge/values.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFields[] = {
    "name", "description", "template", "template_dirs", "contract", "output",     "values",
    "axes", "include",     "exclude",  "tiers",         "plugins",  "companions", "values_files"};

// "; did you mean 'x'?" for a mistyped field, or "".
template <typename Range>
std::string did_you_mean(const std::string& key, const Range& fields) {
  const std::string guess = detail::nearest_name(key, fields);
  return guess.empty() ? "" : "; did you mean '" + guess + "'?";
}

class FamilyReader {
 public:
  /// `owned`, when given, is the document `read` is called with, and its include entries
  /// are moved rather than copied (load_family's own parse).
  explicit FamilyReader(std::string file, Json* owned = nullptr)
      : file_(std::move(file)), owned_(owned) {}

  // Every problem of the family file itself has one code, so that a script tells a family
  // to fix from the values layered over it (`values.invalid`).
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw CodedError(Error(ErrorKind::Values, message, file_, pointer), codes::family_invalid);
  }

  // Every string of the family that names a file or a directory (the template, template_dirs,
  // the output pattern, tiers, plugins and their options) passes here: a path with a NUL is
  // refused at its pointer, never cut short where the system ends a C string.
  const std::string& path_text(const std::string& pointer, const std::string& text) const {
    if (std::string why = sdk::path_text_problem(text); !why.empty()) fail(pointer, why);
    return text;
  }
  // Plugin options cross to the plugin, which may open any of them as a path (site_fields'
  // profile): each string in them is checked where it is written.
  void check_option_paths(const Json& json, const std::string& pointer) const {
    if (json.is_string()) {
      path_text(pointer, json.get_ref<const std::string&>());
    } else if (json.is_object()) {
      for (const auto& [key, value] : json.items())
        check_option_paths(value, pointer + "/" + escape_pointer_segment(key));
    } else if (json.is_array()) {
      for (std::size_t i = 0; i < json.size(); ++i)
        check_option_paths(json[i], pointer + "/" + std::to_string(i));
    }
  }

  std::string string_field(const Json& json, const char* key, bool required) const {
    auto it = json.find(key);
    if (it == json.end()) {
      if (required) fail("/", std::string("missing field '") + key + "'");
      return {};
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
      fail(std::string("/") + key,
           std::string(key) + " must be a non-empty string, got " + it->dump());
    }
    return it->get<std::string>();
  }

  Family read(const Json& json) const {
    if (!json.is_object())
      fail("/", "a family must be a JSON object, got " + std::string(json.type_name()));
    for (const auto& [key, value] : json.items()) {
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
        fail("/" + escape_pointer_segment(key),
             "unknown field '" + key +
                 "' (expected name, description, template, template_dirs, contract, output, "
                 "values, values_files, axes, include, exclude, tiers, plugins, companions)" +
                 did_you_mean(key, kFields));
      }
    }
    Family family;
    family.file = file_;
    family.name = string_field(json, "name", true);
    for (char c : family.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
        fail("/name",
             "name must use letters, digits, '-', '_' and '.', got \"" + family.name + "\"");
      }
    }
    family.description = string_field(json, "description", false);
    family.template_name = path_text("/template", string_field(json, "template", true));
    read_template_dirs(json, family);
    family.contract = string_field(json, "contract", false);
    if (json.contains("output"))
      family.output = path_text("/output", string_field(json, "output", true));
    if (auto it = json.find("values"); it != json.end()) {
      if (!it->is_object()) fail("/values", "values must be an object, got " + it->dump());
      family.values = *it;
    }
    read_values_files(json, family);
    read_axes(json, family);
    read_tiers(json, family);
    read_include(json, family);
    read_exclude(json, family);
    if (auto it = json.find("plugins"); it != json.end()) {
      if (!it->is_array())
        fail("/plugins", "plugins must be a list of names, paths or {\"name\", \"options\"}");
      for (std::size_t i = 0; i < it->size(); ++i)
        family.plugins.push_back(read_plugin((*it)[i], i));
    }
    read_companions(json, family);
    rebase_input_paths(family);
    return family;
  }

 private:
  // A model file that auto_fit names (`auto_fit.model` with a '/' or ending in .json, which
  // the memory plugin reads as a path) is relative to the file that names it: the family file,
  // or the values file of values_files. Rewritten here, so that every command finds it from
  // any working directory; a value given on the command line stays relative to it.
  static void rebase_model_path(Json& values, const std::filesystem::path& base) {
    if (base.empty() || !values.is_object()) return;
    auto rebase = [&](Json& model) {
      if (!model.is_string()) return;
      const std::filesystem::path path = model.get<std::string>();
      const std::string text = path.string();
      const bool is_path = text.find('/') != std::string::npos || path.extension() == ".json";
      if (!is_path || path.is_absolute() || text.find('\0') != std::string::npos) return;
      model = (base / path).lexically_normal().string();
    };
    if (auto it = values.find("auto_fit"); it != values.end() && it->is_object()) {
      if (auto model = it->find("model"); model != it->end()) rebase(*model);
    }
    if (auto it = values.find("auto_fit.model"); it != values.end()) rebase(*it);  // an include's
  }

  void rebase_input_paths(Family& family) const {
    const std::filesystem::path base = std::filesystem::path(file_).parent_path();
    rebase_model_path(family.values, base);
    for (auto& tier : family.tiers) rebase_model_path(tier.values, base);
    for (auto& entry : family.include) rebase_model_path(entry, base);
    for (auto& shared : family.values_files)
      rebase_model_path(shared.values, std::filesystem::path(shared.file).parent_path());
  }

  PluginRef read_plugin(const Json& entry, std::size_t index) const {
    std::string pointer = "/plugins/" + std::to_string(index);
    PluginRef plugin;
    if (entry.is_string() && !entry.get<std::string>().empty()) {
      plugin.name = path_text(pointer, entry.get<std::string>());
      return plugin;
    }
    if (!entry.is_object()) {
      fail(pointer,
           "a plugin must be a name, a path or {\"name\", \"options\"}, got " + entry.dump());
    }
    for (const auto& [key, value] : entry.items()) {
      if (key != "name" && key != "options") {
        fail(pointer + "/" + escape_pointer_segment(key),
             "unknown field '" + key + "' in a plugin (expected name, options)" +
                 did_you_mean(key, std::array<std::string_view, 2>{"name", "options"}));
      }
    }
    plugin.name = path_text(pointer + "/name", string_field_at(entry, "name", pointer));
    if (auto options = entry.find("options"); options != entry.end()) {
      if (!options->is_object()) fail(pointer + "/options", "plugin options must be an object");
      check_option_paths(*options, pointer + "/options");
      plugin.options = *options;
    }
    return plugin;
  }

  void read_template_dirs(const Json& json, Family& family) const {
    auto it = json.find("template_dirs");
    if (it == json.end()) return;
    if (!it->is_array()) {
      fail("/template_dirs",
           "template_dirs must be a list of directories (relative to the "
           "family file), got " +
               it->dump());
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      if (!entry.is_string() || entry.get<std::string>().empty()) {
        fail("/template_dirs/" + std::to_string(i),
             "a template directory must be a non-empty string, got " + entry.dump());
      }
      family.template_dirs.push_back(
          path_text("/template_dirs/" + std::to_string(i), entry.get<std::string>()));
    }
  }

  // Each file is read here, so that every command that loads the family (generate, explain,
  // report, import's round trip, the Python module) layers the same values.
  void read_values_files(const Json& json, Family& family) const {
    auto it = json.find("values_files");
    if (it == json.end()) return;
    if (!it->is_array()) {
      fail("/values_files",
           "values_files must be a list of JSON values files (relative to the family file), "
           "got " +
               it->dump());
    }
    const std::filesystem::path base = std::filesystem::path(file_).parent_path();
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      const std::string pointer = "/values_files/" + std::to_string(i);
      if (!entry.is_string() || entry.get<std::string>().empty()) {
        fail(pointer, "a values file must be a non-empty path, got " + entry.dump());
      }
      Family::ValuesFile values_file;
      values_file.path = path_text(pointer, entry.get<std::string>());
      values_file.file = (base / values_file.path).lexically_normal().string();
      std::error_code ec;
      if (!std::filesystem::is_regular_file(values_file.file, ec)) {
        // A directory or FIFO there is named for what it is, not "not found".
        if (std::string what = not_a_file_problem(values_file.file); !what.empty())
          fail(pointer, "values file '" + values_file.path + "': " + values_file.file + " " + what);
        fail(pointer, "values file '" + values_file.path + "' not found: no file " +
                          values_file.file + " (the path is relative to the family file)");
      }
      // Its own errors name the file, line and column.
      values_file.values = load_values_file(values_file.file);
      family.values_files.push_back(std::move(values_file));
    }
  }

  void read_companions(const Json& json, Family& family) const {
    auto it = json.find("companions");
    if (it == json.end()) return;
    if (!it->is_array()) {
      fail("/companions", "companions must be a list of companion kinds (" + kinds_text() +
                              "), got " + it->dump());
    }
    const auto& kinds = companion_kinds();
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      std::string pointer = "/companions/" + std::to_string(i);
      if (!entry.is_string()) {
        fail(pointer, "a companion must be one of " + kinds_text() + ", got " + entry.dump());
      }
      const std::string kind = entry.get<std::string>();
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
        std::string guess = detail::nearest_name(kind, kinds);
        fail(pointer, "unknown companion '" + kind + "' (expected " + kinds_text() + ")" +
                          (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
      }
      if (std::find(family.companions.begin(), family.companions.end(), kind) !=
          family.companions.end()) {
        fail(pointer, "companion '" + kind + "' is listed twice");
      }
      family.companions.push_back(kind);
    }
  }

  static std::string kinds_text() {
    std::string text;
    for (const auto& kind : companion_kinds()) text += (text.empty() ? "" : ", ") + kind;
    return text;
  }

  static bool is_value_name(const std::string& key) {
    return !key.empty() && key.front() != '.' && key.back() != '.' &&
           key.find("..") == std::string::npos;
  }
  void check_key(const std::string& pointer, const std::string& key) const {
    if (!is_value_name(key))
      fail(pointer, "'" + key + "' is not a value name (a dotted path such as zero.stage)");
  }

  void read_axes(const Json& json, Family& family) const {
    auto it = json.find("axes");
    if (it == json.end()) return;
    if (!it->is_object()) fail("/axes", "axes must be an object of value name to list of values");
    for (const auto& [key, values] : it->items()) {
      std::string pointer = "/axes/" + escape_pointer_segment(key);
      check_key(pointer, key);
      if (key == "tier") fail(pointer, "'tier' is not an axis: list the tiers under /tiers");
      if (!values.is_array())
        fail(pointer, "an axis must be a list of values, got " + values.dump());
      if (values.empty())
        fail(pointer, "empty axis '" + key + "': the product would have no variants");
      Axis axis{key, {}};
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (std::find(axis.values.begin(), axis.values.end(), values[i]) != axis.values.end()) {
          fail(pointer + "/" + std::to_string(i),
               "duplicate value " + values[i].dump() + " in axis '" + key + "'");
        }
        axis.values.push_back(values[i]);
      }
      family.axes.push_back(std::move(axis));
    }
  }

  void read_tiers(const Json& json, Family& family) const {
    auto it = json.find("tiers");
    if (it == json.end()) return;
    if (!it->is_array())
      fail("/tiers", "tiers must be a list of tier names or {\"name\", \"values\"}");
    if (it->empty())
      fail("/tiers", "empty tier list: leave out 'tiers' for configs without a tier");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      std::string pointer = "/tiers/" + std::to_string(i);
      TierRef tier;
      if (entry.is_string()) {
        tier.ref = path_text(pointer, entry.get<std::string>());
      } else if (entry.is_object()) {
        for (const auto& [key, value] : entry.items()) {
          if (key != "name" && key != "values") {
            fail(pointer + "/" + escape_pointer_segment(key),
                 "unknown field '" + key + "' in a tier (expected name, values)" +
                     did_you_mean(key, std::array<std::string_view, 2>{"name", "values"}));
          }
        }
        tier.ref = path_text(pointer + "/name", string_field_at(entry, "name", pointer));
        if (auto values = entry.find("values"); values != entry.end()) {
          if (!values->is_object()) fail(pointer + "/values", "tier values must be an object");
          tier.values = *values;
        }
      } else {
        fail(pointer, "a tier must be a name or {\"name\", \"values\"}, got " + entry.dump());
      }
      if (tier.ref.empty()) fail(pointer, "empty tier name");
      tier.name = tier_name_of(tier.ref);
      if (tier.name.empty()) fail(pointer, "tier file '" + tier.ref + "' has no file name");
      for (std::size_t j = 0; j < family.tiers.size(); ++j) {
        const TierRef& other = family.tiers[j];
        if (other.ref == tier.ref) fail(pointer, "tier '" + tier.ref + "' is listed twice");
        if (other.name == tier.name) {
          // The manifest, the output pattern and include/exclude know a tier by its name.
          fail(pointer, "tier '" + tier.ref + "' is named '" + tier.name + "', as is '" +
                            other.ref + "' (/tiers/" + std::to_string(j) +
                            "): a tier is named after its file stem; rename one of the files");
        }
      }
      family.tiers.push_back(std::move(tier));
    }
  }

  std::string string_field_at(const Json& json, const char* key, const std::string& pointer) const {
    auto it = json.find(key);
    if (it == json.end()) fail(pointer, std::string("missing field '") + key + "'");
    if (!it->is_string() || it->get<std::string>().empty()) {
      fail(pointer + "/" + key,
           std::string(key) + " must be a non-empty string, got " + it->dump());
    }
    return it->get<std::string>();
  }

  void check_tier_name(const Family& family, const Json& value, const std::string& pointer) const {
    if (!value.is_string()) fail(pointer, "tier must be a tier name, got " + value.dump());
    std::string name = value.get<std::string>();
    bool known = std::any_of(family.tiers.begin(), family.tiers.end(),
                             [&](const TierRef& t) { return t.matches(name); });
    if (!known) fail(pointer, "tier '" + name + "' is not one of the family's tiers");
  }

  // Pipelines list thousands of entries: the pointers are made only for an error.
  void read_include(const Json& json, Family& family) const {
    auto it = json.find("include");
    if (it == json.end()) return;
    if (!it->is_array()) fail("/include", "include must be a list of values objects");
    family.include.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      auto pointer = [i] { return "/include/" + std::to_string(i); };
      if (!entry.is_object() || entry.empty()) {
        fail(pointer(), "an include entry must be a non-empty values object, got " + entry.dump());
      }
      for (const auto& [key, value] : entry.items()) {
        if (key == "tier") {
          check_tier_name(family, value, pointer() + "/tier");
        } else if (!is_value_name(key)) {
          check_key(pointer() + "/" + escape_pointer_segment(key), key);
        }
      }
      if (owned_ != nullptr) {
        family.include.push_back(std::move((*owned_)["include"][i]));
      } else {
        family.include.push_back(entry);
      }
    }
  }

  void read_exclude(const Json& json, Family& family) const {
    auto it = json.find("exclude");
    if (it == json.end()) return;
    if (!it->is_array()) fail("/exclude", "exclude must be a list of partial matches");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const Json& entry = (*it)[i];
      std::string pointer = "/exclude/" + std::to_string(i);
      if (!entry.is_object() || entry.empty()) {
        fail(pointer,
             "an exclude entry must be a non-empty object of axis values, got " + entry.dump());
      }
      for (const auto& [key, value] : entry.items()) {
        std::string child = pointer + "/" + escape_pointer_segment(key);
        if (key == "tier") {
          check_tier_name(family, value, child);
          continue;
        }
        auto axis = std::find_if(family.axes.begin(), family.axes.end(),
                                 [&name = key](const Axis& a) { return a.key == name; });
        if (axis == family.axes.end()) {
          fail(child, "'" + key + "' is not an axis (exclude matches axis values and 'tier')");
        }
        if (std::find(axis->values.begin(), axis->values.end(), value) == axis->values.end()) {
          fail(child, value.dump() + " is not a value of axis '" + key + "'");
        }
      }
      family.exclude.push_back(entry);
    }
  }

  std::string file_;
  Json* owned_;
};

}  // namespace

bool is_tier_path(std::string_view ref) {
  return ref.find('/') != std::string_view::npos || ref.ends_with(".json");
}

std::string tier_name_of(std::string_view ref) {
  if (!is_tier_path(ref)) return std::string(ref);
  return std::filesystem::path(std::string(ref)).stem().string();
}

const std::vector<std::string>& companion_kinds() {
  static const std::vector<std::string> kinds = {"deepspeed", "torchrun",  "accelerate",
                                                 "hf-args",   "hostfile",  "deepspeed-env",
                                                 "slurm",     "kubernetes"};
  return kinds;
}

Family parse_family(const nlohmann::ordered_json& json, const std::string& file) {
  return FamilyReader(file).read(json);
}

Family load_family(const std::filesystem::path& path) {
  std::string file = path.string();
  Json json = parse_json_text(read_file(path), file, JsonNumbers::AsWritten);
  return FamilyReader(file, &json).read(json);
}

}  // namespace zf
