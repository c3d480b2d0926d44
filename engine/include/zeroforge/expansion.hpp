// SPDX-License-Identifier: MIT
// Expansion: a family and its tiers expanded into ordered variants, each a stack of value layers
// that remember their file and JSON pointer, and the variants' merged values made fast.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>  // full type: Variant and Expansion hold ordered_json members
#include <string>
#include <vector>

#include "zeroforge/family_file.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/tiers.hpp"
#include "zeroforge/value.hpp"

namespace zf {

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
  /// The tier of variant `index` (< size()), as `variant(index).tier` without making the
  /// variant: what `generate --tier` selects by.
  std::size_t tier_of(std::size_t index) const { return member(index).tier; }
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

}  // namespace zf
