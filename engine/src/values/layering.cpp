// SPDX-License-Identifier: MIT
// LayeredValues: deep merge of value layers with per-leaf provenance.
#include <algorithm>
#include <utility>

#include "json_members.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf {

const char* layer_kind_name(LayerKind kind) noexcept {
  switch (kind) {
    case LayerKind::TemplateDefault:
      return "template default";
    case LayerKind::Tier:
      return "tier";
    case LayerKind::Family:
      return "family";
    case LayerKind::Variant:
      return "variant";
    case LayerKind::ValuesFile:
      return "values file";
    case LayerKind::Set:
      return "--set";
    case LayerKind::Plugin:
      return "plugin";
  }
  return "layer";
}

std::string escape_pointer_segment(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// For a --set layer (labelled "--set KEY=VALUE", as parse_set reads it): the first segment
// of KEY, before its last, that names a value which is set and is not an object
// (`--set stage.x=1` over stage=2), as a pointer; "" when there is none. The VALUE may be an
// object replacing anything: that is what the user wrote.
std::string scalar_on_key_path(const nlohmann::ordered_json& merged, std::string_view label) {
  constexpr std::string_view kPrefix = "--set ";
  if (!label.starts_with(kPrefix)) return "";
  std::string_view key = label.substr(kPrefix.size());
  key = key.substr(0, key.find('='));
  const nlohmann::ordered_json* node = &merged;
  std::string pointer;
  for (std::size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
    const std::string segment(key.substr(0, dot));
    key.remove_prefix(dot + 1);
    auto it = node->find(segment);
    if (it == node->end() || it->is_null()) return "";
    pointer += "/" + escape_pointer_segment(segment);
    if (!it->is_object()) return pointer;
    node = &*it;
  }
  return "";
}

}  // namespace

void LayeredValues::apply(LayerSource source, const nlohmann::ordered_json& object) {
  if (!object.is_object()) {
    throw Error(ErrorKind::Values,
                "values must be a JSON object, got " + std::string(object.type_name()),
                source.label, "");
  }
  // A dotted --set key says "inside this object"; over a scalar it would silently replace the
  // scalar with an object. Other layers replace values wholesale on purpose.
  if (source.kind == LayerKind::Set) {
    if (std::string at = scalar_on_key_path(merged_, source.label); !at.empty()) {
      const auto& old = merged_.at(nlohmann::ordered_json::json_pointer(at));
      std::string name = at.substr(1);
      std::replace(name.begin(), name.end(), '/', '.');
      std::string set_by;
      if (const LayerSource* from = origin(at)) {
        const std::string kind = layer_kind_name(from->kind);
        set_by =
            " (" + (from->label.starts_with(kind) ? from->label : kind + " " + from->label) + ")";
      }
      throw Error(ErrorKind::Values,
                  "this would replace " + name + "=" + old.dump() + set_by +
                      " with an object; a dotted key sets a value inside an object",
                  source.label, at);
    }
  }
  layers_.push_back(std::move(source));
  merge(merged_, object, "", layers_.size() - 1);
}

struct LayeredValues::UserGuard {
  std::vector<Replacement> replaced;
};

std::vector<LayeredValues::Replacement> LayeredValues::apply_under_user(
    LayerSource source, const nlohmann::ordered_json& object) {
  if (!object.is_object()) {
    throw Error(ErrorKind::Values,
                "values must be a JSON object, got " + std::string(object.type_name()),
                source.label, "");
  }
  UserGuard guard;
  layers_.push_back(std::move(source));
  merge(merged_, object, "", layers_.size() - 1, &guard);
  return std::move(guard.replaced);
}

bool LayeredValues::user_set_at_or_below(const std::string& pointer) const {
  auto is_user = [this](std::size_t layer) {
    const LayerKind kind = layers_[layer].kind;
    return kind == LayerKind::Set || kind == LayerKind::ValuesFile;
  };
  if (auto it = origins_.find(pointer); it != origins_.end() && is_user(it->second)) return true;
  const std::string prefix = pointer + "/";
  for (auto it = origins_.lower_bound(prefix);
       it != origins_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    if (is_user(it->second)) return true;
  }
  return false;
}

void LayeredValues::record_replacement(const std::string& pointer,
                                       const nlohmann::ordered_json& before,
                                       const nlohmann::ordered_json& after,
                                       UserGuard& guard) const {
  if (before == after) return;
  const LayerSource* source = origin(pointer);
  if (source == nullptr) return;  // nothing set it: a value of its own, not a replacement
  guard.replaced.push_back({pointer, before, static_cast<std::size_t>(source - layers_.data())});
}

void LayeredValues::merge(nlohmann::ordered_json& target, const nlohmann::ordered_json& patch,
                          const std::string& pointer, std::size_t layer, UserGuard* guard) {
  // Indexed: ordered_json's own find and operator[] search the members one by one, which made
  // a layer of a million keys (an imported config's `extra`) quadratic.
  detail::MemberIndex index(target, patch.size());
  for (const auto& [key, value] : patch.items()) {
    std::string child = pointer + "/" + escape_pointer_segment(key);
    nlohmann::ordered_json* it = index.find(key);
    if (value.is_object() && !value.empty() && it != nullptr && it->is_object()) {
      merge(*it, value, child, layer, guard);
      continue;
    }
    if (guard != nullptr && it != nullptr) {
      // The user's value, or an object holding one, stays whole.
      if (user_set_at_or_below(child)) continue;
      record_replacement(child, *it, value, *guard);
    }
    forget_below(child);
    nlohmann::ordered_json& slot =
        it != nullptr ? *it : detail::append_member(target, index, key, {});
    if (value.is_object() && !value.empty()) {
      slot = nlohmann::ordered_json::object();
      merge(slot, value, child, layer, guard);
    } else {
      slot = value;
      origins_[child] = layer;
    }
  }
}

void LayeredValues::forget_below(const std::string& pointer) {
  origins_.erase(pointer);
  std::string prefix = pointer + "/";
  auto it = origins_.lower_bound(prefix);
  while (it != origins_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    it = origins_.erase(it);
  }
}

const LayerSource* LayeredValues::origin(std::string_view json_pointer) const {
  std::string pointer(json_pointer);
  while (!pointer.empty()) {
    auto it = origins_.find(pointer);
    if (it != origins_.end()) return &layers_[it->second];
    auto slash = pointer.rfind('/');
    if (slash == std::string::npos) break;
    pointer.resize(slash);
  }
  // An object has origins only for its leaves (`--set zero.offload_optimizer.device=cpu`
  // records /zero/offload_optimizer/device): the first leaf below names the layer.
  const std::string prefix = std::string(json_pointer) + "/";
  auto below = origins_.lower_bound(prefix);
  if (!json_pointer.empty() && below != origins_.end() && below->first.starts_with(prefix))
    return &layers_[below->second];
  return nullptr;
}

void LayeredValues::collect(const nlohmann::ordered_json& node, const std::string& pointer,
                            std::vector<std::pair<std::string, LayerSource>>& out) const {
  if (node.is_object() && !node.empty()) {
    for (const auto& [key, value] : node.items()) {
      collect(value, pointer + "/" + escape_pointer_segment(key), out);
    }
    return;
  }
  if (const LayerSource* source = origin(pointer)) out.emplace_back(pointer, *source);
}

std::vector<std::pair<std::string, LayerSource>> LayeredValues::leaves() const {
  std::vector<std::pair<std::string, LayerSource>> out;
  collect(merged_, "", out);
  return out;
}

}  // namespace zf
