// SPDX-License-Identifier: MIT
// zeroforge import (see importer.hpp): read every input first (bad input stops everything),
// judge each with the validator, fit its values against the template and the tier, split the
// members into shared and own values, and check that the family gives every input back.
#include "import/importer.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "checked_math.hpp"
#include "deepspeed/world_size.hpp"
#include "import/family_builder.hpp"
#include "import/import_notes.hpp"
#include "import/json_compare.hpp"
#include "import/regenerate.hpp"
#include "text_helpers.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/tiers.hpp"
#include "zeroforge/values.hpp"

namespace zf::importer {
namespace {

namespace fs = std::filesystem;

const char* kind_of(const Json& value) {
  switch (value.type()) {
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

// Reads one input as DeepSpeed reads it (`1e3` stays a float, duplicate keys are refused, as
// DeepSpeed's own loader refuses them).
Json read_config(const std::string& file) {
  const std::string text = read_file(file);
  Json config = parse_json_text(text, file, JsonNumbers::AsWritten);
  if (!config.is_object()) {
    // Where the value starts, for file:line:column.
    std::size_t offset = text.find_first_not_of(" \t\r\n");
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) offset = text.find_first_not_of(" \t\r\n", 3);
    Location where{file, 1, 1};
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++where.line;
        where.column = 1;
      } else {
        ++where.column;
      }
    }
    throw Error(ErrorKind::Values,
                std::string("a DeepSpeed config is a JSON object, this is ") + kind_of(config),
                where);
  }
  return config;
}

bool says_auto(const Json& value) {
  if (value.is_string()) return value == "auto";
  if (value.is_structured()) {
    for (const auto& item : value) {
      if (says_auto(item)) return true;
    }
  }
  return false;
}

// Each input's output path: its path below the directory all inputs share, so a folder of
// configs comes back as the same tree.
std::vector<std::string> output_paths(const std::vector<std::string>& files) {
  std::vector<fs::path> absolute;
  for (const auto& file : files) absolute.push_back(fs::absolute(file).lexically_normal());
  for (std::size_t i = 0; i < absolute.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (absolute[i] == absolute[j]) {
        throw Error(ErrorKind::Usage,
                    "import: " + files[i] + " is given twice (also as " + files[j] + ")");
      }
    }
  }
  fs::path common = absolute.front().parent_path();
  for (const auto& path : absolute) {
    while (!common.empty() && path.lexically_relative(common).string().starts_with("..")) {
      common = common.parent_path();
    }
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < absolute.size(); ++i) {
    std::string output = absolute[i].lexically_relative(common).generic_string();
    if (output == "manifest.json") {
      throw Error(ErrorKind::Usage, "import: " + files[i] +
                                        " would be the member named manifest.json, which is "
                                        "generate's index of the configs; rename the file");
    }
    if (auto control = detail::find_line_control(output)) {
      throw Error(ErrorKind::Usage, "import: " + files[i] +
                                        ": a member's output path cannot hold a line break or "
                                        "control character; rename the file");
    }
    out.push_back(std::move(output));
  }
  return out;
}

// -o naming an input would replace the config with the family made from it.
void refuse_family_over_input(const fs::path& family, const std::vector<std::string>& files) {
  const fs::path target = fs::absolute(family).lexically_normal();
  for (const auto& file : files) {
    std::error_code ec;
    if (fs::absolute(file).lexically_normal() == target || fs::equivalent(file, family, ec)) {
      throw Error(ErrorKind::Usage, "import: -o " + family.string() + " is the input " + file +
                                        "; write the family to another file");
    }
  }
}

// The family's name: the -o file's name without `.json`, in the characters a name may have.
std::string family_name(const fs::path& family_file) {
  std::string stem = family_file.filename().string();
  if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '-';
  }
  return stem.empty() ? "imported" : stem;
}

struct TierInput {
  std::string reference;  // what the family's `tiers` says
  std::string file;       // what errors and explain name
  Json values = Json::object();
  Cluster cluster;
};

std::int64_t integer_value(const Json& values, const char* key, std::int64_t otherwise) {
  auto it = values.find(key);
  return it != values.end() && it->is_number_integer() ? it->get<std::int64_t>() : otherwise;
}

