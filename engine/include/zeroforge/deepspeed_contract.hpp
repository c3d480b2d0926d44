// SPDX-License-Identifier: MIT
// The DeepSpeed values contract (docs/values.md), checked before rendering: the
// facts of one DeepSpeed config derived from valid values, and every problem placed at its value.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/value.hpp"

namespace zf {

class SourcedValues;

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
  /// The DeepSpeed release the values pin (`deepspeed_version`, one of deepspeed_versions());
  /// empty: the newest. The validator judges the rendered config by it.
  std::string deepspeed_version;
  /// The accelerate release the values pin (`accelerate_version`, one of
  /// accelerate_versions()); empty: the newest. With hf_auto the validator models its fills.
  std::string accelerate_version;
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
/// they carry the value pointer only (cheap; rerun with sources to report). Of the passthrough
/// value `extra` it reads only the kind (an object, null, or anything else, which it refuses):
/// import checks an object `extra` as `{}` (import/regenerate.hpp), so a check that looks
/// inside `extra` must change that too.
ContractCheck check_deepspeed_values(const nlohmann::ordered_json& values,
                                     const SourcedValues* sources = nullptr);
/// The same check of values given in two layers, `top` over `base` (as VariantValues keeps a
/// variant's): a key in `top` hides the base's. Errors carry value pointers only.
ContractCheck check_deepspeed_values(const ValueDict& top, const ValueDict& base);

}  // namespace zf
