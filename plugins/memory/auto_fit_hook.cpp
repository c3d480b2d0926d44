// SPDX-License-Identifier: MIT
// The values hook behind tier auto-fit: `auto_fit` and the values it reads are checked with
// their JSON pointers, user-set values are pinned (the hook's origins), and the result goes
// back as values for what auto-fit may choose plus the manifest note (docs/estimator.md).
#include "auto_fit_hook.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "auto_fit.hpp"
#include "model_presets.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kKeys[] = {"model",
                                 "seq_len",
                                 "activation_checkpointing",
                                 "stages",
                                 "offload_optimizer",
                                 "offload_param",
                                 "min_micro_batch_size",
                                 "max_micro_batch_size",
                                 "headroom",
                                 "cuda_context_gib",
                                 "attention",
                                 "loss"};

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

class Reader {
 public:
  Reader(const Json& input, std::string where)
      : values_(input.at("values")),
        origins_(input.value("origins", Json::object())),
        template_pins_(input.value("context", Json::object()).value("pinned", Json::array())),
        where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    std::string origin;
    for (const auto& [leaf, source] : origins_.items()) {
      if (leaf == pointer || leaf.rfind(pointer + "/", 0) == 0 ||
          pointer.rfind(leaf + "/", 0) == 0) {
        const std::string kind = source.value("kind", ""), label = source.value("label", "");
        origin = " (set by " + (label.rfind(kind, 0) == 0 ? label : kind + " " + label) + ")";
        break;
      }
    }
    throw std::invalid_argument(where_ + pointer + ": " + message + origin);
  }

  const Json* find(const std::string& pointer) const {
    Json::json_pointer ptr(pointer);
    return values_.contains(ptr) ? &values_.at(ptr) : nullptr;
  }

  bool pinned(const std::string& pointer) const {
    for (const auto& name : template_pins_) {
      if (name.is_string() && pointer == "/" + name.get<std::string>()) return true;
    }
    auto it = origins_.find(pointer);
    return it != origins_.end() && is_pinning(*it);
  }

  std::int64_t positive_int(const std::string& pointer, const Json& v) const {
    if (!is_integral(v) || as_int(v) <= 0)
      fail(pointer, "expected an integer > 0, got " + v.dump());
    return as_int(v);
  }

  double number(const std::string& pointer, const Json& v, double minimum, bool inclusive) const {
    bool ok = v.is_number() && (inclusive ? v.get<double>() >= minimum : v.get<double>() > minimum);
    if (!ok) {
      fail(pointer, std::string("expected a number ") + (inclusive ? ">= " : "> ") +
                        Json(minimum).dump() + ", got " + v.dump());
    }
    return v.get<double>();
  }

  // A required top-level value the tier supplies.
  const Json& tier_fact(const std::string& key, const char* what) const {
    const Json* v = find("/" + key);
    if (v == nullptr || v->is_null())
      fail("/" + key, std::string("auto-fit needs ") + what + ", found nothing");
    return *v;
  }

  const Json& values() const { return values_; }

 private:
  const Json& values_;
  Json origins_;
  Json template_pins_;  // names the template pins (context.pinned)
  std::string where_;
};

// "family f, tier small, variant stage=3 precision=bf16: " from the hook's context (the
// family is left out where the CLI names its file already).
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

struct Model {
  std::string name;
  Inputs inputs;  // params, largest layer, shape
};

Model read_model(const Reader& r, const Json& auto_fit, const std::string& data_dir,
                 const std::function<void(const std::string&)>& note_input) {
  const Json* model = auto_fit.contains("model") ? &auto_fit.at("model") : nullptr;
  if (model == nullptr)
    r.fail("/auto_fit/model", "auto-fit needs the model: a preset name (llama-2-7b) or its shape");
  Model out;
  if (model->is_string()) {
    ModelPreset preset;
    try {
      preset = load_model_preset(model->get<std::string>(), data_dir);
    } catch (const std::invalid_argument& e) {
      r.fail("/auto_fit/model", e.what());
    }
    if (note_input) note_input(preset.file);
    out.name = preset.name;
    out.inputs.params = preset.params;
    out.inputs.largest_layer_params = preset.largest_layer_params;
    out.inputs.shape = preset.shape;
  } else if (model->is_object()) {
    ModelPreset shape =
        read_model_shape(*model, [&](const std::string& key, const std::string& message) {
          r.fail(key.empty() ? "/auto_fit/model" : "/auto_fit/model/" + key, message);
        });
    out.name = "custom";
    out.inputs.params = shape.params;
    out.inputs.largest_layer_params = shape.largest_layer_params;
    out.inputs.shape = shape.shape;
  } else {
    r.fail("/auto_fit/model",
           "expected a model preset name or a shape object, got " + model->dump());
  }
  if (auto it = auto_fit.find("seq_len"); it != auto_fit.end()) {
    out.inputs.shape->seq_len = r.positive_int("/auto_fit/seq_len", *it);
  }
  return out;
}

