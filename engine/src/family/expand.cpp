// SPDX-License-Identifier: MIT
// Family expansion: family + tiers + overrides -> ordered variants (a pure function), and the
// layered values of one variant, built on demand so memory does not grow with the variant count.
#include <algorithm>
#include <cctype>
#include <utility>

#include "zeroforge/family.hpp"

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
  for (const auto& [key, value] : patch.items()) {
    auto it = target.find(key);
    if (value.is_object() && !value.empty() && it != target.end() && it->is_object()) {
      merge_into(*it, value);
    } else {
      target[key] = value;
    }
  }
}

std::string slug_word(const Json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  for (char& c : text) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!keep) c = '-';
  }
  return text;
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
    layers.push_back(Layer{{LayerKind::Tier, t.file}, t.values, t.file, "", ""});
  }
  layers.push_back(Layer{{LayerKind::Family, family_.file}, family_.values, family_.file, "/values", ""});
  if (tier != Variant::npos && !family_.tiers[tier].values.empty()) {
    std::string pointer = "/tiers/" + std::to_string(tier) + "/values";
    layers.push_back(Layer{{LayerKind::Family, family_.file + " " + pointer},
                           family_.tiers[tier].values, family_.file, pointer, ""});
  }
  return layers;
}

std::vector<Layer> Expansion::variant_layers(const Variant& variant) const {
  std::vector<Layer> layers;
  if (variant.include != Variant::npos) {
    std::string pointer = "/include/" + std::to_string(variant.include);
    layers.push_back(Layer{{LayerKind::Variant, family_.file + " " + pointer},
                           expand_dotted_keys(variant.choice), family_.file, pointer, ""});
    return layers;
  }
  for (std::size_t a = 0; a < family_.axes.size(); ++a) {
    const Axis& axis = family_.axes[a];
    std::size_t index = variant.axis_index[a];
    std::string pointer =
        "/axes/" + escape_pointer_segment(axis.key) + "/" + std::to_string(index);
    layers.push_back(Layer{{LayerKind::Variant, family_.file + " " + pointer},
                           nest(axis.key, axis.values[index]), family_.file, pointer,
                           value_pointer_of(axis.key)});
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

Expansion expand_family(Family family, std::vector<Tier> tiers,
                        std::vector<Layer> template_defaults, std::vector<Layer> overrides) {
  auto fail = [&](const std::string& pointer, const std::string& message) {
    throw Error(ErrorKind::Values, message, family.file, pointer);
  };
  if (tiers.size() != family.tiers.size()) fail("/tiers", "internal: tiers do not match the family");
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i].name != family.tiers[i].name) fail("/tiers/" + std::to_string(i), "internal: tier mismatch");
  }

  Expansion expansion;
  std::vector<std::size_t> tier_indices;
  if (family.tiers.empty()) {
    tier_indices.push_back(Variant::npos);
  } else {
    for (std::size_t i = 0; i < family.tiers.size(); ++i) tier_indices.push_back(i);
  }
  std::vector<bool> exclude_used(family.exclude.size(), false);
  bool product = !family.axes.empty() || family.include.empty();

  for (std::size_t tier : tier_indices) {
    const std::string& tier_name = tier == Variant::npos ? std::string() : family.tiers[tier].name;
    // The axis product, last axis fastest, like nested loops written in axis order.
    std::vector<std::size_t> index(family.axes.size(), 0);
    while (product) {
      Variant variant;
      variant.tier = tier;
      variant.axis_index = index;
      for (std::size_t a = 0; a < family.axes.size(); ++a) {
        variant.choice[family.axes[a].key] = family.axes[a].values[index[a]];
      }
      bool excluded = false;
      for (std::size_t e = 0; e < family.exclude.size(); ++e) {
        bool match = true;
        for (const auto& [key, value] : family.exclude[e].items()) {
          const Json& chosen = key == "tier" ? Json(tier_name) : variant.choice.at(key);
          if (chosen != value) {
            match = false;
            break;
          }
        }
        if (match) {
          exclude_used[e] = true;
          excluded = true;
        }
      }
      if (!excluded) expansion.variants_.push_back(std::move(variant));
      std::size_t a = family.axes.size();
      while (a > 0 && ++index[a - 1] == family.axes[a - 1].values.size()) index[--a] = 0;
      if (a == 0) break;
    }
    for (std::size_t i = 0; i < family.include.size(); ++i) {
      const Json& entry = family.include[i];
      if (auto it = entry.find("tier"); it != entry.end() && *it != Json(tier_name)) continue;
      Variant variant;
      variant.tier = tier;
      variant.include = i;
      for (const auto& [key, value] : entry.items()) {
        if (key != "tier") variant.choice[key] = value;
      }
      expansion.variants_.push_back(std::move(variant));
    }
  }
  for (std::size_t e = 0; e < exclude_used.size(); ++e) {
    if (!exclude_used[e]) fail("/exclude/" + std::to_string(e), "this exclude matches no variant");
  }
  if (expansion.variants_.empty()) fail("/exclude", "the family expands to no variants");

  for (auto& variant : expansion.variants_) {
    std::string slug;
    for (const auto& [key, value] : variant.choice.items()) {
      if (!slug.empty()) slug += '_';
      slug += key + '-' + slug_word(value);
    }
    variant.slug = slug.empty() ? "config" : slug;
  }

  expansion.family_ = std::move(family);
  expansion.tiers_ = std::move(tiers);
  expansion.defaults_ = std::move(template_defaults);
  expansion.overrides_ = std::move(overrides);
  for (std::size_t tier : tier_indices) {
    Json base = Json::object();
    for (const auto& layer : expansion.defaults_) merge_into(base, layer.values);
    for (const auto& layer : expansion.tier_layers(tier)) merge_into(base, layer.values);
    expansion.base_by_tier_.push_back(std::move(base));
  }
  return expansion;
}

}  // namespace zf
