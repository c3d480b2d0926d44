// SPDX-License-Identifier: MIT
// Reading the values hook's input (see hook_values.hpp): every error names the JSON pointer of
// the value at fault and the layer that set it.
#include "hook_values.hpp"

#include <cmath>
#include <stdexcept>

#include "checked.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::ordered_json;

bool is_integral(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

std::int64_t as_int(const Json& v) {
  return v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
}

// The layers a user sets on purpose: an axis or include entry, a values file, --set, a
// family's values for one tier (`FILE /tiers/N/values`), or an earlier plugin. Template
// defaults, tier files and the family's base values are policy that auto-fit may change,
// except what the template pins (the context's `pinned`: zero3.json.j2's stage).
bool is_pinning(const Json& origin) {
  const std::string kind = origin.value("kind", "");
  if (kind == "variant" || kind == "values file" || kind == "--set" || kind == "plugin")
    return true;
  return kind == "family" && origin.value("label", "").find(" /tiers/") != std::string::npos;
}

}  // namespace

HookReader::HookReader(const Json& input, std::string where)
    : values_(input.at("values")),
      origins_(input.value("origins", Json::object())),
      template_pins_(input.value("context", Json::object()).value("pinned", Json::array())),
      where_(std::move(where)) {}

void HookReader::fail(const std::string& pointer, const std::string& message) const {
  std::string origin;
  for (const auto& [leaf, source] : origins_.items()) {
    if (leaf == pointer || leaf.rfind(pointer + "/", 0) == 0 || pointer.rfind(leaf + "/", 0) == 0) {
      const std::string kind = source.value("kind", ""), label = source.value("label", "");
      origin = " (set by " + (label.rfind(kind, 0) == 0 ? label : kind + " " + label) + ")";
      break;
    }
  }
  throw std::invalid_argument(where_ + pointer + ": " + message + origin);
}

const Json* HookReader::find(const std::string& pointer) const {
  Json::json_pointer ptr(pointer);
  return values_.contains(ptr) ? &values_.at(ptr) : nullptr;
}

bool HookReader::pinned(const std::string& pointer) const {
  for (const auto& name : template_pins_) {
    if (name.is_string() && pointer == "/" + name.get<std::string>()) return true;
  }
  auto it = origins_.find(pointer);
  return it != origins_.end() && is_pinning(*it);
}

std::int64_t HookReader::positive_int(const std::string& pointer, const Json& v) const {
  if (!is_integral(v) || as_int(v) <= 0) fail(pointer, "expected an integer > 0, got " + v.dump());
  return as_int(v);
}

double HookReader::number(const std::string& pointer, const Json& v, double minimum,
                          bool inclusive) const {
  bool ok = v.is_number() && (inclusive ? v.get<double>() >= minimum : v.get<double>() > minimum);
  if (!ok) {
    fail(pointer, std::string("expected a number ") + (inclusive ? ">= " : "> ") +
                      Json(minimum).dump() + ", got " + v.dump());
  }
  return v.get<double>();
}

const Json& HookReader::tier_fact(const std::string& key, const std::string& who,
                                  const char* what) const {
  const Json* v = find("/" + key);
  if (v == nullptr || v->is_null()) fail("/" + key, who + " needs " + what + ", found nothing");
  return *v;
}

std::string describe_context(const Json& context, bool with_family) {
  std::string out;
  const std::string family = with_family ? context.value("family", "") : "";
  const std::string tier = context.value("tier", "");
  if (!family.empty()) out = "family " + family;
  if (!tier.empty()) out += (out.empty() ? "tier " : ", tier ") + tier;
  if (auto it = context.find("variant"); it != context.end() && it->is_object() && !it->empty()) {
    std::string variant;
    for (const auto& [key, value] : it->items()) {
      variant += (variant.empty() ? "" : " ") + key + "=" +
                 (value.is_string() ? value.get<std::string>() : value.dump());
    }
    out += (out.empty() ? "variant " : ", variant ") + variant;
  }
  return out.empty() ? "" : out + ": ";
}