template <class T, class Parse>
std::vector<T> read_list(const Reader& r, const Json& auto_fit, const char* key, Parse parse,
                         const char* expected) {
  const std::string pointer = std::string("/auto_fit/") + key;
  const Json& list = auto_fit.at(key);
  if (!list.is_array() || list.empty()) {
    r.fail(pointer,
           std::string("expected a non-empty list of ") + expected + ", got " + list.dump());
  }
  std::vector<T> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    try {
      out.push_back(parse(list[i]));
    } catch (const std::exception&) {
      r.fail(pointer + "/" + std::to_string(i),
             std::string("expected ") + expected + ", got " + list[i].dump());
    }
  }
  return out;
}

int parse_stage(const Json& v) {
  if (!v.is_number_integer() || v.get<int>() < 0 || v.get<int>() > 3)
    throw std::invalid_argument("");
  return v.get<int>();
}

Offload parse_offload_json(const Json& v) {
  std::optional<Offload> offload =
      v.is_string() ? offload_from_string(v.get<std::string>()) : std::nullopt;
  if (!offload) throw std::invalid_argument("");
  return *offload;
}

Json rung_json(const Rung& rung) {
  return {{"stage", rung.stage},
          {"offload_optimizer", to_string(rung.offload_optimizer)},
          {"offload_param", to_string(rung.offload_param)}};
}

Json estimate_json(const Estimate& e) {
  return {{"gpu_bytes", e.total_gpu},          {"gpu_capacity_bytes", e.gpu_capacity},
          {"cpu_bytes", e.total_cpu},          {"cpu_capacity_bytes", e.cpu_capacity},
          {"nvme_bytes", e.model_states_nvme}, {"summary", describe_need(e)}};
}

}  // namespace

