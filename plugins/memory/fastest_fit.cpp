// SPDX-License-Identifier: MIT
// The fastest fit (see fastest_fit.hpp): the same rungs, bounds and memory test as fit(), every
// fitting micro batch that keeps the global batch, each timed by the step-time model.
#include "fastest_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zf::memory {

std::optional<Objective> objective_from_string(std::string_view name) {
  if (name == "fits") return Objective::Fits;
  if (name == "fastest") return Objective::Fastest;
  return std::nullopt;
}

const char* to_string(Objective objective) {
  return objective == Objective::Fastest ? "fastest" : "fits";
}

FastestResult fastest(const FastestRequest& request) {
  if (request.checkpointings.empty())
    throw std::invalid_argument("fastest: no activation checkpointing to try");
  const FitRequest& fit_request = request.fit;
  const BatchBounds bounds = batch_bounds(fit_request);
  const std::vector<Rung> rungs = checked_ladder(fit_request.space);

  struct Ranked {
    Candidate candidate;
    std::size_t rung_index = 0, checkpointing_index = 0;
    RungOutcome outcome;  // of its rung under its checkpointing
  };
  std::vector<Ranked> ranked;
  std::vector<std::vector<RejectedRung>> rejected(request.checkpointings.size());
  for (std::size_t c = 0; c < request.checkpointings.size(); ++c) {
    Inputs base = fit_request.base;
    base.checkpointing = request.checkpointings[c];
    for (std::size_t r = 0; r < rungs.size(); ++r) {
      RungOutcome outcome = try_rung(base, rungs[r], bounds);
      if (!outcome.fits) {
        rejected[c].push_back(outcome.rejected);
        continue;
      }
      // Every micro batch up to the largest that fits (memory grows with it), that keeps the
      // global batch: a smaller one runs more micro steps, which can pay (stage 3's
      // all-gathers, offload) or not.
      for (std::int64_t micro = bounds.lowest; micro <= outcome.largest; ++micro) {
        if (bounds.per_rank && *bounds.per_rank % micro != 0) continue;
        Inputs in = base;
        in.stage = rungs[r].stage;
        in.offload_optimizer = rungs[r].offload_optimizer;
        in.offload_param = rungs[r].offload_param;
        in.micro_batch_size = micro;
        const std::int64_t accumulation = bounds.per_rank
                                              ? *bounds.per_rank / micro
                                              : fit_request.pinned_accumulation.value_or(1);
        Candidate candidate{rungs[r], base.checkpointing, micro, accumulation,
                            step_time(in, accumulation, request.hardware)};
        ranked.push_back({candidate, r, c, outcome});
      }
    }
  }

  FastestResult out;
  if (ranked.empty()) return out;
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    // Equal to rounding (the same FLOPs summed over more or fewer micro steps) is a tie.
    const double x = a.candidate.step.tokens_per_second, y = b.candidate.step.tokens_per_second;
    if (std::abs(x - y) > 1e-9 * std::max(x, y)) return x > y;
    if (a.rung_index != b.rung_index) return a.rung_index < b.rung_index;
    if (a.checkpointing_index != b.checkpointing_index)
      return a.checkpointing_index < b.checkpointing_index;
    return a.candidate.micro_batch_size > b.candidate.micro_batch_size;
  });
  const Ranked& best = ranked.front();
  FitResult& result = out.fit;
  result.fits = true;
  result.rung = best.candidate.rung;
  result.micro_batch_size = best.candidate.micro_batch_size;
  result.largest_fitting_micro_batch = best.outcome.largest;
  result.limit = best.candidate.micro_batch_size < best.outcome.micro
                     ? MicroLimit::Throughput
                     : limit_of(fit_request, bounds, best.outcome);
  Inputs in = fit_request.base;
  in.checkpointing = best.candidate.checkpointing;
  in.stage = result.rung.stage;
  in.offload_optimizer = result.rung.offload_optimizer;
  in.offload_param = result.rung.offload_param;
  in.micro_batch_size = result.micro_batch_size;
  result.estimate = estimate(in);
  result.gradient_accumulation =
      bounds.per_rank ? std::optional<std::int64_t>(best.candidate.gradient_accumulation)
                      : fit_request.pinned_accumulation;
  result.rejected = rejected[best.checkpointing_index];
  out.checkpointing = best.candidate.checkpointing;
  for (const Ranked& r : ranked) out.ranking.push_back(r.candidate);
  return out;
}

}  // namespace zf::memory