Model read_model(const Json& object, const std::string& data_dir, const FieldError& fail,
                 const FileReader& read) {
  const Json& model = object.at("model");
  Model out;
  Inputs& in = out.inputs;
  if (model.is_string()) {
    ModelPreset preset;
    try {
      preset = load_model_preset(model.get<std::string>(), data_dir, read);
    } catch (const std::invalid_argument& e) {
      fail("model", e.what());
    }
    out.name = preset.name;
    in.params = preset.params;
    in.largest_layer_params = preset.largest_layer_params;
    in.shape = preset.shape;
  } else if (model.is_object()) {
    ModelPreset shape =
        read_model_shape(model, [&](const std::string& key, const std::string& message) {
          fail(key.empty() ? "model" : "model/" + key, message);
        });
    out.name = "custom";
    in.params = shape.params;
    in.largest_layer_params = shape.largest_layer_params;
    in.shape = shape.shape;
  } else {
    fail("model", "expected a model preset name or a shape object, got " + model.dump());
  }
  auto number = [&](const char* key, const Json& v) {
    if (!v.is_number() || v.get<double>() < 0)
      fail(key, "expected a number >= 0.0, got " + v.dump());
    return v.get<double>();
  };
  if (auto it = object.find("seq_len"); it != object.end()) {
    if (!is_integral(*it) || as_int(*it) <= 0)
      fail("seq_len", "expected an integer > 0, got " + it->dump());
    in.shape->seq_len = as_int(*it);
  }
  if (auto c = object.find("activation_checkpointing"); c != object.end()) {
    auto checkpointing =
        c->is_string() ? checkpointing_from_string(c->get<std::string>()) : std::nullopt;
    if (!checkpointing)
      fail("activation_checkpointing", "expected none, selective or full, got " + c->dump());
    in.checkpointing = *checkpointing;
  }
  if (auto h = object.find("headroom"); h != object.end()) in.headroom = number("headroom", *h);
  // A context calibrated on the cluster (docs/estimator.md) reaches the hook as it reaches
  // `estimate --cuda-context-gib`.
  if (auto c = object.find("cuda_context_gib"); c != object.end())
    in.cuda_context_gib = number("cuda_context_gib", *c);
  if (auto a = object.find("attention"); a != object.end()) {
    auto attention = a->is_string() ? attention_from_string(a->get<std::string>()) : std::nullopt;
    if (!attention) fail("attention", "expected eager, sdpa or flash, got " + a->dump());
    in.attention = *attention;
  }
  if (auto l = object.find("loss"); l != object.end()) {
    auto loss = l->is_string() ? loss_from_string(l->get<std::string>()) : std::nullopt;
    if (!loss) fail("loss", "expected hf or fused, got " + l->dump());
    in.loss = *loss;
  }
  return out;
}

void read_cluster(const HookReader& r, Inputs& in, const std::string& who,
                  bool capacities_required) {
  const Json& precision = r.tier_fact("precision", who, "the precision");
  auto named_precision =
      precision.is_string() ? precision_from_string(precision.get<std::string>()) : std::nullopt;
  if (!named_precision)
    r.fail("/precision", "expected bf16, fp16 or fp32, got " + precision.dump());
  in.precision = *named_precision;
  in.gpus_per_node =
      r.positive_int("/gpus_per_node", r.tier_fact("gpus_per_node", who, "gpus_per_node"));
  in.nodes = r.positive_int("/nodes", r.tier_fact("nodes", who, "nodes"));
  const std::optional<std::int64_t> all_gpus = checked_product({in.gpus_per_node, in.nodes});
  if (!all_gpus) {
    r.fail("/nodes", beyond_int64("gpus_per_node x nodes = " + std::to_string(in.gpus_per_node) +
                                  " x " + std::to_string(in.nodes)));
  }
  const std::int64_t world = *all_gpus;
  if (const Json* w = r.find("/world_size");
      w && !w->is_null() && (!is_integral(*w) || as_int(*w) != world)) {
    r.fail("/world_size", who + " models data parallelism over every GPU; world_size=" + w->dump() +
                              " is not gpus_per_node x nodes = " + std::to_string(world));
  }
  auto capacity = [&](const char* key, const char* what) -> std::optional<double> {
    const std::string pointer = std::string("/") + key;
    if (capacities_required) return r.number(pointer, r.tier_fact(key, who, what), 0, false);
    const Json* v = r.find(pointer);
    if (v == nullptr || v->is_null()) return std::nullopt;
    return r.number(pointer, *v, 0, false);
  };
  in.gpu_memory_gib = capacity("gpu_memory_gib", "the GPU memory (gpu_memory_gib, per GPU)");
  in.cpu_memory_gib = capacity("cpu_memory_gib", "the host memory (cpu_memory_gib, per node)");
  auto bucket = [&](const char* key, std::int64_t& into) {
    std::string pointer = std::string("/zero/") + key;
    if (const Json* v = r.find(pointer); v && !v->is_null()) into = r.positive_int(pointer, *v);
  };
  bucket("reduce_bucket_size", in.reduce_bucket_size);
  bucket("allgather_bucket_size", in.allgather_bucket_size);
  bucket("stage3_prefetch_bucket_size", in.stage3_prefetch_bucket_size);
  bucket("stage3_max_live_parameters", in.stage3_max_live_parameters);
}

}  // namespace zf::memory