TierInput load_tier(const std::string& tier, const fs::path& data_dir, const fs::path& family,
                    std::vector<Diagnostic>& warnings) {
  TierInput out;
  if (tier.empty()) return out;
  fs::path path;
  if (is_tier_path(tier)) {
    // A path on the command line is the working directory's; the family names it from its own.
    path = resolve_tier(tier, {{}, {}, data_dir}).file;
    fs::path from = fs::absolute(family).lexically_normal().parent_path();
    out.reference = fs::absolute(path).lexically_normal().lexically_relative(from).generic_string();
  } else {
    // A name, found as generate will find it for the family written (its tiers/ first).
    ResolvedTier resolved;
    try {
      resolved = resolve_tier(tier, {family, {}, data_dir});
    } catch (const CodedError& e) {
      // The family is not written yet: the name is the command line's.
      throw CodedError(Error(ErrorKind::Usage, "import: " + e.message()), e.code());
    }
    path = resolved.file;
    for (auto& warning : resolved.warnings) {
      warning.where = {};  // the family is not written yet: the warning is the command line's
      warnings.push_back(std::move(warning));
    }
    out.reference = tier;
  }
  out.file = path.string();
  out.values = load_values_file(path);
  out.cluster.tier = tier;
  const std::int64_t gpus_per_node = integer_value(out.values, "gpus_per_node", 1);
  const std::int64_t nodes = integer_value(out.values, "nodes", 1);
  const std::optional<std::int64_t> gpus = deepspeed::gpu_count(gpus_per_node, nodes);
  if (!gpus) {
    throw Error(ErrorKind::Values,
                "gpus_per_node x nodes = " + std::to_string(gpus_per_node) + " x " +
                    std::to_string(nodes) + " " + detail::beyond_int64() +
                    "; no cluster has that many GPUs",
                out.file, "/nodes");
  }
  out.cluster.gpus = *gpus;
  if (auto it = out.values.find("world_size"); it != out.values.end() && it->is_number_integer()) {
    out.cluster.world_size = it->get<std::int64_t>();
  }
  return out;
}

std::unique_ptr<Environment> make_environment(const ImportRequest& request,
                                              const fs::path& data_dir) {
  EnvironmentOptions options;
  for (const auto& dir : request.template_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw Error(ErrorKind::Usage, "--template-dir '" + dir.string() + "' is not a directory");
    }
    options.search_path.push_back(dir);
  }
  options.search_path.push_back(data_dir / "templates");
  return std::make_unique<Environment>(options);
}

// Every member of the family, made as generate makes it, must give its input back.
void check_family(const Json& family_json, const std::string& family_file, const TierInput& tier,
                  const Regenerator& regenerator, const std::vector<ImportedConfig>& configs,
                  const Environment& environment) {
  Family family = parse_family(family_json, family_file);
  std::vector<Tier> tiers;
  if (!tier.reference.empty()) {
    // Named as generate names it: a tier file after its stem (tier_name_of).
    tiers.push_back(Tier{tier_name_of(tier.reference), tier.file, tier.values});
  }
  Expansion expansion =
      expand_family(std::move(family), std::move(tiers), regenerator.defaults().layers, {});
  if (expansion.size() != configs.size()) {
    throw Error(ErrorKind::Values, family_file + ": the family has " +
                                       std::to_string(expansion.size()) + " members for " +
                                       std::to_string(configs.size()) + " configs (a bug)");
  }
  auto tpl = environment.load(regenerator.template_name());
  for (std::size_t i = 0; i < expansion.size(); ++i) {
    const Json values = expansion.merged(expansion.variant(i));
    const ImportedConfig& config = configs[i];
    ContractCheck check = check_deepspeed_values(values);
    if (!check.ok() || !same_json(tpl->render_json(Value::from_json(values)), config.config)) {
      throw Error(ErrorKind::Values, family_file + ": the member for " + config.file +
                                         " does not give it back (a bug in zeroforge import)");
    }
  }
}

// What the family's description tells a reviewer (the report shows it on top): the names
// that promise something else, and the inputs that are copies or one key apart.
std::string review_text(const std::vector<ImportedConfig>& configs,
                        const std::vector<std::vector<Finding>>& notes,
                        const std::vector<Pair>& pairs, const std::vector<std::string>& outputs) {
  std::string out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (const Finding& f : notes[i]) {
      if (f.rule == "import-name") out += " " + outputs[i] + ": " + f.message + ".";
    }
  }
  for (const Pair& pair : pairs) {
    out += " " + outputs[pair.later] +
           (pair.pointer ? " differs from " + outputs[pair.earlier] + " only at " + *pair.pointer +
                               " (" + pair.later_value + " vs " + pair.earlier_value + ")."
                         : " is the same config as " + outputs[pair.earlier] + ".");
  }
  return out.empty() ? out : " To review:" + out;
}

