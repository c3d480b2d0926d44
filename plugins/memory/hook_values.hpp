// SPDX-License-Identifier: MIT
// Reading the memory plugin's values-hook input, shared by tier auto-fit and the estimate
// record: values by JSON pointer with errors naming the layer that set them, pinned values,
// the model and training keys, and the cluster facts a tier supplies.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "estimator.hpp"
#include "model_presets.hpp"

namespace zf::memory {

/// One config's values as the hook sees them ({"values", "origins", "context"}).
class HookReader {
 public:
  /// `where` prefixes every error ("family f, tier small: ").
  HookReader(const nlohmann::ordered_json& input, std::string where);

  /// Throws std::invalid_argument: `WHERE POINTER: MESSAGE (set by LAYER)`.
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const;
  /// The value at `pointer`, or nullptr.
  const nlohmann::ordered_json* find(const std::string& pointer) const;
  /// Set on purpose (by a variant, a values file, --set, a tier's family values, a plugin)
  /// or pinned by the template: auto-fit leaves it alone.
  bool pinned(const std::string& pointer) const;
  std::int64_t positive_int(const std::string& pointer, const nlohmann::ordered_json& v) const;
  double number(const std::string& pointer, const nlohmann::ordered_json& v, double minimum,
                bool inclusive) const;
  /// A required top-level value the tier supplies; the error says `WHO needs WHAT`.
  const nlohmann::ordered_json& tier_fact(const std::string& key, const std::string& who,
                                          const char* what) const;
  const std::string& where() const { return where_; }

 private:
  const nlohmann::ordered_json& values_;
  nlohmann::ordered_json origins_;
  nlohmann::ordered_json template_pins_;  // names the template pins (context.pinned)
  std::string where_;
};

/// "family f, tier small, variant stage=3 precision=bf16: " from the hook's context (the
/// family left out where the CLI names its file already); "" for an empty context.
std::string describe_context(const nlohmann::ordered_json& context, bool with_family);

/// A model and what the training script does with it.
struct Model {
  std::string name;  ///< the preset's, or "custom" for a shape
  Inputs inputs;     ///< params, largest layer, shape, checkpointing, attention, loss, ...
};

/// Reads the model keys of `object` (an `auto_fit` value or the `estimate` option): `model`
/// (a preset name or file, or a shape object), `seq_len`, `activation_checkpointing`,
/// `attention`, `loss`, `headroom`, `cuda_context_gib`. Other keys are left to the caller.
/// A bad value goes to `fail` with its key (`model`, `model/layers`, `seq_len`, ...), which
/// must throw; a preset file is read with `read`.
Model read_model(const nlohmann::ordered_json& object, const std::string& data_dir,
                 const FieldError& fail, const FileReader& read);

/// Reads the cluster and config facts into `in`: `precision`, `gpus_per_node` x `nodes`
/// (a `world_size` that differs is refused: `who`, "auto-fit" or "the estimate", models
/// data parallelism over every GPU), `gpu_memory_gib` and `cpu_memory_gib` (required when
/// `capacities_required`, else read when present) and the buckets the config sets
/// (`zero.reduce_bucket_size`, ...).
void read_cluster(const HookReader& r, Inputs& in, const std::string& who,
                  bool capacities_required);

}  // namespace zf::memory
