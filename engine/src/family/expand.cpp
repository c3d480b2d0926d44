// SPDX-License-Identifier: MIT
// Family expansion: family + tiers + overrides -> ordered variants (a pure function), and the
// layered values of one variant, built on demand so memory does not grow with the variant count.
#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>

#include "json_members.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/sourced_values.hpp"
#include "zeroforge/tiers.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> split_dotted(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// {"a.b": v} -> {"a": {"b": v}} for one key.
Json nest(const std::string& key, Json value) {
  auto parts = split_dotted(key);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    Json wrapper = Json::object();
    wrapper[*it] = std::move(value);
    value = std::move(wrapper);
  }
  return value;
}

std::string value_pointer_of(const std::string& dotted_key) {
  std::string pointer;
  for (const auto& part : split_dotted(dotted_key)) pointer += "/" + escape_pointer_segment(part);
  return pointer;
}

// The same merge as LayeredValues::apply, without provenance.
void merge_into(Json& target, const Json& patch) {
  detail::MemberIndex index(target,
                            patch.size());  // constant-time lookups, as LayeredValues::merge
  for (const auto& [key, value] : patch.items()) {
    Json* it = index.find(key);
    if (value.is_object() && !value.empty() && it != nullptr && it->is_object()) {
      merge_into(*it, value);
    } else if (it != nullptr) {
      *it = value;
    } else {
      detail::append_member(target, index, key, value);
    }
  }
}

std::string slug_word(const Json& value) {
  // Integers, the usual non-string choice, without nlohmann's serializer (which costs more
  // than the rest of a slug; families list thousands of include entries).
  std::string text = value.is_string()            ? value.get<std::string>()
                     : value.is_number_integer()  ? std::to_string(value.get<long long>())
                     : value.is_number_unsigned() ? std::to_string(value.get<unsigned long long>())
                                                  : value.dump();
  for (char& c : text) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!keep) c = '-';
  }
  return text;
}

// `key-word`: one choice in a variant's slug.
std::string slug_part(const std::string& key, const Json& value) {
  return key + '-' + slug_word(value);
}

