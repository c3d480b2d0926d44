// SPDX-License-Identifier: MIT
// Tier auto-fit's search (docs/estimator.md, "Auto-fit in families"): the ladder, the largest
// fitting micro batch per rung, and the global batch kept exactly or refused.
#include "auto_fit.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "checked.hpp"

namespace zf::memory {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(std::int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", static_cast<double>(bytes) / kGiB);
  return buffer;
}

bool contains(const std::vector<Offload>& list, Offload value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool fits(const Estimate& e) { return e.gpu_fits.value_or(false) && e.cpu_fits.value_or(false); }

// The largest divisor of `n` that is at most `limit` (n, limit >= 1).
std::int64_t largest_divisor_up_to(std::int64_t n, std::int64_t limit) {
  for (std::int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

}  // namespace

std::vector<Rung> ladder(const FitSpace& space) {
  std::vector<int> stages = space.stages;
  std::sort(stages.begin(), stages.end());
  stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
  std::vector<Rung> out;
  if (stages.empty()) return out;
  auto allowed = [&](const Rung& r) {
    if (std::find(stages.begin(), stages.end(), r.stage) == stages.end()) return false;
    if (!contains(space.offload_optimizer, r.offload_optimizer)) return false;
    if (!contains(space.offload_param, r.offload_param)) return false;
    // What DeepSpeed honours (and the template's guards accept): optimizer offload from
    // stage 1, NVMe optimizer offload and any parameter offload at stage 3 only.
    if (r.offload_optimizer != Offload::None && r.stage == 0) return false;
    if (r.offload_optimizer == Offload::Nvme && r.stage != 3) return false;
    if (r.offload_param != Offload::None && r.stage != 3) return false;
    bool nvme = r.offload_optimizer == Offload::Nvme || r.offload_param == Offload::Nvme;
    return !nvme || space.nvme_available;
  };
  auto add = [&](Rung r) {
    if (allowed(r) && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  // 1. Raise the stage: partitioning costs NVLink/network traffic, offload costs PCIe
  //    traffic and a CPU optimizer step, which is slower (and on one GPU ZeRO-3 has nothing
  //    to communicate at all).
  for (int stage : stages) add({stage, Offload::None, Offload::None});
  // 2. Offload the optimizer at the highest stage allowed: CPU first, NVMe when there is one.
  const int top = stages.back();
  add({top, Offload::Cpu, Offload::None});
  add({top, Offload::Nvme, Offload::None});
  // 3. Offload the parameters too (stage 3 only).
  for (Offload param : {Offload::Cpu, Offload::Nvme}) {
    for (Offload optimizer : {Offload::None, Offload::Cpu, Offload::Nvme}) {
      add({3, optimizer, param});
    }
  }
  return out;
}

namespace {

// The world size, after the request's own limits are checked.
std::int64_t checked_world(const FitRequest& request) {
  const Inputs& base = request.base;
  if (base.gpus_per_node <= 0 || base.nodes <= 0) {
    throw FitInputError("/gpus_per_node", "gpus_per_node and nodes must be positive");
  }
  if (request.min_micro_batch_size < 1 || request.max_micro_batch_size < 1) {
    throw FitInputError("/auto_fit",
                        "min_micro_batch_size and max_micro_batch_size must be positive");
  }
  if (request.min_micro_batch_size > request.max_micro_batch_size) {
    throw FitInputError(
        "/auto_fit/min_micro_batch_size",
        "min_micro_batch_size=" + std::to_string(request.min_micro_batch_size) +
            " exceeds max_micro_batch_size=" + std::to_string(request.max_micro_batch_size));
  }
  const std::optional<std::int64_t> all_gpus = checked_product({base.gpus_per_node, base.nodes});
  if (!all_gpus) {
    throw FitInputError(
        "/nodes", beyond_int64("gpus_per_node x nodes = " + std::to_string(base.gpus_per_node) +
                               " x " + std::to_string(base.nodes)));
  }
  return *all_gpus;
}

// A global batch to keep: the samples per rank it leaves (b.per_rank), and the micro batch
// that a pinned accumulation then implies (b.pinned), each refused where no micro batch x
// accumulation keeps it.
void keep_global_batch(const FitRequest& request, std::int64_t global, BatchBounds& b) {
  const std::int64_t world = b.world;
  if (global <= 0) throw FitInputError("/global_batch_size", "global_batch_size must be positive");
  if (global % world != 0) {
    // Keeping the global batch is the point of auto-fit; a different one would change the
    // optimisation (learning-rate schedule, samples per step) between tiers. Refuse.
    const std::int64_t below = global / world * world;
    std::string instead;  // the multiples of the world size around it (that fit in 64 bits)
    if (below > 0) instead += std::to_string(below);
    if (below <= INT64_MAX - world)
      instead += (instead.empty() ? "" : " or ") + std::to_string(below + world);
    throw FitInputError("/global_batch_size",
                        "global_batch_size=" + std::to_string(global) +
                            " is not a multiple of world_size=" + std::to_string(world) +
                            ", so no micro batch x accumulation keeps it; use " + instead +
                            ", or leave this tier out");
  }
  const std::int64_t per_rank = global / world;
  b.per_rank = per_rank;
  std::optional<std::int64_t>& pinned = b.pinned;
  if (request.pinned_accumulation) {
    const std::int64_t accumulation = *request.pinned_accumulation;
    if (accumulation <= 0 || per_rank % accumulation != 0) {
      throw FitInputError(
          "/gradient_accumulation",
          "gradient_accumulation=" + std::to_string(accumulation) +
              " does not divide global_batch_size / world_size = " + std::to_string(per_rank));
    }
    const std::int64_t micro = per_rank / accumulation;
    if (pinned && *pinned != micro) {
      throw FitInputError("/micro_batch_size",
                          "micro_batch_size=" + std::to_string(*pinned) +
                              " x gradient_accumulation=" + std::to_string(accumulation) +
                              " x world_size=" + std::to_string(world) +
                              " is not global_batch_size=" + std::to_string(global));
    }
    pinned = micro;
  } else if (pinned && per_rank % *pinned != 0) {
    throw FitInputError(
        "/micro_batch_size",
        "micro_batch_size=" + std::to_string(*pinned) +
            " does not divide global_batch_size / world_size = " + std::to_string(per_rank));
  }
  if (!pinned && request.min_micro_batch_size > per_rank) {
    throw FitInputError(
        "/auto_fit/min_micro_batch_size",
        "min_micro_batch_size=" + std::to_string(request.min_micro_batch_size) +
            " exceeds global_batch_size / world_size = " + std::to_string(per_rank));
  }
}

}  // namespace

BatchBounds batch_bounds(const FitRequest& request) {
  BatchBounds b;
  b.world = checked_world(request);
  b.pinned = request.pinned_micro_batch;
  if (request.global_batch_size) keep_global_batch(request, *request.global_batch_size, b);
  const std::optional<std::int64_t>& pinned = b.pinned;
  if (pinned && *pinned <= 0)
    throw FitInputError("/micro_batch_size", "micro_batch_size must be positive");
  b.lowest = pinned ? *pinned : request.min_micro_batch_size;
  b.cap = pinned ? *pinned
                 : std::min(request.max_micro_batch_size,
                            b.per_rank.value_or(request.max_micro_batch_size));
  return b;
}

std::vector<Rung> checked_ladder(const FitSpace& space) {
  std::vector<Rung> rungs = ladder(space);
  if (rungs.empty()) {
    throw FitInputError(
        "/auto_fit",
        "no stage and offload combination is allowed (check auto_fit.stages, "
        "auto_fit.offload_optimizer, auto_fit.offload_param and the pinned values)");
  }
  return rungs;
}

RungOutcome try_rung(const Inputs& base, const Rung& rung, const BatchBounds& b) {
  Inputs in = base;
  in.stage = rung.stage;
  in.offload_optimizer = rung.offload_optimizer;
  in.offload_param = rung.offload_param;
  auto at = [&](std::int64_t micro) {
    in.micro_batch_size = micro;
    return estimate(in);
  };
  RungOutcome out;
  Estimate smallest = at(b.lowest);
  if (!fits(smallest)) {
    out.rejected = {rung, b.lowest, smallest, describe_need(smallest)};
    return out;
  }
  // Memory grows with the micro batch (activations only), so the fitting ones are a prefix:
  // the largest is `cap`, or found between `good` (fits) and `bad` (does not). A micro batch
  // whose estimate passes 8 EiB (estimate() refuses it) fits nowhere.
  auto fits_at = [&](std::int64_t micro) {
    try {
      return fits(at(micro));
    } catch (const std::invalid_argument&) {
      return false;
    }
  };
  std::int64_t good = b.lowest, bad = b.cap;
  if (fits_at(b.cap)) good = b.cap;
  while (bad - good > 1) {
    std::int64_t mid = good + (bad - good) / 2;
    (fits_at(mid) ? good : bad) = mid;
  }
  const std::int64_t micro =
      b.per_rank && !b.pinned ? largest_divisor_up_to(*b.per_rank, good) : good;
  if (micro < b.lowest) {
    out.rejected = {rung, b.lowest, smallest,
                    "no micro batch from " + std::to_string(b.lowest) + " to " +
                        std::to_string(good) +
                        " divides global_batch_size / world_size = " + std::to_string(*b.per_rank)};
    return out;
  }
  out.fits = true;
  out.largest = good;
  out.micro = micro;
  return out;
}

MicroLimit limit_of(const FitRequest& request, const BatchBounds& b, const RungOutcome& outcome) {
  if (b.pinned) return MicroLimit::Pinned;
  if (outcome.micro < outcome.largest) return MicroLimit::Divisibility;
  if (outcome.largest < b.cap) return MicroLimit::Memory;
  return b.per_rank && *b.per_rank <= request.max_micro_batch_size ? MicroLimit::GlobalBatch
                                                                   : MicroLimit::Maximum;
}

FitResult fit(const FitRequest& request) {
  const BatchBounds bounds = batch_bounds(request);
  const std::vector<Rung> rungs = checked_ladder(request.space);
  FitResult result;
  for (const Rung& rung : rungs) {
    RungOutcome outcome = try_rung(request.base, rung, bounds);
    if (!outcome.fits) {
      result.rejected.push_back(std::move(outcome.rejected));
      continue;
    }
    result.fits = true;
    result.rung = rung;
    result.micro_batch_size = outcome.micro;
    result.largest_fitting_micro_batch = outcome.largest;
    result.limit = limit_of(request, bounds, outcome);
    Inputs in = request.base;
    in.stage = rung.stage;
    in.offload_optimizer = rung.offload_optimizer;
    in.offload_param = rung.offload_param;
    in.micro_batch_size = outcome.micro;
    result.estimate = estimate(in);
    if (bounds.per_rank) {
      result.gradient_accumulation = *bounds.per_rank / outcome.micro;
    } else {
      result.gradient_accumulation = request.pinned_accumulation;
    }
    return result;
  }
  const RejectedRung& last = result.rejected.back();
  result.reason = "does not fit even at " + describe(last.rung) + " with micro batch " +
                  std::to_string(last.micro_batch_size) + ": " + last.reason;
  return result;
}

std::string describe(const Rung& rung) {
  return "ZeRO-" + std::to_string(rung.stage) +
         ", offload_optimizer=" + to_string(rung.offload_optimizer) +
         ", offload_param=" + to_string(rung.offload_param);
}

std::string describe_need(const Estimate& e) {
  // What fits is judged against the usable memory (the card's less the safety margin).
  auto side = [](const char* what, std::int64_t need, std::int64_t have, const char* of) {
    std::string out =
        std::string(what) + " needs " + gib(need) + " GiB of " + gib(have) + " GiB" + of;
    if (need > have) out += " (" + gib(need - have) + " GiB short)";
    return out;
  };
  std::string out = side("GPU", e.total_gpu, e.gpu_usable, e.gpu_margin > 0 ? " usable" : "");
  if (e.total_cpu > 0 || !e.cpu_fits.value_or(true)) {
    out += "; CPU needs " + gib(e.total_cpu) + " GiB of " + gib(e.cpu_capacity) + " GiB per node";
    if (e.total_cpu > e.cpu_capacity)
      out += " (" + gib(e.total_cpu - e.cpu_capacity) + " GiB short)";
  }
  return out;
}

const char* to_string(MicroLimit limit) {
  switch (limit) {
    case MicroLimit::Memory:
      return "memory";
    case MicroLimit::Maximum:
      return "max_micro_batch_size";
    case MicroLimit::GlobalBatch:
      return "global_batch_size";
    case MicroLimit::Divisibility:
      return "divisibility";
    case MicroLimit::Pinned:
      return "pinned";
    case MicroLimit::Throughput:
      return "throughput";
  }
  return "?";
}

}  // namespace zf::memory
