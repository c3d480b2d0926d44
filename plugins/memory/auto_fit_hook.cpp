// SPDX-License-Identifier: MIT
// The values hook behind tier auto-fit: `auto_fit` and the values it reads are checked with
// their JSON pointers, user-set values are pinned (the hook's origins), and the result goes
// back as values for what auto-fit may choose plus the manifest note (docs/estimator.md).
#include "auto_fit_hook.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "auto_fit.hpp"
#include "checked.hpp"
#include "estimate_command.hpp"
#include "fastest_fit.hpp"
#include "fit_choices.hpp"
#include "hook_values.hpp"
#include "memory_estimate_record.hpp"
#include "step_record.hpp"
#include "zeroforge/fit_assumptions.hpp"
#include "zeroforge/memory_estimate.hpp"
#include "zeroforge/nearest_name.hpp"

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
                                 "loss",
                                 "objective"};

template <class T, class Parse>
std::vector<T> read_list(const HookReader& r, const Json& auto_fit, const char* key, Parse parse,
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
  return {{"gpu_bytes", e.total_gpu},
          {"gpu_capacity_bytes", e.gpu_capacity},
          {"gpu_usable_bytes", e.gpu_usable},
          {"cpu_bytes", e.total_cpu},
          {"cpu_capacity_bytes", e.cpu_capacity},
          {"nvme_bytes", e.model_states_nvme},
          {"summary", describe_need(e)}};
}

// The estimate of `rung` at `micro` over `base`, as `zeroforge estimate --format json` prints
// it for the same model, stage, offload, micro batch and tier (its "suggestion" aside).
Json estimate_record(const Inputs& base, const Rung& rung, std::int64_t micro, const Estimate& e,
                     const std::string& model) {
  Inputs in = base;
  in.stage = rung.stage;
  in.offload_optimizer = rung.offload_optimizer;
  in.offload_param = rung.offload_param;
  in.micro_batch_size = micro;
  Json out = to_json(in, e);
  out["model"]["name"] = model;
  return out;
}

// Which pinned values make an impossible fit impossible: the smallest sets of pins whose
// freeing lets it fit. Several single pins that each do are all named ("each"); otherwise the
// first smallest set ("together"); none when the model does not fit the tier whatever is
// pinned. `freed` is the fit without the (first) blamed set. At most 2^5 fits: five choices.
struct Blame {
  std::vector<std::string> pins;
  bool jointly = false;
  FitResult freed;
};

Blame blame_pins(const std::vector<std::string>& pinned,
                 const std::function<FitResult(const std::vector<std::string>&)>& fit_with) {
  Blame blame;
  const std::size_t n = pinned.size();
  for (std::size_t size = 1; size <= n && blame.pins.empty(); ++size) {
    // Every subset of `size` pins, in the choices' order (bit i set: pin i is freed).
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != size) continue;
      std::vector<std::string> kept, freed;
      for (std::size_t i = 0; i < n; ++i) ((mask >> i) & 1u ? freed : kept).push_back(pinned[i]);
      FitResult without = fit_with(kept);
      if (!without.fits) continue;
      if (blame.pins.empty()) blame.freed = std::move(without);
      if (size > 1) {
        blame.pins = std::move(freed);
        blame.jointly = true;
        break;
      }
      blame.pins.push_back(freed.front());
    }
  }
  return blame;
}

// auto_fit.objective: "fits" (the default) or "fastest"; anything else is refused at its
// pointer, with the name it most likely meant.
Objective read_objective(const HookReader& r, const Json& auto_fit) {
  auto it = auto_fit.find("objective");
  if (it == auto_fit.end()) return Objective::Fits;
  std::optional<Objective> objective =
      it->is_string() ? objective_from_string(it->get<std::string>()) : std::nullopt;
  if (!objective) {
    std::string message = "expected \"fits\" or \"fastest\", got " + it->dump();
    if (it->is_string()) {
      const std::string guess = sdk::nearest_name(
          it->get<std::string>(),
          std::vector<std::string_view>(std::begin(kObjectiveNames), std::end(kObjectiveNames)));
      if (!guess.empty()) message += "; did you mean '" + guess + "'?";
    }
    r.fail("/auto_fit/objective", message);
  }
  return *objective;
}