// The input judged as validate judges it: an input that says "auto" as the HF Trainer loads
// it; on a tier, at the world size its member runs (the tier's, or the ranks of it that its
// batch keys ask for), unless the request names one.
std::vector<Finding> judge(const ImportedConfig& imported, const ValidateOptions& requested,
                           const TierInput& tier, const ConfigMapping& mapping) {
  ValidateOptions options = requested;
  options.hf = options.hf || says_auto(imported.config);
  if (!options.world_size && !tier.reference.empty()) {
    options.world_size = tier.cluster.world();
    for (const Binding& b : mapping.bindings) {
      for (const auto& [path, value] : b.values) {
        if (path == Path{"world_size"} && value.is_number_integer()) {
          options.world_size = value.get<std::int64_t>();
        }
      }
    }
  }
  return validate_config(imported.config, options, imported.file);
}

}  // namespace
}  // namespace zf::importer

namespace zf {
// The importer's helpers above are its own; the entry point is public (zeroforge/import.hpp).
using namespace importer;

ImportResult import_configs(const ImportRequest& request) {
  if (request.configs.empty()) throw Error(ErrorKind::Usage, "import: missing CONFIG.json");
  ImportResult result;
  // Bad input stops the import before anything is judged (exit 2, nothing written).
  for (const auto& file : request.configs) {
    ImportedConfig config;
    config.file = file;
    config.config = read_config(file);
    result.configs.push_back(std::move(config));
  }
  const std::vector<std::string> outputs = output_paths(request.configs);
  refuse_family_over_input(request.family_file, request.configs);
  const fs::path data_dir = request.data_dir.empty() ? default_data_dir() : request.data_dir;
  auto environment = make_environment(request, data_dir);
  const TierInput tier = load_tier(request.tier, data_dir, request.family_file, result.warnings);
  // A release asked for is a value of the whole family: every member renders with it (the
  // template writes the keys that release reads) and the family pins it.
  Json base = tier.values;
  if (!request.validate.deepspeed_version.empty()) {
    if (!base.is_object()) base = Json::object();
    base["deepspeed_version"] = request.validate.deepspeed_version;
  }
  const Regenerator regenerator(*environment, request.template_name, base, tier.file);
  if (regenerator.defaults().contract != "deepspeed") {
    throw Error(ErrorKind::Usage, "import: " + request.template_name +
                                      " is not under the DeepSpeed values contract; import "
                                      "writes its values (docs/values.md)");
  }

  std::vector<std::vector<Finding>> judged(result.configs.size());
  std::vector<std::vector<Finding>> notes(result.configs.size());
  std::vector<MemberValues> members;
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    ImportedConfig& imported = result.configs[i];
    imported.output = outputs[i];
    ConfigMapping mapping = map_config(imported.config, tier.cluster);
    judged[i] = judge(imported, request.validate, tier, mapping);
    FittedMember fitted = fit_member(mapping, imported.config, regenerator, imported.file);
    imported.values = fitted.values;
    for (const MappingNote& note : mapping.notes) {
      notes[i].push_back(
          Finding{imported.file, note.pointer, note.severity, "import-world-size", note.message});
    }
    for (const Finding& f : name_notes(imported.file, imported.config)) notes[i].push_back(f);
    // The keys extra carries, against what the template writes by itself.
    Json own = fitted.full;
    own["extra"] = Json::object();
    const Json extra = fitted.full.at("extra");
    for (const Finding& f :
         passthrough_notes(imported.file, extra, regenerator.render(own), mapping, judged[i])) {
      imported.passthrough.push_back(f.pointer);
      notes[i].push_back(f);
    }
    members.push_back(MemberValues{imported.output, imported.values});
  }
  std::vector<const Json*> inputs;
  std::vector<std::string> files;
  for (const auto& c : result.configs) {
    inputs.push_back(&c.config);
    files.push_back(c.file);
  }
  const std::vector<Pair> pairs = find_pairs(inputs);

  FamilyHead head;
  head.name = family_name(request.family_file);
  head.template_name = request.template_name;
  head.tier = tier.reference;
  head.description = "Imported by zeroforge import from " + std::to_string(result.configs.size()) +
                     " DeepSpeed config" + (result.configs.size() == 1 ? "" : "s") +
                     "; each member's output is the path of the config it gives back.";
  head.description += review_text(result.configs, notes, pairs, outputs);
  result.family = build_family(head, members);
  if (!request.validate.deepspeed_version.empty()) {
    result.family.at("values")["deepspeed_version"] = request.validate.deepspeed_version;
  }
  result.shared_values = count_leaves(result.family.at("values"));
  check_family(result.family, request.family_file.string(), tier, regenerator, result.configs,
               *environment);

  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    for (auto& f : judged[i]) result.findings.push_back(std::move(f));
    result.findings.insert(result.findings.end(), notes[i].begin(), notes[i].end());
    for (const Pair& pair : pairs) {
      if (pair.later == i) result.findings.push_back(pair_finding(pair, files));
    }
  }
  return result;
}

}  // namespace zf
