// SPDX-License-Identifier: MIT
// zeroforge import (see importer.hpp): read every input first (bad input stops everything),
// judge each with the validator, fit its values against the template and the tier, split the
// members into shared and own values, and check that the family gives every input back.
#include "import/importer.hpp"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <thread>

#include "checked_math.hpp"
#include "deepspeed/world_size.hpp"
#include "generate/batch_runner.hpp"
#include "import/family_builder.hpp"
#include "import/import_notes.hpp"
#include "import/json_compare.hpp"
#include "import/regenerate.hpp"
#include "io/json_limits.hpp"
#include "text_helpers.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
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
  std::map<std::string, std::size_t> seen;  // by path: one look-up per input, not one per pair
  for (std::size_t i = 0; i < files.size(); ++i) {
    absolute.push_back(fs::absolute(files[i]).lexically_normal());
    auto [it, added] = seen.emplace(absolute.back().string(), i);
    if (!added) {
      throw Error(ErrorKind::Usage,
                  "import: " + files[i] + " is given twice (also as " + files[it->second] + ")");
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
    // Prepared as generate prepares a member (the template's pins and contract; no plugins).
    const bool prepared =
        prepare::prepare_merged(values, regenerator.checks()).outcome() == Outcome::Done;
    if (!prepared || !same_json(tpl->render_json(Value::from_json(values)), config.config)) {
      throw Error(ErrorKind::Values, family_file + ": the member for " + config.file +
                                         " does not give it back (a bug in zeroforge import)");
    }
  }
}

// What the family's description tells a reviewer (the report shows it on top): the names
// that promise something else, and the inputs that are copies or one key apart; at most
// kReviewItems of them, then how many more the import's notes list.
constexpr std::size_t kReviewItems = 20;

std::string review_text(const std::vector<ImportedConfig>& configs,
                        const std::vector<std::vector<Finding>>& notes,
                        const std::vector<Variation>& variations,
                        const std::vector<std::string>& outputs) {
  std::string out;
  std::size_t items = 0, left = 0;
  auto add = [&](const std::string& sentence) {
    if (items++ < kReviewItems) {
      out += " " + sentence;
    } else {
      ++left;
    }
  };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (const Finding& f : notes[i]) {
      if (f.rule == "import-name") add(outputs[i] + ": " + f.message + ".");
    }
  }
  for (const Variation& v : variations) add(variation_sentence(v, outputs));
  if (left > 0) out += " And " + std::to_string(left) + " more: the import's notes list them.";
  return out.empty() ? out : " To review:" + out;
}

// How deep `node` nests (0 for a scalar or an empty container, as the JSON reader counts
// depth), with the path to its deepest value in `deepest`.
int nesting(const Json& node, Path& path, Path& deepest) {
  int most = 0;
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      path.push_back(key);
      Path below;
      const int d = 1 + nesting(value, path, below);
      if (d > most) {
        most = d;
        deepest = std::move(below);
      }
      path.pop_back();
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      path.push_back(std::to_string(i));
      Path below;
      const int d = 1 + nesting(node[i], path, below);
      if (d > most) {
        most = d;
        deepest = std::move(below);
      }
      path.pop_back();
    }
  }
  if (most == 0) deepest = path;
  return most;
}

int nesting(const Json& node, Path& deepest) {
  Path path;
  return nesting(node, path, deepest);
}

