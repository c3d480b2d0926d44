// SPDX-License-Identifier: MIT
// What a fit assumed about the training run, as its launch must say it: the fit assumptions
// record (manifest `plugins.NAME.fit_assumptions`, fit_assumptions.hpp) turned into Trainer
// arguments and environment variables (docs/companions.md, "What auto-fit assumed").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "companions.hpp"
#include "fit_assumptions.hpp"

namespace zf::pipeline {

/// The launch half of a fit: what the companions must add so the run is the one the fit
/// sized, or the problems that stop them (pointers into the values, e.g.
/// `/auto_fit/activation_checkpointing`, placed where that value was written).
struct FitVariable {
  std::string name;   ///< ZEROFORGE_SEQ_LEN
  std::string value;  ///< "4096"
  std::string key;    ///< the record's key that sets it: seq_len
};

struct FitLaunch {
  /// TrainingArguments the fit implies, in the order they are written:
  /// `gradient_checkpointing` (only when the fit assumed it on) and `use_liger_kernel`.
  std::vector<std::pair<std::string, nlohmann::ordered_json>> training_arguments;
  /// What has no TrainingArguments field, as environment variables the training script
  /// reads: `ZEROFORGE_SEQ_LEN`, `ZEROFORGE_ATTN_IMPLEMENTATION`.
  std::vector<FitVariable> environment;
  std::vector<CompanionProblem> problems;
};

/// The launch of `fit` (a record read_fit_assumptions checked). `training_arguments`:
/// whether the companions pass the Trainer's arguments (a launch script, the accelerate
/// config or hf-args); only then is an assumption the Trainer cannot carry out (selective
/// activation checkpointing) refused. `trainer_style`: whether the launchers pass them
/// (launch.style hf-trainer); with another style the assumptions the Trainer's flags carry
/// are environment variables too, `ZEROFORGE_ACTIVATION_CHECKPOINTING` and `ZEROFORGE_LOSS`,
/// which such a script reads.
FitLaunch fit_launch(const FitAssumptions& fit, bool training_arguments, bool trainer_style = true);

}  // namespace zf::pipeline
