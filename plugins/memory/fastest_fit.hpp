// SPDX-License-Identifier: MIT
// auto_fit.objective "fastest": every stage x offload x micro batch x activation checkpointing
// candidate that fits, ranked by the step-time model's throughput at the family's global
// batch (docs/estimator.md, "The objective").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "auto_fit.hpp"
#include "step_time.hpp"

namespace zf::memory {

/// What auto-fit optimises: the first rung of the ladder that fits (today's), or the
/// highest predicted throughput among all that fit.
enum class Objective { Fits, Fastest };
std::optional<Objective> objective_from_string(std::string_view name);
const char* to_string(Objective objective);
/// The names objective_from_string takes, in the order the docs list them.
inline constexpr std::string_view kObjectiveNames[] = {"fits", "fastest"};

/// One configuration that fits, with its predicted step.
struct Candidate {
  Rung rung;
  Checkpointing checkpointing = Checkpointing::None;
  std::int64_t micro_batch_size = 1;
  std::int64_t gradient_accumulation = 1;
  StepTime step;
};

/// A fastest-fit problem: the fit's request (its base checkpointing is replaced by each of
/// `checkpointings`, tried in that order) and the hardware the step time runs on.
struct FastestRequest {
  FitRequest fit;
  std::vector<Checkpointing> checkpointings = {Checkpointing::None, Checkpointing::Full};
  Hardware hardware;
};

/// The outcome. With candidates, `fit` is the first one's (rung, batch figures, estimate; its
/// `rejected` holds the rungs that fit at no micro batch under the chosen checkpointing) and
/// `ranking` every candidate, fastest first: ties (equal tokens/s) go to the ladder's order,
/// then to less recomputation, then to the larger micro batch. Without candidates, fit.fits
/// is false and the caller explains it with fit() (nothing fits under any checkpointing).
struct FastestResult {
  FitResult fit;
  Checkpointing checkpointing = Checkpointing::None;
  std::vector<Candidate> ranking;
};

/// Throws FitInputError as fit() does, and std::invalid_argument for an empty
/// `checkpointings`.
FastestResult fastest(const FastestRequest& request);

}  // namespace zf::memory