// The step time's hardware from the member's values (a tier's gpu, gpu_tflops, ...), filled
// as `zeroforge estimate --tier` fills it. A gpu the table lacks is a label for people there
// (a warning): here the record says so (`gpu_not_in_table`) and the default GPU is assumed.
struct HookHardware {
  Hardware hw;
  std::optional<std::string> gpu_not_in_table;
};

HookHardware read_hardware(const HookReader& r, Precision precision) {
  HardwareGiven given;
  HookHardware out;
  if (const Json* gpu = r.find("/gpu"); gpu && !gpu->is_null()) {
    if (!gpu->is_string()) r.fail("/gpu", "expected a GPU name, got " + gpu->dump());
    if (find_gpu(gpu->get<std::string>())) {
      given.gpu = gpu->get<std::string>();
    } else {
      out.gpu_not_in_table = gpu->get<std::string>();
    }
  }
  auto rate = [&](const char* key, std::optional<double>& into) {
    const std::string pointer = std::string("/") + key;
    if (const Json* v = r.find(pointer); v && !v->is_null()) into = r.number(pointer, *v, 0, false);
  };
  rate("gpu_tflops", given.gpu_tflops);
  rate("intra_node_gbs", given.intra_node_gbs);
  rate("inter_node_gbs", given.inter_node_gbs);
  rate("pcie_gbs", given.pcie_gbs);
  rate("nvme_gbs", given.nvme_gbs);
  if (const Json* v = r.find("/cpu_cores"); v && !v->is_null())
    given.cpu_cores = r.positive_int("/cpu_cores", *v);
  out.hw = resolve_hardware(given, precision);
  return out;
}

// How many of the ranking's candidates the records keep: enough to see the runner-up and what
// the other stages and offloads would cost, few enough to read.
constexpr std::size_t kRankingShown = 5;

Json ranking_json(const std::vector<Candidate>& ranking) {
  Json out = Json::array();
  for (std::size_t i = 0; i < ranking.size() && i < kRankingShown; ++i) {
    const Candidate& c = ranking[i];
    Json entry = rung_json(c.rung);
    entry["activation_checkpointing"] = to_string(c.checkpointing);
    entry["micro_batch_size"] = c.micro_batch_size;
    entry["gradient_accumulation"] = c.gradient_accumulation;
    entry["tokens_per_second"] = rounded_rate(c.step.tokens_per_second);
    entry["seconds"] = rounded_seconds(c.step.seconds);
    entry["parts"] = step_parts_json(c.step);
    out.push_back(std::move(entry));
  }
  return out;
}

// Refuses a key of `auto_fit` the hook does not read, with the name it most likely meant.
void check_auto_fit_keys(const HookReader& r, const Json& auto_fit) {
  for (const auto& item : auto_fit.items()) {
    const std::string& key = item.key();  // clang 14 cannot capture a structured binding
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) !=
        std::end(kKeys))
      continue;
    std::string known;
    for (const char* k : kKeys) known += (known.empty() ? "" : ", ") + std::string(k);
    // The same did-you-mean rule the host applies to values, tiers and families.
    const std::string guess =
        sdk::nearest_name(key, std::vector<std::string_view>(std::begin(kKeys), std::end(kKeys)));
    r.fail("/auto_fit/" + key, "unknown key '" + key + "' (expected " + known + ")" +
                                   (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
  }
}

// What the hook asks fit() for: the model on the member's cluster, what auto-fit may choose,
// the values a layer pinned among those choices (each narrows the search to itself), and
// what "best" means.
struct HookRequest {
  FitRequest request;
  std::vector<std::string> pinned;
  Objective objective = Objective::Fits;
};

