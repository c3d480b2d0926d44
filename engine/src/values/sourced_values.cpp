// SPDX-License-Identifier: MIT
// SourcedValues: layered values that can say in which file, at which pointer, a value was
// written (for contract errors and `explain`).
#include "zeroforge/sourced_values.hpp"

#include <utility>

namespace zf {

void SourcedValues::apply(Layer layer) {
  layered_.apply(layer.source, layer.values);
  layers_.push_back(std::move(layer));
}

const Layer* SourcedValues::origin(std::string_view value_pointer) const {
  const LayerSource* source = layered_.origin(value_pointer);
  if (source == nullptr) return nullptr;
  // LayeredValues keeps its layers in apply order, as we do: the same index.
  auto index = static_cast<std::size_t>(source - layered_.layers().data());
  return index < layers_.size() ? &layers_[index] : nullptr;
}

std::pair<std::string, std::string> SourcedValues::site(std::string_view value_pointer) const {
  const Layer* layer = origin(value_pointer);
  if (layer == nullptr) {
    const LayerSource* source = layered_.origin(value_pointer);
    return {source ? source->label : "", std::string(value_pointer)};
  }
  std::string_view rest = value_pointer;
  if (rest.starts_with(layer->value_pointer)) rest.remove_prefix(layer->value_pointer.size());
  return {layer->file, layer->file_pointer + std::string(rest)};
}

std::pair<std::string, std::string> SourcedValues::site_in_layer(
    std::size_t layer, std::string_view value_pointer) const {
  if (layer >= layers_.size()) {
    const auto& layers = layered_.layers();
    return {layer < layers.size() ? layers[layer].label : "", std::string(value_pointer)};
  }
  const Layer& written = layers_[layer];
  std::string_view rest = value_pointer;
  if (rest.starts_with(written.value_pointer)) rest.remove_prefix(written.value_pointer.size());
  return {written.file, written.file_pointer + std::string(rest)};
}

Error SourcedValues::error_at(std::string_view value_pointer, std::string message) const {
  auto [file, pointer] = site(value_pointer);
  if (file.empty())
    return Error(ErrorKind::Values, std::move(message), "", std::string(value_pointer));
  return Error(ErrorKind::Values, std::move(message), std::move(file), std::move(pointer));
}

std::string SourcedValues::describe(std::string_view value_pointer) const {
  std::string name(value_pointer.substr(value_pointer.starts_with('/') ? 1 : 0));
  for (auto& c : name) {
    if (c == '/') c = '.';
  }
  std::string out = name;
  auto pointer = nlohmann::ordered_json::json_pointer(std::string(value_pointer));
  if (merged().contains(pointer)) {
    const auto& value = merged().at(pointer);
    out += '=' + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (const LayerSource* source = layered_.origin(value_pointer)) {
    out += std::string(" (") + layer_kind_name(source->kind) + ' ' + source->label + ')';
  }
  return out;
}

}  // namespace zf
