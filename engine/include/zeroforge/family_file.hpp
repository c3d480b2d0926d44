// SPDX-License-Identifier: MIT
// Family files (docs/families.md): the template, base values, variant axes, the tiers and
// plugins a family names and the companions it writes, parsed and checked.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>  // full type: Family and its parts hold ordered_json members
#include <string>
#include <string_view>
#include <vector>

namespace zf {

/// One variant axis: a value key (dotted for nested values, `zero.reduce_bucket_size`) and the
/// values it takes, in order.
struct Axis {
  std::string key;
  std::vector<nlohmann::ordered_json> values;
};

/// A tier a family emits, with the family's values for that tier only.
struct TierRef {
  /// The tier as the family names it: a tier name (`small`, found on the tier search path) or
  /// a path relative to the family file (`tiers/site.json`: it contains `/` or ends in
  /// `.json`).
  std::string ref;
  /// The tier's name: `ref` itself, or the file stem of a path (`site`). The manifest, the
  /// output pattern's `tier` and messages use it; include and exclude match either.
  std::string name;
  /// Values layered (as family values) above the base values, for this tier only.
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  /// True when an include or exclude entry's `"tier": TEXT` means this tier: TEXT is its name
  /// or its reference as written.
  bool matches(std::string_view text) const noexcept { return text == name || text == ref; }
};

/// True when a tier reference names a file (it contains `/` or ends in `.json`) rather than a
/// tier on the search path.
bool is_tier_path(std::string_view ref);
/// The name of the tier `ref` refers to: `ref` itself, or its file stem for a path
/// (`../../tiers/a100x8.json` is `a100x8`).
std::string tier_name_of(std::string_view ref);

/// A plugin a family loads: a name or path, and its options (a JSON object).
struct PluginRef {
  std::string name;
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
};

/// A parsed family file; the format is documented in docs/families.md.
struct Family {
  /// The file it was read from, as given (errors name it).
  std::string file;
  std::string name;
  std::string description;
  /// The template every config renders, e.g. `deepspeed/config.json.j2`.
  std::string template_name;
  /// Template directories, as written (relative to the family file): searched after
  /// `--template-dir` and before the built-in templates.
  std::vector<std::string> template_dirs;
  /// The values contract ("deepspeed"), when the template's directory does not declare one.
  std::string contract;
  /// The output path pattern, a template over the variant's values plus `tier`, `family` and
  /// `variant`; the default is `{{ tier }}/{{ variant }}.json` (`{{ variant }}.json` without
  /// tiers).
  std::string output = "{% if tier %}{{ tier }}/{% endif %}{{ variant }}.json";
  /// Values files the family builds on (`values_files`), in file order: each a layer of the
  /// family below its own `values` (a later file wins over an earlier one).
  struct ValuesFile {
    std::string path;  ///< as written, relative to the family file's directory
    std::string file;  ///< the file read, as messages and explain name it
    nlohmann::ordered_json values;
  };
  std::vector<ValuesFile> values_files;
  /// Base values of every config.
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  /// Variant axes in file order; their cartesian product, first axis slowest.
  std::vector<Axis> axes;
  /// Extra variants, each a values object (may name `tier` to restrict it to one tier).
  std::vector<nlohmann::ordered_json> include;
  /// Partial matches removed from the product: objects of axis key (or `tier`) to value.
  std::vector<nlohmann::ordered_json> exclude;
  /// Tiers to emit; none means one set of configs with no tier layer.
  std::vector<TierRef> tiers;
  /// Plugins to load, in hook order.
  std::vector<PluginRef> plugins;
  /// Companion kinds written next to every config (see companion_kinds()), in file order.
  std::vector<std::string> companions;
};

/// The companion files `generate` can write next to each config (docs/companions.md), in the
/// order a manifest entry lists them: `deepspeed`, `torchrun`, `accelerate`, `hf-args`,
/// `hostfile`, `deepspeed-env`, `slurm`, `kubernetes`.
const std::vector<std::string>& companion_kinds();

/// Parses a family from JSON. Throws zf::CodedError (Values, code `family.invalid`) as
/// `file: /pointer: error: ...` for a missing or mistyped field, an unknown field, an empty
/// axis, a duplicate axis, an exclude that names no axis or matches nothing.
///
///     zf::Family family = zf::load_family("presets/families/llama-7b.json");
Family parse_family(const nlohmann::ordered_json& json, const std::string& file);
/// Reads and parses a family file.
Family load_family(const std::filesystem::path& path);

/// The family file FAMILY names: a path (contains '/' or ends in .json) or a shipped family
/// (DATA_DIR/presets/families/NAME.json). Throws zf::Error (Usage) when missing.
std::filesystem::path resolve_family(const std::string& family,
                                     const std::filesystem::path& data_dir);

/// A family's `template_dirs`, relative to its file. Throws zf::CodedError (Values, code
/// `family.template-dir`) at `/template_dirs/N` for one that is not a directory.
std::vector<std::filesystem::path> family_template_dirs(const Family& family);

}  // namespace zf