HookRequest read_request(const HookReader& r, const Json& auto_fit, const Inputs& model) {
  HookRequest h;
  FitRequest& request = h.request;
  Inputs& in = request.base;
  in = model;
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
  read_cluster(r, in, "auto-fit", true);
  h.objective = read_objective(r, auto_fit);
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
  // The values a layer pinned (hook_values.cpp says which layers pin) among those auto-fit may
  // choose (fit_choices.hpp).
  const Json* global = r.find("/global_batch_size");
  if (global && !global->is_null())
    request.global_batch_size = r.positive_int("/global_batch_size", *global);
  const Json* accumulation = r.find("/gradient_accumulation");
  const bool has_accumulation = accumulation && !accumulation->is_null();
  // Without a global batch the accumulation is no choice: it stays as given.
  if (has_accumulation && !request.global_batch_size)
    request.pinned_accumulation = r.positive_int("/gradient_accumulation", *accumulation);
  for (const FitChoice& choice : kFitChoices) {
    const std::string name(choice.value);
    if (!r.pinned("/" + name)) continue;
    if (name == "gradient_accumulation" && !(has_accumulation && request.global_batch_size))
      continue;
    h.pinned.push_back(name);
  }
  return h;
}

// `request` narrowed to the pinned values `names`.
FitRequest with_pins(const HookReader& r, const FitRequest& request,
                     const std::vector<std::string>& names) {
  FitRequest into = request;
  for (const auto& name : names) {
    const std::string pointer = "/" + name;
    const Json& v = *r.find(pointer);
    try {
      if (name == "stage") {
        into.space.stages = {parse_stage(v)};
      } else if (name == "offload_optimizer") {
        into.space.offload_optimizer = {parse_offload_json(v)};
      } else if (name == "offload_param") {
        into.space.offload_param = {parse_offload_json(v)};
      }
    } catch (const std::exception&) {
      r.fail(pointer, name == "stage" ? "expected a stage 0-3, got " + v.dump()
                                      : "expected none, cpu or nvme, got " + v.dump());
    }
    if (name == "micro_batch_size") into.pinned_micro_batch = r.positive_int(pointer, v);
    if (name == "gradient_accumulation") into.pinned_accumulation = r.positive_int(pointer, v);
  }
  return into;
}

// The fit, and for "fastest" what it weighed and on which hardware. The fastest fit's
// checkpointing becomes the request's (h.request.base), which the records then state.
struct HookFit {
  FitResult result;
  std::optional<FastestResult> fastest;
  std::optional<HookHardware> hardware;
};

HookFit run_fit(const HookReader& r, const Json& auto_fit, HookRequest& h) {
  HookFit f;
  Inputs& in = h.request.base;
  try {
    if (h.objective == Objective::Fastest) {
      f.hardware = read_hardware(r, in.precision);
      FastestRequest fastest_request;
      fastest_request.fit = with_pins(r, h.request, h.pinned);
      fastest_request.hardware = f.hardware->hw;
      // The training script's checkpointing when the family states it; else auto-fit may
      // choose between none and full, the two every launch style carries out.
      if (auto_fit.contains("activation_checkpointing"))
        fastest_request.checkpointings = {in.checkpointing};
      f.fastest = fastest(fastest_request);
      if (f.fastest->fit.fits) {
        f.result = f.fastest->fit;
        in.checkpointing = f.fastest->checkpointing;
      } else {
        // Nothing fits under any checkpointing: the fit under the last (the one that saves
        // most memory) explains it as for "fits".
        in.checkpointing = fastest_request.checkpointings.back();
      }
    }
    if (!f.result.fits) f.result = fit(with_pins(r, h.request, h.pinned));
  } catch (const FitInputError& e) {
    r.fail(e.pointer(), e.what());
  }
  return f;
}

