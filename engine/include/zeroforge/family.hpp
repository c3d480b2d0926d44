// SPDX-License-Identifier: MIT
// Families and the values contract: a family file (template, base values, variant axes, tiers)
// expanded into ordered variants, each a stack of value layers that remember their file and
// JSON pointer; template defaults; and the DeepSpeed values contract checked before rendering.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"  // sha256_hex, declared here before
#include "zeroforge/value.hpp"
#include "zeroforge/values.hpp"

namespace zf {

class Environment;

// ---------------------------------------------------------------------------------------------
// Layers that know where they were written
// ---------------------------------------------------------------------------------------------

/// One layer of values and where it sits in its file, so an error about any value can say
/// `file: /pointer`. A value at pointer `value_pointer + rest` was written at
/// `file_pointer + rest` in `file`.
///
///     // the second value of the family's `stage` axis: {"stage": 3} at /axes/stage/1
///     zf::Layer{zf::LayerSource{zf::LayerKind::Variant, "family.json /axes/stage/1"},
///               {{"stage", 3}}, "family.json", "/axes/stage/1", "/stage"};
///
/// Name `LayerSource` as above rather than writing `{kind, label}`, and read the values
/// (`load_values_file`, `parse_set`) into a local first: when an initialiser after a nested
/// brace-initialised member throws, g++ 12 destroys that member twice (a double free).
struct Layer {
  /// Kind and the label `explain` shows.
  LayerSource source;
  /// The values: a JSON object.
  nlohmann::ordered_json values;
  /// The file errors name (for `--set` the assignment itself, e.g. `--set stage=4`).
  std::string file;
  /// Where the layer's values are written in `file`: "" (the whole file), "/values", ...
  std::string file_pointer;
  /// The value pointer `file_pointer` corresponds to: "" for a whole object, "/stage" for
  /// one axis value.
  std::string value_pointer;
};

/// Layered values plus the file position of every layer: what `explain` prints and what
/// contract errors point at.
class SourcedValues {
 public:
  /// Merges `layer` on top (see LayeredValues::apply).
  void apply(Layer layer);
  const LayeredValues& layered() const noexcept { return layered_; }
  /// For plugin values hooks, which apply their own layers (LayerKind::Plugin); errors about
  /// their values name the layer's label as the file.
  LayeredValues& layered_for_hooks() noexcept { return layered_; }
  const nlohmann::ordered_json& merged() const noexcept { return layered_.merged(); }
  /// The layer that set the value at `value_pointer`, or nullptr when no layer did (or a
  /// plugin hook did).
  const Layer* origin(std::string_view value_pointer) const;
  /// `file` and pointer in that file where the value at `value_pointer` was written; the
  /// file is empty when no layer set it.
  std::pair<std::string, std::string> site(std::string_view value_pointer) const;
  /// A Values error placed where the value at `value_pointer` was written.
  Error error_at(std::string_view value_pointer, std::string message) const;
  /// "stage=2 (family presets/families/x.json)": a value and the layer it came from.
  std::string describe(std::string_view value_pointer) const;