Json auto_fit_values(const Json& input, const std::string& data_dir,
                     const std::function<void(const std::string&)>& note_input) {
  const Json& values = input.at("values");
  auto it = values.find("auto_fit");
  if (it == values.end() || it->is_null()) return nullptr;
  const Json context = input.value("context", Json::object());
  const std::string where = describe_context(context, true);
  Reader r(input, where);
  const Json& auto_fit = *it;
  if (!auto_fit.is_object())
    r.fail("/auto_fit",
           "expected an object (or null to turn auto-fit off), got " + auto_fit.dump());
  for (const auto& item : auto_fit.items()) {
    const std::string& key = item.key();  // clang 14 cannot capture a structured binding
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) ==
        std::end(kKeys)) {
      std::string known;
      for (const char* k : kKeys) known += (known.empty() ? "" : ", ") + std::string(k);
      r.fail("/auto_fit/" + key, "unknown key '" + key + "' (expected " + known + ")");
    }
  }

  // The model and what the training run does with it.
  Model model = read_model(r, auto_fit, data_dir, note_input);
  FitRequest request;
  Inputs& in = request.base;
  in.params = model.inputs.params;
  in.largest_layer_params = model.inputs.largest_layer_params;
  in.shape = model.inputs.shape;
  if (auto c = auto_fit.find("activation_checkpointing"); c != auto_fit.end()) {
    auto checkpointing =
        c->is_string() ? checkpointing_from_string(c->get<std::string>()) : std::nullopt;
    if (checkpointing) {
      in.checkpointing = *checkpointing;
    } else {
      r.fail("/auto_fit/activation_checkpointing",
             "expected none, selective or full, got " + c->dump());
    }
  }
  if (auto h = auto_fit.find("headroom"); h != auto_fit.end()) {
    in.headroom = r.number("/auto_fit/headroom", *h, 0, true);
  }
  // A context calibrated on the cluster (docs/estimator.md) reaches auto-fit as it reaches
  // `estimate --cuda-context-gib`.
  if (auto c = auto_fit.find("cuda_context_gib"); c != auto_fit.end()) {
    in.cuda_context_gib = r.number("/auto_fit/cuda_context_gib", *c, 0, true);
  }
  if (auto a = auto_fit.find("attention"); a != auto_fit.end()) {
    auto attention = a->is_string() ? attention_from_string(a->get<std::string>()) : std::nullopt;
    if (!attention)
      r.fail("/auto_fit/attention", "expected eager, sdpa or flash, got " + a->dump());
    in.attention = *attention;
  }
  if (auto l = auto_fit.find("loss"); l != auto_fit.end()) {
    auto loss = l->is_string() ? loss_from_string(l->get<std::string>()) : std::nullopt;
    if (!loss) r.fail("/auto_fit/loss", "expected hf or fused, got " + l->dump());
    in.loss = *loss;
  }
  if (auto m = auto_fit.find("min_micro_batch_size"); m != auto_fit.end()) {
    request.min_micro_batch_size = r.positive_int("/auto_fit/min_micro_batch_size", *m);
  }
  if (auto m = auto_fit.find("max_micro_batch_size"); m != auto_fit.end()) {
    request.max_micro_batch_size = r.positive_int("/auto_fit/max_micro_batch_size", *m);
  }
  if (request.min_micro_batch_size > request.max_micro_batch_size) {
    r.fail("/auto_fit/min_micro_batch_size",
           "min_micro_batch_size=" + std::to_string(request.min_micro_batch_size) +
               " exceeds max_micro_batch_size=" + std::to_string(request.max_micro_batch_size));
  }

  // The config's own values: precision, the cluster (the tier), the buckets it sets.
  const Json& precision = r.tier_fact("precision", "the precision");
  auto named_precision =
      precision.is_string() ? precision_from_string(precision.get<std::string>()) : std::nullopt;
  if (named_precision) {
    in.precision = *named_precision;
  } else {
    r.fail("/precision", "expected bf16, fp16 or fp32, got " + precision.dump());
  }
  in.gpus_per_node =
      r.positive_int("/gpus_per_node", r.tier_fact("gpus_per_node", "gpus_per_node"));
  in.nodes = r.positive_int("/nodes", r.tier_fact("nodes", "nodes"));
  const std::int64_t world = in.gpus_per_node * in.nodes;
  if (const Json* w = r.find("/world_size");
      w && !w->is_null() && (!is_integral(*w) || as_int(*w) != world)) {
    r.fail("/world_size",
           "auto-fit models data parallelism over every GPU; world_size=" + w->dump() +
               " is not gpus_per_node x nodes = " + std::to_string(world));
  }
  in.gpu_memory_gib =
      r.number("/gpu_memory_gib",
               r.tier_fact("gpu_memory_gib", "the GPU memory (gpu_memory_gib, per GPU)"), 0, false);
  in.cpu_memory_gib = r.number(
      "/cpu_memory_gib",
      r.tier_fact("cpu_memory_gib", "the host memory (cpu_memory_gib, per node)"), 0, false);
  auto bucket = [&](const char* key, std::int64_t& into) {
    std::string pointer = std::string("/zero/") + key;
    if (const Json* v = r.find(pointer); v && !v->is_null()) into = r.positive_int(pointer, *v);
  };
  bucket("reduce_bucket_size", in.reduce_bucket_size);
  bucket("allgather_bucket_size", in.allgather_bucket_size);
  bucket("stage3_prefetch_bucket_size", in.stage3_prefetch_bucket_size);
  bucket("stage3_max_live_parameters", in.stage3_max_live_parameters);
  const Json* nvme_path = r.find("/nvme_path");
  request.space.nvme_available =
      nvme_path && nvme_path->is_string() && !nvme_path->get<std::string>().empty();

  // What auto-fit may choose: the family's lists, narrowed to a value the user pinned.
  if (auto_fit.contains("stages"))
    request.space.stages = read_list<int>(r, auto_fit, "stages", parse_stage, "stages 0-3");
  if (auto_fit.contains("offload_optimizer")) {
    request.space.offload_optimizer = read_list<Offload>(r, auto_fit, "offload_optimizer",
                                                         parse_offload_json, "none, cpu or nvme");
  }
  if (auto_fit.contains("offload_param")) {
    request.space.offload_param =
        read_list<Offload>(r, auto_fit, "offload_param", parse_offload_json, "none, cpu or nvme");
  }
  Json pinned = Json::array();
  if (r.pinned("/stage")) {
    const Json& v = *r.find("/stage");
    try {
      request.space.stages = {parse_stage(v)};
    } catch (const std::exception&) {
      r.fail("/stage", "expected a stage 0-3, got " + v.dump());
    }
    pinned.push_back("stage");
  }
  for (const char* key : {"offload_optimizer", "offload_param"}) {
    const std::string pointer = std::string("/") + key;
    if (!r.pinned(pointer)) continue;
    const Json& v = *r.find(pointer);
    try {
      (key == std::string("offload_optimizer")
           ? request.space.offload_optimizer
           : request.space.offload_param) = {parse_offload_json(v)};
    } catch (const std::exception&) {
      r.fail(pointer, "expected none, cpu or nvme, got " + v.dump());
    }
    pinned.push_back(key);
  }
  if (r.pinned("/micro_batch_size")) {
    request.pinned_micro_batch = r.positive_int("/micro_batch_size", *r.find("/micro_batch_size"));
    pinned.push_back("micro_batch_size");
  }
  const Json* global = r.find("/global_batch_size");
  if (global && !global->is_null())
    request.global_batch_size = r.positive_int("/global_batch_size", *global);
  const Json* accumulation = r.find("/gradient_accumulation");
  const bool accumulation_pinned =
      accumulation && !accumulation->is_null() && r.pinned("/gradient_accumulation");
  if (accumulation && !accumulation->is_null() &&
      (accumulation_pinned || !request.global_batch_size)) {
    request.pinned_accumulation = r.positive_int("/gradient_accumulation", *accumulation);
  }
  if (accumulation_pinned) pinned.push_back("gradient_accumulation");

  FitResult result;
  try {
    result = fit(request);
  } catch (const FitInputError& e) {
    r.fail(e.pointer(), e.what());
  }
  if (!result.fits) {
    std::string message = describe_context(context, false) + model.name + " " + result.reason;
    if (!pinned.empty()) {
      std::string list;
      for (const auto& key : pinned) {
        const Json& v = *r.find("/" + key.get<std::string>());
        list += (list.empty() ? "" : ", ") + key.get<std::string>() + "=" +
                (v.is_string() ? v.get<std::string>() : v.dump());
      }
      message += " (pinned: " + list + ")";
    }
    return {{"findings", Json::array({{{"pointer", "/auto_fit"}, {"message", message}}})}};
  }

  // Values for what auto-fit chose; pinned values stay in their own layer (and explain).
  Json chosen = Json::object();
  if (!r.pinned("/stage")) chosen["stage"] = result.rung.stage;
  if (!r.pinned("/offload_optimizer"))
    chosen["offload_optimizer"] = to_string(result.rung.offload_optimizer);
  if (!r.pinned("/offload_param")) chosen["offload_param"] = to_string(result.rung.offload_param);
  if (!request.pinned_micro_batch) chosen["micro_batch_size"] = result.micro_batch_size;
  if (request.global_batch_size && !accumulation_pinned)
    chosen["gradient_accumulation"] = *result.gradient_accumulation;

  const std::int64_t accumulation_steps = result.gradient_accumulation.value_or(1);
  Json escalated = Json::array();
  for (const auto& rejected : result.rejected) {
    Json step = rung_json(rejected.rung);
    step["micro_batch_size"] = rejected.micro_batch_size;
    step["reason"] = rejected.reason;
    escalated.push_back(std::move(step));
  }
  Json note = rung_json(result.rung);
  note["micro_batch_size"] = result.micro_batch_size;
  note["gradient_accumulation"] = accumulation_steps;
  note["world_size"] = world;
  note["train_batch_size"] = result.micro_batch_size * accumulation_steps * world;
  note["global_batch_size"] =
      request.global_batch_size ? Json(*request.global_batch_size) : Json(nullptr);
  note["largest_fitting_micro_batch_size"] = result.largest_fitting_micro_batch;
  note["micro_batch_limited_by"] = to_string(result.limit);
  note["pinned"] = std::move(pinned);
  note["escalated"] = std::move(escalated);
  note["model"] = {{"name", model.name},
                   {"params", in.params},
                   {"seq_len", in.shape->seq_len},
                   {"mlp", to_string(in.shape->mlp)},
                   {"activation_checkpointing", to_string(in.checkpointing)},
                   {"attention", to_string(in.attention)},
                   {"loss", to_string(in.loss)}};
  note["headroom"] = result.estimate.headroom_fraction;
  note["cuda_context_gib"] = in.cuda_context_gib;
  note["estimate"] = estimate_json(result.estimate);
  note["fits"] = true;

  return {{"values", std::move(chosen)}, {"manifest", {{"auto_fit", std::move(note)}}}};
}

}  // namespace zf::memory