// The finding of a fit that failed: why, and which pinned values make it impossible (the
// finding points at the first, so generate names the file and pointer that wrote it).
Json unfit_finding(const HookReader& r, const Json& context, const std::string& model,
                   const HookRequest& h, const FitResult& result) {
  std::string message = describe_context(context, false) + model + " " + result.reason;
  Blame blame = blame_pins(h.pinned, [&](const std::vector<std::string>& names) {
    try {
      return fit(with_pins(r, h.request, names));
    } catch (const FitInputError&) {
      return FitResult{};  // these pins cannot hold together: no fit either
    }
  });
  auto shown = [&](const std::string& key) {
    const Json& v = *r.find("/" + key);
    return key + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  };
  auto listed = [&](const std::vector<std::string>& keys, const char* last) {
    std::string out;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      out += (i == 0 ? "" : i + 1 == keys.size() ? last : ", ") + shown(keys[i]);
    }
    return out;
  };
  std::string pointer = "/auto_fit";
  if (blame.pins.empty()) {
    if (!h.pinned.empty()) message += " (pinned: " + listed(h.pinned, ", ") + ")";
  } else {
    pointer = "/" + blame.pins.front();
    const FitResult& freed = blame.freed;
    const std::string alternative = describe(freed.rung) + " fits with micro batch " +
                                    std::to_string(freed.micro_batch_size) + " (" +
                                    describe_need(freed.estimate) + ")";
    if (blame.jointly) {
      message += "; the pinned " + listed(blame.pins, " and ") +
                 " together make it impossible: without them, " + alternative;
    } else if (blame.pins.size() == 1) {
      message += "; the pinned " + shown(blame.pins.front()) +
                 " makes it impossible: without it, " + alternative;
    } else {
      message += "; the pinned " + listed(blame.pins, " and ") +
                 " each make it impossible: without " + shown(blame.pins.front()) + ", " +
                 alternative;
    }
  }
  return {{"findings", Json::array({{{"pointer", pointer}, {"message", message}}})}};
}

// Values for what auto-fit chose; pinned values stay in their own layer (and explain).
Json chosen_values(const HookRequest& h, const FitResult& result) {
  const std::vector<std::string>& pinned = h.pinned;
  const bool accumulation_pinned =
      std::find(pinned.begin(), pinned.end(), "gradient_accumulation") != pinned.end();
  Json chosen = Json::object();
  for (const FitChoice& choice : kFitChoices) {
    const std::string name(choice.value);
    if (std::find(pinned.begin(), pinned.end(), name) != pinned.end()) continue;
    if (name == "stage") chosen[name] = result.rung.stage;
    if (name == "offload_optimizer") chosen[name] = to_string(result.rung.offload_optimizer);
    if (name == "offload_param") chosen[name] = to_string(result.rung.offload_param);
    if (name == "micro_batch_size") chosen[name] = result.micro_batch_size;
    if (name == "gradient_accumulation" && h.request.global_batch_size && !accumulation_pinned)
      chosen[name] = *result.gradient_accumulation;
  }
  return chosen;
}