 private:
  LayeredValues layered_;
  std::vector<Layer> layers_;
};

// ---------------------------------------------------------------------------------------------
// Template defaults
// ---------------------------------------------------------------------------------------------

/// The values an entry template fixes: `"pinned": {"deepspeed/zero3.json.j2": ["stage"]}` in
/// its directory's defaults.json pins `stage` to the value the template's `templates` entry
/// gives it (3). Any layer may restate that value; none may change it.
struct TemplatePins {
  std::string template_name;  // e.g. "deepspeed/zero3.json.j2"
  std::string file;           // the defaults.json that pins them, for messages
  ValueDict values;           // name -> the value it must keep
  bool empty() const noexcept { return values.empty(); }
  /// The pinned names as a JSON list: the `pinned` of a plugin hook's context.
  nlohmann::ordered_json names() const;
};

/// What a template directory declares in its `defaults.json` (Helm's values.yaml):
/// `{"contract": "deepspeed", "values": {...}, "templates": {"dir/name.json.j2": {...}},
/// "pinned": {"dir/name.json.j2": ["name", ...]}}`.
struct TemplateDefaults {
  /// The values contract the templates follow ("deepspeed"), or empty.
  std::string contract;
  /// The TemplateDefault layers, lowest first: the directory's `values`, then the entry of
  /// this template under `templates` (e.g. `{"stage": 3}` for deepspeed/zero3.json.j2).
  std::vector<Layer> layers;
  /// The values this template pins (none for most templates).
  TemplatePins pins;
};

/// Checks that `values` (merged) keep every pinned value: one Values error per changed one,
/// placed where the change was written when `sources` is given, else at the value's pointer.
std::vector<Error> check_pinned_values(const TemplatePins& pins,
                                       const nlohmann::ordered_json& values,
                                       const SourcedValues* sources = nullptr);
/// The same for values in two layers, `top` over `base` (see VariantValues). Errors carry
/// value pointers only; rerun with sources to report.
std::vector<Error> check_pinned_values(const TemplatePins& pins, const ValueDict& top,
                                       const ValueDict& base);

/// Reads `<dir of template_name>/defaults.json` from the environment's search path (first
/// directory that has it). Without one, but with `contract` given (a family's `contract`),
/// reads `<contract>/defaults.json`. Without either, a template that extends another by name
/// (`{% extends "deepspeed/config.json.j2" %}`) takes its parent's defaults: contract, values
/// and pins, as if the parent were rendered. Returns no layers when there is none of these.
/// Throws zf::Error (Values) naming the file and pointer when the file is malformed.
///
///     auto defaults = zf::load_template_defaults(env, "deepspeed/zero3.json.j2");
///     // defaults.contract == "deepspeed"; defaults.layers[1].values == {"stage": 3}
TemplateDefaults load_template_defaults(const Environment& environment,
                                        std::string_view template_name,
                                        std::string_view contract = {});

// ---------------------------------------------------------------------------------------------
// The DeepSpeed values contract (DESIGN.md, docs/values.md)
// ---------------------------------------------------------------------------------------------

/// The facts of one DeepSpeed config, derived from valid values.
struct DeepSpeedFacts {
  int stage = 2;
  std::string precision = "bf16";
  std::string offload_optimizer = "none";
  std::string offload_param = "none";
  bool hf_auto = false;
  std::int64_t world_size = 1;
  std::int64_t micro_batch_size = 1;
  std::int64_t gradient_accumulation = 1;
  /// micro_batch_size * gradient_accumulation * world_size: DeepSpeed asserts it.
  std::int64_t train_batch_size = 1;
  /// The batch keys the config writes, bit i for deepspeed_batch_keys()[i] (`batch_keys`;
  /// DeepSpeed derives the others the same way): all three unless the values say otherwise.
  std::uint8_t batch_keys = 0b111;
  /// With `hf_auto` a list, the keys that say "auto", bit i for trainer_filled_keys()[i];
  /// 0 otherwise (hf_auto true: every key the config writes of them).
  std::uint32_t auto_keys = 0;
};

/// The batch keys of a DeepSpeed config in the order the template writes them:
/// train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps.
const std::vector<std::string_view>& deepspeed_batch_keys();
/// The keys the HF Trainer fills when they say "auto", as `hf_auto` names them
/// (`optimizer.params.lr`, `bf16.enabled`, ...; docs/values.md).
const std::vector<std::string_view>& trainer_filled_keys();

/// The outcome of a contract check: the facts (meaningful only without problems) and every
/// problem found, each a Values error placed at the offending value.
struct ContractCheck {
  DeepSpeedFacts facts;
  std::vector<Error> problems;
  bool ok() const noexcept { return problems.empty(); }
};

/// Checks merged values against the DeepSpeed values contract: types and ranges (stage 0-3,
/// precision fp32|fp16|bf16, offload none|cpu|nvme, sizes > 0), the combinations DeepSpeed
/// accepts and silently ignores (offload_param below stage 3, offload_optimizer at stage 0,
/// nvme optimizer offload below stage 3, round_robin_gradients outside stages 1-2), NVMe
/// without nvme_path, the batch arithmetic (global_batch_size divisible by micro batch x
/// world size), unknown keys inside the contract's sections, and near-miss top-level names.
/// With `sources`, errors name the file and pointer where each value was written; without,
/// they carry the value pointer only (cheap; rerun with sources to report).
ContractCheck check_deepspeed_values(const nlohmann::ordered_json& values,
                                     const SourcedValues* sources = nullptr);
/// The same check of values given in two layers, `top` over `base` (as VariantValues keeps a
/// variant's): a key in `top` hides the base's. Errors carry value pointers only.
ContractCheck check_deepspeed_values(const ValueDict& top, const ValueDict& base);

// ---------------------------------------------------------------------------------------------
// Family files
// ---------------------------------------------------------------------------------------------

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

/// Why a directory is on the tier search path.
enum class TierOrigin {
  Family,       ///< `tiers/` beside the family file
  Environment,  ///< a directory of ZEROFORGE_TIER_PATH
  BuiltIn,      ///< the shipped tiers, `DATA_DIR/presets/tiers`
};

/// "beside the family", "ZEROFORGE_TIER_PATH" or "built-in": how `list tiers` and messages
/// say where a tier comes from.
std::string_view to_string(TierOrigin origin) noexcept;

/// One directory of the tier search path.
struct TierDirectory {
  std::filesystem::path path;
  TierOrigin origin;
};

/// Where a tier name is looked up, first match winning: `tiers/` beside `family_file` (when
/// one is given), then each directory of the colon-separated ZEROFORGE_TIER_PATH (empty
/// entries skipped), then `data_dir/presets/tiers`. A team's repository comes first, so a
/// checkout generates the same configs whatever the environment of the machine.
///
///     auto path = zf::tier_search_path("teams/vision/family.json", "/usr/share/zeroforge");
///     // teams/vision/tiers, $ZEROFORGE_TIER_PATH..., /usr/share/zeroforge/presets/tiers
std::vector<TierDirectory> tier_search_path(const std::filesystem::path& family_file,
                                            const std::filesystem::path& data_dir);

/// The file of tier `name`: `NAME.json` in the first directory of `path` that has it, or
/// nullopt.
std::optional<std::filesystem::path> find_tier(std::string_view name,
                                               const std::vector<TierDirectory>& path);

/// The directories of `path`, comma-separated, for "not found (searched: ...)" messages.
std::string describe_search_path(const std::vector<TierDirectory>& path);

/// Checks the top-level keys of a tier file (docs/tiers.md): each must be a value the DeepSpeed
/// values contract knows (docs/values.md: the cluster facts, policy such as micro_batch_size,
/// the values plugins read) or one of `template_reads` (what the template rendered with the
/// tier reads: a team's own values); `tier` is reserved (a tier is named after its file).
/// Returns one Values error per other key, at `file` and `/KEY`, with a did-you-mean:
///
///     tiers/a100x8.json: /gpu_mem_gib: error: unknown key 'gpu_mem_gib' in a tier; did you
///     mean 'gpu_memory_gib'? ...
std::vector<Error> check_tier_keys(const nlohmann::ordered_json& tier, const std::string& file,
                                   const std::vector<std::string>& template_reads = {});

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

/// Parses a family from JSON. Throws zf::Error (Values) as `file: /pointer: error: ...` for
/// a missing or mistyped field, an unknown field, an empty axis, a duplicate axis, an exclude
/// that names no axis or matches nothing.
///
///     zf::Family family = zf::load_family("presets/families/llama-7b.json");
Family parse_family(const nlohmann::ordered_json& json, const std::string& file);
/// Reads and parses a family file.
Family load_family(const std::filesystem::path& path);

/// A tier's values, read from its file.
struct Tier {
  std::string name;
  /// The file it was read from (errors and `explain` name it).
  std::string file;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
};

// ---------------------------------------------------------------------------------------------
// Expansion
// ---------------------------------------------------------------------------------------------

/// One member of a family: a tier and a choice of axis values (or an include entry).
struct Variant {
  /// Index into Family::tiers, or npos when the family has no tiers.
  std::size_t tier = npos;
  /// Index into Family::include, or npos for a member of the axis product.
  std::size_t include = npos;
  /// For a product member: the index of its value in each axis.
  std::vector<std::size_t> axis_index;
  /// What makes it a variant: axis key (or include key) to value, in axis order.
  nlohmann::ordered_json choice = nlohmann::ordered_json::object();
  /// The choice as a file-name-friendly word: `stage-3_precision-bf16`.
  std::string slug;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

/// A family expanded against its tiers: the ordered variants, and the values of each on demand.
/// Variants are kept as runs of consecutive positions in the axis product (or include entries)
/// and made when asked for: without excludes a tier is one run, so generating N configs keeps
/// neither N records nor N choices or value trees.
class Expansion {
 public:
  /// How many variants there are.
  std::size_t size() const noexcept { return size_; }
  /// Variant `index` (< size()) in order: tier by tier (family order), the axis product (first
  /// axis slowest, excludes removed), then the include entries.
  Variant variant(std::size_t index) const;
  /// All variants in that order (made now; prefer `variant(i)` for large families).
  std::vector<Variant> variants() const;
  const Family& family() const noexcept { return family_; }
  const std::vector<Tier>& tiers() const noexcept { return tiers_; }
  /// The name of a variant's tier, or "" without tiers.
  const std::string& tier_name(const Variant& variant) const;
  /// A variant's layers with their sources: template defaults < tier < family values <
  /// family tier values < variant < overrides.
  SourcedValues values(const Variant& variant) const;
  /// The same merged values as `values(variant).merged()`, without provenance (fast).
  nlohmann::ordered_json merged(const Variant& variant) const;
  /// A human name: `medium stage=3 precision=bf16`.
  std::string describe(const Variant& variant) const;

