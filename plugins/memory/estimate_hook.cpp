// SPDX-License-Identifier: MIT
// The estimate record (see estimate_hook.hpp): the `estimate` option read and checked, the
// config's stage, offload, micro batch and tier read from its values, one estimate.
#include "estimate_hook.hpp"

#include <algorithm>
#include <stdexcept>

#include "estimate_command.hpp"
#include "hook_values.hpp"
#include "memory_estimate_record.hpp"
#include "zeroforge/memory_estimate.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::ordered_json;

// "option estimate.model/layers" as "option estimate.model.layers".
[[noreturn]] void option_error(const std::string& key, const std::string& message) {
  std::string dotted = key;
  std::replace(dotted.begin(), dotted.end(), '/', '.');
  throw std::invalid_argument("option estimate" + (dotted.empty() ? "" : "." + dotted) + ": " +
                              message);
}

// The option as an object: a bare string names the model.
Json option_object(const Json& option) {
  if (option.is_string()) return {{"model", option}};
  if (!option.is_object()) {
    option_error("",
                 "expected a model preset name or an object with \"model\", got " + option.dump());
  }
  for (const auto& item : option.items()) {
    const std::string& key = item.key();
    if (std::find_if(std::begin(kEstimateKeys), std::end(kEstimateKeys),
                     [&](const char* k) { return key == k; }) == std::end(kEstimateKeys)) {
      std::string known;
      for (const char* k : kEstimateKeys) known += (known.empty() ? "" : ", ") + std::string(k);
      option_error(key, "unknown key '" + key + "' (expected " + known + ")");
    }
  }
  if (!option.contains("model"))
    option_error("model", "the estimate needs the model: a preset name (llama-2-7b) or its shape");
  return option;
}

Offload offload_at(const HookReader& r, const char* key) {
  const std::string pointer = std::string("/") + key;
  const Json* v = r.find(pointer);
  if (v == nullptr || v->is_null()) return Offload::None;
  std::optional<Offload> offload =
      v->is_string() ? offload_from_string(v->get<std::string>()) : std::nullopt;
  if (!offload) r.fail(pointer, "expected none, cpu or nvme, got " + v->dump());
  return *offload;
}

}  // namespace

Json estimate_values(const Json& input, const Json& option, const std::string& data_dir,
                     const FileReader& read) {
  const Json object = option_object(option);
  Model model = read_model(object, data_dir, option_error, read);
  Inputs in = model.inputs;
  Json record;
  Json published;  // the same, in the SDK's memory estimate record
  try {
    // Problems with the config's own values are the values contract's to report (it runs
    // after the hooks, with the file and pointer where each value was written).
    HookReader r(input, "");
    const Json* stage = r.find("/stage");
    if (stage == nullptr || !stage->is_number_integer() || stage->get<int>() < 0 ||
        stage->get<int>() > 3) {
      r.fail("/stage",
             "expected a stage 0-3, got " + (stage ? stage->dump() : std::string("nothing")));
    }
    in.stage = stage->get<int>();
    in.offload_optimizer = offload_at(r, "offload_optimizer");
    in.offload_param = offload_at(r, "offload_param");
    const Json* micro = r.find("/micro_batch_size");
    if (micro == nullptr) r.fail("/micro_batch_size", "expected an integer > 0, got nothing");
    in.micro_batch_size = r.positive_int("/micro_batch_size", *micro);
    read_cluster(r, in, "the estimate", false);
    Estimate e = estimate(in);
    record = to_json(in, e);
    record["model"]["name"] = model.name;
  } catch (const std::invalid_argument& e) {
    record = {{"skipped", e.what()}};
    published = skipped_record(e.what());
  }
  if (published.is_null()) published = memory_estimate_record(record, nullptr);
  return {{"manifest",
           {{"estimate", std::move(record)},
            {std::string(zf::sdk::kMemoryEstimateKey), std::move(published)}}}};
}

}  // namespace zf::memory
