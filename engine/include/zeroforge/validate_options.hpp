// SPDX-License-Identifier: MIT
// zf::ValidateOptions: what the validator assumes about how a config is used (world size, the
// HF Trainer, the training command, the DeepSpeed release). Plain data the rule families read.
#pragma once

#include <optional>
#include <string>

#include "zeroforge/training_command.hpp"

namespace zf {

/// The largest `world_size` the commands and the Python module take (far beyond any cluster;
/// it keeps the batch arithmetic on a world size in range).
inline constexpr long long kMaxWorldSize = 1000000000;

/// What the validator assumes about how the config is used.
struct ValidateOptions {
  /// Data-parallel world size DeepSpeed will see. Without it the batch check says which
  /// world sizes the batch keys are consistent with.
  std::optional<long long> world_size;
  /// The HF Trainer loads the config and fills "auto" on the keys it knows.
  bool hf = false;
  /// Warnings count as errors (their severity becomes Error).
  bool strict = false;
  /// The training command the config will run under; each disagreement is a finding.
  std::optional<TrainingCommand> against;
  /// The DeepSpeed release ("0.16.2", one of deepspeed_versions()) whose keys, defaults and
  /// checks the config is judged by; empty: the newest.
  std::string deepspeed_version;
  /// With `hf`: the accelerate release ("0.23.0", one of accelerate_versions()) whose
  /// DeepSpeedPlugin the Trainer hands the config to, after its own fills; empty: the newest.
  std::string accelerate_version;
};

}  // namespace zf