 private:
  // One variant: its tier, and its include entry or its position in the axis product
  // (mixed radix over the axes, last axis fastest).
  struct Member {
    std::size_t tier;
    std::size_t include;
    std::size_t product;
  };
  // Variants first ... first + length - 1: `member` and the product positions after it
  // (length 1 for an include entry).
  struct Run {
    std::size_t first;
    std::size_t length;
    Member member;
  };
  void add_member(const Member& member);
  Member member(std::size_t index) const;
  friend Expansion expand_family(Family, std::vector<Tier>, std::vector<Layer>, std::vector<Layer>);
  friend class VariantValues;
  std::vector<Layer> variant_layers(const Variant& variant) const;
  std::vector<Layer> tier_layers(std::size_t tier) const;

  Family family_;
  std::vector<Tier> tiers_;
  std::vector<Layer> defaults_;
  std::vector<Layer> overrides_;
  std::vector<Run> runs_;
  std::size_t size_ = 0;
  // The merged values below the variant layer, one per tier (or one without tiers).
  std::vector<nlohmann::ordered_json> base_by_tier_;
  // Each axis value's part of a variant slug (`stage-3`), and each include entry's slug,
  // made once.
  std::vector<std::vector<std::string>> axis_slugs_;
  std::vector<std::string> include_slugs_;
};

/// The merged values of a family's variants, in two layers: the tier's values below the
/// variant layer (template defaults, tier, family), converted once per tier and shared, and on
/// top the top-level keys the variant's layers and the overrides write, each merged with what
/// lies below it. A variant's values cost the keys it changes (generate makes thousands), and
/// `Layers::merged()` equals Value::from_json(Expansion::merged(variant)), key order included.
/// Immutable once made: any number of threads may ask for values at once.
///
///     zf::VariantValues all(expansion);
///     for (std::size_t i = 0; i < expansion.size(); ++i) {
///       zf::VariantValues::Layers values = all.values(expansion.variant(i));
///       zf::check_deepspeed_values(values.top, values.base->as_dict());
///       values.top.set("tier", "medium");
///       tpl->render(zf::Value(std::move(values.top)), values.base);  // or values.merged()
///     }
class VariantValues {
 public:
  /// One variant's values.
  struct Layers {
    /// Its tier's values below the variant layer (a dict); owned by the VariantValues.
    const Value* base = nullptr;
    /// The top-level values written above the base, in first-write order; a key here hides
    /// the base's.
    ValueDict top;
    /// Both as one dict: the base's keys in order (with the top's values), then the top's others.
    Value merged() const;
  };