// The manifest's `auto_fit` record: what was chosen, what was tried and refused on the way,
// the model and margins it assumed, and for "fastest" the ranking it chose from.
Json fit_note(const HookReader& r, const HookRequest& h, const HookFit& f,
              const std::string& model) {
  const Inputs& in = h.request.base;
  const FitResult& result = f.result;
  const std::int64_t world = in.gpus_per_node * in.nodes;  // read_cluster checked the product
  const std::int64_t accumulation_steps = result.gradient_accumulation.value_or(1);
  Json escalated = Json::array();
  for (const auto& rejected : result.rejected) {
    Json step = rung_json(rejected.rung);
    step["micro_batch_size"] = rejected.micro_batch_size;
    step["gpu_bytes"] = rejected.estimate.total_gpu;
    step["gpu_capacity_bytes"] = rejected.estimate.gpu_capacity;
    step["gpu_usable_bytes"] = rejected.estimate.gpu_usable;
    step["cpu_bytes"] = rejected.estimate.total_cpu;
    step["cpu_capacity_bytes"] = rejected.estimate.cpu_capacity;
    step["reason"] = rejected.reason;
    escalated.push_back(std::move(step));
  }
  Json note = rung_json(result.rung);
  note["micro_batch_size"] = result.micro_batch_size;
  note["gradient_accumulation"] = accumulation_steps;
  note["world_size"] = world;
  // fit() chose them to keep the global batch, or from a pinned accumulation: checked here.
  const std::optional<std::int64_t> train =
      checked_product({result.micro_batch_size, accumulation_steps, world});
  if (!train) {
    r.fail("/gradient_accumulation",
           beyond_int64("micro_batch_size x gradient_accumulation x world_size = " +
                        std::to_string(result.micro_batch_size) + " x " +
                        std::to_string(accumulation_steps) + " x " + std::to_string(world)));
  }
  note["train_batch_size"] = *train;
  note["global_batch_size"] =
      h.request.global_batch_size ? Json(*h.request.global_batch_size) : Json(nullptr);
  note["largest_fitting_micro_batch_size"] = result.largest_fitting_micro_batch;
  note["micro_batch_limited_by"] = to_string(result.limit);
  note["pinned"] = h.pinned;
  note["escalated"] = std::move(escalated);
  note["model"] = {{"name", model},
                   {"params", in.params},
                   {"seq_len", in.shape->seq_len},
                   {"mlp", to_string(in.shape->mlp)},
                   {"activation_checkpointing", to_string(in.checkpointing)},
                   {"attention", to_string(in.attention)},
                   {"loss", to_string(in.loss)}};
  note["headroom"] = result.estimate.headroom_fraction;
  note["cuda_context_gib"] = in.cuda_context_gib;
  note["gpu_memory_margin"] = in.gpu_memory_margin;
  note["estimate"] = estimate_json(result.estimate);
  note["fits"] = true;
  if (f.fastest && f.fastest->fit.fits) {
    // What "fastest" weighed: the candidates that fit, fastest first (the first is the one
    // chosen), and the chosen one's step as `zeroforge estimate` prints it.
    const StepTime& chosen_step = f.fastest->ranking.front().step;
    note["objective"] = to_string(h.objective);
    note["candidates"] = f.fastest->ranking.size();
    note["ranking"] = ranking_json(f.fastest->ranking);
    note["step"] = step_json(chosen_step, f.hardware->hw);
    if (f.hardware->gpu_not_in_table) note["gpu_not_in_table"] = *f.hardware->gpu_not_in_table;
  }
  return note;
}

}  // namespace

Json auto_fit_values(const Json& input, const std::string& data_dir, const FileReader& read) {
  const Json& values = input.at("values");
  auto it = values.find("auto_fit");
  if (it == values.end() || it->is_null()) return nullptr;
  const Json context = input.value("context", Json::object());
  const std::string where = describe_context(context, true);
  HookReader r(input, where);
  const Json& auto_fit = *it;
  if (!auto_fit.is_object())
    r.fail("/auto_fit",
           "expected an object (or null to turn auto-fit off), got " + auto_fit.dump());
  check_auto_fit_keys(r, auto_fit);

  // The model and what the training run does with it.
  if (!auto_fit.contains("model"))
    r.fail("/auto_fit/model", "auto-fit needs the model: a preset name (llama-2-7b) or its shape");
  const Model model = read_model(
      auto_fit, data_dir,
      [&](const std::string& key, const std::string& message) {
        r.fail("/auto_fit/" + key, message);
      },
      read);
  HookRequest h = read_request(r, auto_fit, model.inputs);
  const HookFit f = run_fit(r, auto_fit, h);
  if (!f.result.fits) return unfit_finding(r, context, model.name, h, f.result);

  const Inputs& in = h.request.base;
  const FitResult& result = f.result;
  Json note = fit_note(r, h, f, model.name);
  Json record =
      estimate_record(in, result.rung, result.micro_batch_size, result.estimate, model.name);
  Json published = memory_estimate_record(record, &note);
  // What the launch must carry out, in the SDK's shape (zeroforge/fit_assumptions.hpp): the
  // companions read this record, never `auto_fit`, which stays this plugin's own layout.
  Json assumptions = {{"schema_version", zf::sdk::kFitAssumptionsVersion},
                      {"activation_checkpointing", to_string(in.checkpointing)},
                      {"attention", to_string(in.attention)},
                      {"loss", to_string(in.loss)},
                      {"seq_len", in.shape->seq_len}};
  return {{"values", chosen_values(h, result)},
          {"label", "auto-fit"},
          {"manifest",
           {{"auto_fit", std::move(note)},
            {"estimate", std::move(record)},
            {std::string(zf::sdk::kMemoryEstimateKey), std::move(published)},
            {std::string(zf::sdk::kFitAssumptionsKey), std::move(assumptions)}}}};
}

}  // namespace zf::memory