std::string shown(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

nlohmann::ordered_json expand_dotted_keys(const nlohmann::ordered_json& object) {
  Json out = Json::object();
  for (const auto& [key, value] : object.items()) merge_into(out, nest(key, value));
  return out;
}

const std::string& Expansion::tier_name(const Variant& variant) const {
  static const std::string none;
  return variant.tier == Variant::npos ? none : family_.tiers[variant.tier].name;
}

std::vector<Layer> Expansion::tier_layers(std::size_t tier) const {
  std::vector<Layer> layers;
  if (tier != Variant::npos) {
    const Tier& t = tiers_[tier];
    layers.push_back(Layer{LayerSource{LayerKind::Tier, t.file}, t.values, t.file, "", ""});
  }
  for (const auto& shared : family_.values_files) {
    layers.push_back(
        Layer{LayerSource{LayerKind::Family, shared.file}, shared.values, shared.file, "", ""});
  }
  layers.push_back(Layer{LayerSource{LayerKind::Family, family_.file}, family_.values, family_.file,
                         "/values", ""});
  if (tier != Variant::npos && !family_.tiers[tier].values.empty()) {
    std::string pointer = "/tiers/" + std::to_string(tier) + "/values";
    layers.push_back(Layer{LayerSource{LayerKind::Family, family_.file + " " + pointer},
                           family_.tiers[tier].values, family_.file, pointer, ""});
  }
  return layers;
}

std::vector<Layer> Expansion::variant_layers(const Variant& variant) const {
  std::vector<Layer> layers;
  if (variant.include != Variant::npos) {
    std::string pointer = "/include/" + std::to_string(variant.include);
    Json values = expand_dotted_keys(variant.choice);
    layers.push_back(Layer{LayerSource{LayerKind::Variant, family_.file + " " + pointer},
                           std::move(values), family_.file, pointer, ""});
    return layers;
  }
  for (std::size_t a = 0; a < family_.axes.size(); ++a) {
    const Axis& axis = family_.axes[a];
    std::size_t index = variant.axis_index[a];
    std::string pointer = "/axes/" + escape_pointer_segment(axis.key) + "/" + std::to_string(index);
    Json values = nest(axis.key, axis.values[index]);
    layers.push_back(Layer{LayerSource{LayerKind::Variant, family_.file + " " + pointer},
                           std::move(values), family_.file, pointer, value_pointer_of(axis.key)});
  }
  return layers;
}

SourcedValues Expansion::values(const Variant& variant) const {
  SourcedValues values;
  for (const auto& layer : defaults_) values.apply(layer);
  for (auto& layer : tier_layers(variant.tier)) values.apply(std::move(layer));
  for (auto& layer : variant_layers(variant)) values.apply(std::move(layer));
  for (const auto& layer : overrides_) values.apply(layer);
  return values;
}

nlohmann::ordered_json Expansion::merged(const Variant& variant) const {
  Json merged = base_by_tier_[variant.tier == Variant::npos ? 0 : variant.tier];
  if (variant.include != Variant::npos) {
    merge_into(merged, expand_dotted_keys(variant.choice));
  } else {
    for (std::size_t a = 0; a < family_.axes.size(); ++a) {
      const Axis& axis = family_.axes[a];
      merge_into(merged, nest(axis.key, axis.values[variant.axis_index[a]]));
    }
  }
  for (const auto& layer : overrides_) merge_into(merged, layer.values);
  return merged;
}

std::string Expansion::describe(const Variant& variant) const {
  std::string out = tier_name(variant);
  for (const auto& [key, value] : variant.choice.items()) {
    if (!out.empty()) out += ' ';
    out += key + '=' + shown(value);
  }
  return out.empty() ? family_.name : out;
}

namespace {

// `patch` layered over `below`, as merge_into layers JSON: a non-empty object merges into an
// object key by key; anything else replaces.
Value merged(const Value& below, const Value& patch) {
  if (!patch.is_dict() || patch.as_dict().empty() || !below.is_dict()) return patch;
  ValueDict out = below.as_dict();
  for (const auto& [key, value] : patch.as_dict()) {
    const Value* under = out.find(key);
    Value result = under != nullptr ? merged(*under, value) : value;
    out.set(key, std::move(result));
  }
  return Value(std::move(out));
}

}  // namespace

VariantValues::VariantValues(const Expansion& expansion) {
  for (const auto& base : expansion.base_by_tier_) {
    bases_.push_back(Value::from_json(base));
  }
  for (const Axis& axis : expansion.family_.axes) {
    auto& patches = axis_patches_.emplace_back();
    for (const auto& value : axis.values)
      patches.push_back(Value::from_json(nest(axis.key, value)));
  }
  includes_ = &expansion.family_.include;
  for (const auto& layer : expansion.overrides_) {
    override_patches_.push_back(Value::from_json(layer.values));
  }
}

VariantValues::Layers VariantValues::values(const Variant& variant) const {
  Layers layers;
  layers.base = &bases_[variant.tier == Variant::npos ? 0 : variant.tier];
  // Room for the keys the layers usually write, and a few a caller adds (generate's names):
  // the top grows once, not key by key.
  layers.top.reserve(axis_patches_.size() + override_patches_.size() + 4);
  auto apply_key = [&](const std::string& key, const Value& value) {
    const Value* below = layers.top.find(key);
    if (below == nullptr) below = layers.base->as_dict().find(key);
    layers.top.set(key, below != nullptr ? merged(*below, value) : value);
  };
  auto apply = [&](const Value& patch) {
    for (const auto& [key, value] : patch.as_dict()) apply_key(key, value);
  };
  // The same layers, in the same order, as Expansion::merged.
  if (variant.include != Variant::npos) {
    // The entry's keys straight from its JSON (dotted ones nested first): pipelines list
    // thousands of entries, and a patch made per entry ahead of time costs more than this.
    for (const auto& [key, value] : (*includes_)[variant.include].items()) {
      if (key == "tier") continue;
      if (key.find('.') == std::string::npos) {
        apply_key(key, Value::from_json(value));
      } else {
        apply(Value::from_json(nest(key, value)));
      }
    }
  } else {
    for (std::size_t a = 0; a < axis_patches_.size(); ++a)
      apply(axis_patches_[a][variant.axis_index[a]]);
  }
  for (const auto& patch : override_patches_) apply(patch);
  return layers;
}

Value VariantValues::Layers::merged() const {
  // ValueDict::set keeps a replaced key's position and appends a new one, as the JSON did.
  ValueDict dict = base->as_dict();
  for (const auto& [key, value] : top) dict.set(key, value);
  return Value(std::move(dict));
}

void Expansion::add_member(const Member& member) {
  if (!runs_.empty()) {
    Run& last = runs_.back();
    if (member.include == Variant::npos && last.member.include == Variant::npos &&
        last.member.tier == member.tier && last.member.product + last.length == member.product) {
      ++last.length;
      ++size_;
      return;
    }
  }
  runs_.push_back({size_, 1, member});
  ++size_;
}

Expansion::Member Expansion::member(std::size_t index) const {
  if (index >= size_)
    throw std::out_of_range("Expansion::variant: index " + std::to_string(index) + " of " +
                            std::to_string(size_));
  auto run = std::upper_bound(runs_.begin(), runs_.end(), index,
                              [](std::size_t i, const Run& r) { return i < r.first; });
  --run;
  Member found = run->member;
  found.product += index - run->first;
  return found;
}

Variant Expansion::variant(std::size_t index) const {
  const Member member = this->member(index);
  Variant variant;
  variant.tier = member.tier;
  variant.include = member.include;
  if (member.include != Variant::npos) {
    // Keys of a JSON object are distinct: appended without a search.
    const Json& entry = family_.include[member.include];
    auto& choice = variant.choice.get_ref<Json::object_t&>();
    choice.reserve(entry.size());
    for (const auto& [key, value] : entry.get_ref<const Json::object_t&>()) {
      if (key != "tier") choice.emplace_back(key, value);
    }
  } else {
    variant.axis_index.resize(family_.axes.size());
    std::size_t rest = member.product;
    for (std::size_t a = family_.axes.size(); a-- > 0;) {
      std::size_t n = family_.axes[a].values.size();
      variant.axis_index[a] = rest % n;
      rest /= n;
    }
    // Axis keys are distinct (they are the keys of the family's `axes` object).
    auto& choice = variant.choice.get_ref<Json::object_t&>();
    choice.reserve(family_.axes.size());
    for (std::size_t a = 0; a < family_.axes.size(); ++a) {
      choice.emplace_back(family_.axes[a].key, family_.axes[a].values[variant.axis_index[a]]);
    }
  }
  std::string slug;
  if (member.include != Variant::npos) {
    slug = include_slugs_[member.include];
  } else {
    for (std::size_t a = 0; a < family_.axes.size(); ++a) {
      if (!slug.empty()) slug += '_';
      slug += axis_slugs_[a][variant.axis_index[a]];
    }
  }
  variant.slug = slug.empty() ? "config" : slug;
  return variant;
}

std::vector<Variant> Expansion::variants() const {
  std::vector<Variant> all;
  all.reserve(size_);
  for (std::size_t i = 0; i < size_; ++i) all.push_back(variant(i));
  return all;
}

Expansion expand_family(Family family, std::vector<Tier> tiers,
                        std::vector<Layer> template_defaults, std::vector<Layer> overrides) {
  // What the family's axes, tiers and excludes say together: still the family file's own
  // problem (`family.invalid`, as family_file.cpp's).
  auto fail = [&](const std::string& pointer, const std::string& message) {
    throw CodedError(Error(ErrorKind::Values, message, family.file, pointer),
                     codes::family_invalid);
  };
  if (tiers.size() != family.tiers.size())
    fail("/tiers", "internal: tiers do not match the family");
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i].name != family.tiers[i].name)
      fail("/tiers/" + std::to_string(i), "internal: tier mismatch");
  }

  // The product is walked position by position (excludes are matched on each), so its size
  // is bounded before the walk: 40 axes of 2 values would spin for hours (and 64 overflow).
  constexpr std::size_t kMaxProduct = 10'000'000;
  std::size_t product_size = 1;
  for (const Axis& axis : family.axes) {
    if (axis.values.size() > kMaxProduct / product_size) {
      fail("/axes", "the axes make more than " + std::to_string(kMaxProduct) +
                        " combinations; a family is for the configs one runs (split it, or "
                        "narrow the axes)");
    }
    product_size *= axis.values.size();
  }

  Expansion expansion;
  std::vector<std::size_t> tier_indices;
  if (family.tiers.empty()) {
    tier_indices.push_back(Variant::npos);
  } else {
    for (std::size_t i = 0; i < family.tiers.size(); ++i) tier_indices.push_back(i);
  }
  // Each exclude as (axis index, value) pairs; kTier stands for the `tier` key.
  constexpr std::size_t kTier = Variant::npos;
  std::vector<std::vector<std::pair<std::size_t, const Json*>>> excludes;
  for (std::size_t e = 0; e < family.exclude.size(); ++e) {
    const Json& exclude = family.exclude[e];
    auto& terms = excludes.emplace_back();
    for (const auto& [key, value] : exclude.items()) {
      std::size_t axis = kTier;
      if (key != "tier") {
        auto it = std::find_if(family.axes.begin(), family.axes.end(),
                               [&name = key](const Axis& a) { return a.key == name; });
        if (it == family.axes.end())
          fail("/exclude/" + std::to_string(e), "'" + key + "' is not an axis");
        axis = static_cast<std::size_t>(it - family.axes.begin());
      }
      terms.emplace_back(axis, &value);
    }
  }
  std::vector<bool> exclude_used(family.exclude.size(), false);
  bool product = !family.axes.empty() || family.include.empty();

  for (std::size_t tier : tier_indices) {
    const TierRef* tier_ref = tier == Variant::npos ? nullptr : &family.tiers[tier];
    // An entry's `tier` names a tier by its name or as the family wrote it (a path).
    auto is_this_tier = [tier_ref](const Json& value) {
      return value.is_string()
                 ? (tier_ref != nullptr && tier_ref->matches(value.get<std::string>()))
                 : false;
    };
    // The axis product, last axis fastest, like nested loops written in axis order.
    std::vector<std::size_t> index(family.axes.size(), 0);
    std::size_t position = 0;
    while (product) {
      bool excluded = false;
      for (std::size_t e = 0; e < excludes.size(); ++e) {
        bool match = std::all_of(excludes[e].begin(), excludes[e].end(), [&](const auto& term) {
          if (term.first == kTier) return is_this_tier(*term.second);
          return family.axes[term.first].values[index[term.first]] == *term.second;
        });
        if (match) {
          exclude_used[e] = true;
          excluded = true;
        }
      }
      if (!excluded) expansion.add_member({tier, Variant::npos, position});
      ++position;
      std::size_t a = family.axes.size();
      while (a > 0 && ++index[a - 1] == family.axes[a - 1].values.size()) index[--a] = 0;
      if (a == 0) break;
    }
    for (std::size_t i = 0; i < family.include.size(); ++i) {
      const Json& entry = family.include[i];
      if (auto it = entry.find("tier"); it != entry.end() && !is_this_tier(*it)) continue;
      expansion.add_member({tier, i, 0});
    }
  }
  for (std::size_t e = 0; e < exclude_used.size(); ++e) {
    if (!exclude_used[e]) fail("/exclude/" + std::to_string(e), "this exclude matches no variant");
  }
  if (expansion.size_ == 0) fail("/exclude", "the family expands to no variants");

  expansion.family_ = std::move(family);
  expansion.tiers_ = std::move(tiers);
  expansion.defaults_ = std::move(template_defaults);
  expansion.overrides_ = std::move(overrides);
  for (const Axis& axis : expansion.family_.axes) {
    auto& slugs = expansion.axis_slugs_.emplace_back();
    for (const auto& value : axis.values) slugs.push_back(slug_part(axis.key, value));
  }
  expansion.include_slugs_.reserve(expansion.family_.include.size());
  for (const Json& entry : expansion.family_.include) {
    std::string slug;
    for (const auto& [key, value] : entry.items()) {
      if (key == "tier") continue;
      if (!slug.empty()) slug += '_';
      slug += slug_part(key, value);
    }
    expansion.include_slugs_.push_back(std::move(slug));
  }
  for (std::size_t tier : tier_indices) {
    Json base = Json::object();
    for (const auto& layer : expansion.defaults_) merge_into(base, layer.values);
    for (const auto& layer : expansion.tier_layers(tier)) merge_into(base, layer.values);
    expansion.base_by_tier_.push_back(std::move(base));
  }
  return expansion;
}

}  // namespace zf