// A family that generate could not read back is refused here, with the input that makes it
// so: deeper than the JSON reader goes (an input's keys nest three levels deeper in a
// member's `extra`), or larger than the largest file it reads.
void check_family_limits(const Json& family, const std::vector<ImportedConfig>& configs) {
  Path deepest;
  const int depth = nesting(family, deepest);
  if (depth > detail::kMaxJsonDepth) {
    std::size_t member = 0;
    if (deepest.size() > 1 && deepest[0] == "include") member = std::stoul(deepest[1]);
    const ImportedConfig& config = configs.at(member);
    Path inside;
    const int own = nesting(config.config, inside);
    throw CodedError(
        Error(ErrorKind::Values,
              "nests " + std::to_string(own) + " levels deep; in the family it would nest " +
                  std::to_string(depth) + " levels deep (at " + to_pointer(deepest) +
                  "), deeper than the " + std::to_string(detail::kMaxJsonDepth) +
                  " levels zeroforge reads JSON to, so generate could not read the family: "
                  "flatten the value, or import this config without it",
              config.file, to_pointer(inside)),
        codes::import_limit);
  }
  const std::uint64_t limit = max_input_bytes();
  const std::size_t size = to_json_text(family).size();
  if (size > limit) {
    std::size_t largest = 0, largest_size = 0;
    const Json& include = family.at("include");
    for (std::size_t i = 0; i < include.size(); ++i) {
      const std::size_t n = to_json_text(include[i]).size();
      if (n > largest_size) {
        largest = i;
        largest_size = n;
      }
    }
    auto mib = [](std::uint64_t bytes) {
      return std::to_string(bytes >> 20) + "." + std::to_string(((bytes & 0xFFFFF) * 10) >> 20) +
             " MiB";
    };
    throw CodedError(
        Error(ErrorKind::Values,
              "the family would be " + mib(size) + ", larger than the " +
                  std::to_string(limit >> 20) +
                  " MiB limit on a file zeroforge reads (ZEROFORGE_MAX_INPUT_MIB), so generate "
                  "could not read it; its largest member, for this config, is " +
                  mib(largest_size) + ": import the configs into several families",
              configs.at(largest).file, ""),
        codes::import_limit);
  }
}

// The most threads an import fits its inputs on.
constexpr unsigned kMaxThreads = 16;

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
  std::vector<MemberValues> members(result.configs.size());
  // Each input on its own: judged, fitted and noted on as many threads as the machine has
  // (the template and the validator are shared read-only, as generate's workers share them);
  // each writes only its own slots, so the result is the same whatever the threads do.
  std::vector<std::exception_ptr> failed(result.configs.size());
  auto import_one = [&](std::size_t i) {
    try {
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
      members[i] = MemberValues{imported.output, imported.values};
    } catch (...) {
      failed[i] = std::current_exception();
    }
  };
  {
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
    pipeline::BatchRunner runner(
        static_cast<unsigned>(std::min<std::size_t>(threads, result.configs.size())));
    runner.start(result.configs.size(), import_one);
    runner.finish();
  }
  // The first input that cannot be imported, as one thread would have stopped at it.
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
  std::vector<const Json*> inputs;
  std::vector<std::string> files;
  for (const auto& c : result.configs) {
    inputs.push_back(&c.config);
    files.push_back(c.file);
  }
  const std::vector<Variation> variations = find_variations(inputs);

  FamilyHead head;
  head.name = family_name(request.family_file);
  head.template_name = request.template_name;
  head.tier = tier.reference;
  head.description = "Imported by zeroforge import from " + std::to_string(result.configs.size()) +
                     " DeepSpeed config" + (result.configs.size() == 1 ? "" : "s") +
                     "; each member's output is the path of the config it gives back.";
  head.description += review_text(result.configs, notes, variations, outputs);
  result.family = build_family(head, members);
  if (!request.validate.deepspeed_version.empty()) {
    result.family.at("values")["deepspeed_version"] = request.validate.deepspeed_version;
  }
  result.shared_values = count_leaves(result.family.at("values"));
  check_family_limits(result.family, result.configs);
  check_family(result.family, request.family_file.string(), tier, regenerator, result.configs,
               *environment);

  std::size_t next = 0;  // variations come ordered by their last input
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    for (auto& f : judged[i]) result.findings.push_back(std::move(f));
    result.findings.insert(result.findings.end(), notes[i].begin(), notes[i].end());
    for (; next < variations.size() && variations[next].inputs.back() == i; ++next) {
      result.findings.push_back(variation_finding(variations[next], files));
    }
  }
  return result;
}

}  // namespace zf