  /// Reads `expansion` now, and its include entries when asked for their values: it must
  /// outlive this object.
  explicit VariantValues(const Expansion& expansion);
  /// The values of `variant`, one of the expansion's.
  Layers values(const Variant& variant) const;

 private:
  std::vector<Value> bases_;  // by tier (one without tiers)
  // Each axis value and override as a patch (dotted keys nested), made once.
  std::vector<std::vector<Value>> axis_patches_;
  std::vector<Value> override_patches_;
  const std::vector<nlohmann::ordered_json>* includes_ = nullptr;  // Family::include
};

/// Expands a family: a pure function of the family, its tiers (in Family::tiers order),
/// the template default layers and the overrides (`--values`, `--set`, applied to every
/// variant above the variant layer). Throws zf::Error (Values) naming the family file and
/// pointer when the tiers do not match Family::tiers or the family expands to nothing.
///
///     auto expansion = zf::expand_family(family, tiers, defaults.layers, {});
///     for (std::size_t i = 0; i < expansion.size(); ++i)
///     render(expansion.merged(expansion.variant(i)));
Expansion expand_family(Family family, std::vector<Tier> tiers,
                        std::vector<Layer> template_defaults, std::vector<Layer> overrides);

/// Applies `--set KEY=VALUE` style dotted keys in `object` as nested objects:
/// `{"zero.stage": 3}` becomes `{"zero": {"stage": 3}}`.
nlohmann::ordered_json expand_dotted_keys(const nlohmann::ordered_json& object);

// ---------------------------------------------------------------------------------------------
// Generated config sets
// ---------------------------------------------------------------------------------------------

/// One generated config, as listed in DIR/manifest.json.
struct ManifestEntry {
  /// Relative to DIR, `/`-separated.
  std::string path;
  /// The tier name ("" without tiers).
  std::string tier;
  /// Variant::choice.
  nlohmann::ordered_json variant = nlohmann::ordered_json::object();
  /// Facts written after the variant: world_size, stage, batch sizes, ... (an object).
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  /// sha256 of the file's bytes, lowercase hex.
  std::string sha256;
  /// The companion files written next to it: kind to path relative to DIR, in the order of
  /// companion_kinds() (an object, or null for none: omitted when empty; null costs no
  /// allocation per config when there are no companions).
  nlohmann::ordered_json companions;
  /// Annotations plugins returned for this config (an object; omitted when empty).
  nlohmann::ordered_json plugins = nlohmann::ordered_json::object();
};

/// The facts a manifest entry records for a DeepSpeed config: world_size, stage, precision,
/// offload_optimizer, offload_param, hf_auto, micro_batch_size, gradient_accumulation,
/// train_batch_size; and `batch_keys` / `auto_keys` (lists) where the values write only some
/// batch keys or leave only some keys to the Trainer.
nlohmann::ordered_json facts_to_json(const DeepSpeedFacts& facts);

/// `{"zeroforge_version", "family", "template", "configs": [...]}`, the configs sorted by
/// path (so the same inputs give the same bytes).
nlohmann::ordered_json make_manifest(std::string_view zeroforge_version, const Family& family,
                                     std::vector<ManifestEntry> entries);

/// The manifest's text in pieces, for writing it without holding every entry (generate spills
/// entries as it goes): `manifest_head`, then for the i-th entry in path order
/// `manifest_separator(i)` and its `manifest_entry_text`, then `manifest_tail(count)`.
/// Concatenated, byte for byte `to_json_text(make_manifest(version, family, entries))`.
///
///     std::string text = zf::manifest_head(version, family);
///     for (std::size_t i = 0; i < sorted.size(); ++i) {
///       text += zf::manifest_separator(i);
///       text += zf::manifest_entry_text(sorted[i]);
///     }
///     text += zf::manifest_tail(sorted.size());
std::string manifest_head(std::string_view zeroforge_version, const Family& family);
/// One entry of `configs`, indented for its place in the manifest, without separator.
std::string manifest_entry_text(const ManifestEntry& entry);
/// What goes before the entry at `index` (in path order).
std::string_view manifest_separator(std::size_t index);
/// What closes a manifest of `entries` entries.
std::string_view manifest_tail(std::size_t entries);

/// Checks a rendered output path and returns it normalised: relative, `/`-separated, no
/// empty, `.` or `..` segments, not `manifest.json`. Throws zf::Error (Values) naming the
/// family file and `/output` otherwise.
std::string check_output_path(std::string_view rendered, const Family& family);

}  // namespace zf
