// SPDX-License-Identifier: MIT
// Tier auto-fit: the escalation ladder (stage, then optimizer offload, then parameter
// offload) and the largest micro batch that fits each rung, over the estimator.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "estimator.hpp"

namespace zf::memory {

/// Batch or search inputs that cannot hold on any rung, with the JSON pointer of the value
/// at fault (e.g. `/global_batch_size`).
class FitInputError : public std::invalid_argument {
 public:
  FitInputError(std::string pointer, const std::string& message)
      : std::invalid_argument(message), pointer_(std::move(pointer)) {}
  const std::string& pointer() const noexcept { return pointer_; }

 private:
  std::string pointer_;
};

/// One rung of the ladder: a stage and where optimizer states and parameters live.
struct Rung {
  int stage = 2;
  Offload offload_optimizer = Offload::None;
  Offload offload_param = Offload::None;
  bool operator==(const Rung&) const = default;
};

/// What auto-fit may choose. A pinned value (set by the user) narrows its list to itself.
struct FitSpace {
  std::vector<int> stages = {1, 2, 3};
  std::vector<Offload> offload_optimizer = {Offload::None, Offload::Cpu, Offload::Nvme};
  std::vector<Offload> offload_param = {Offload::None, Offload::Cpu, Offload::Nvme};
  bool nvme_available = false;  ///< the values have an nvme_path
};

/// One fitting problem: the estimator's inputs (model, precision, cluster, buckets,
/// headroom, capacities; stage, offloads and micro batch are what the search varies), the
/// space, and the batch constraints.
struct FitRequest {
  Inputs base;
  FitSpace space;
  std::optional<std::int64_t> global_batch_size;    ///< keep it when given
  std::optional<std::int64_t> pinned_micro_batch;   ///< the user's micro batch
  std::optional<std::int64_t> pinned_accumulation;  ///< the user's accumulation
  std::int64_t min_micro_batch_size = 1;
  std::int64_t max_micro_batch_size = 32;
};

/// Why the micro batch is what it is.
enum class MicroLimit {
  Memory,        ///< the next micro batch up does not fit
  Maximum,       ///< capped by max_micro_batch_size
  GlobalBatch,   ///< capped by global_batch_size / world_size
  Divisibility,  ///< a larger one fits but does not divide global_batch_size / world_size
  Pinned,        ///< set by the user (directly or through a pinned accumulation)
  Throughput     ///< objective "fastest": a larger one fits but is predicted slower
};

/// A rung that was tried and rejected, with the estimate at the smallest acceptable micro
/// batch and the reason in words ("GPU needs 31.20 GiB of 24.00 GiB").
struct RejectedRung {
  Rung rung;
  std::int64_t micro_batch_size = 1;
  Estimate estimate;
  std::string reason;
};

/// The outcome: the chosen rung and batch figures with their estimate, or (fits false) no
/// rung fits and `reason` says why for the most escalated one.
struct FitResult {
  bool fits = false;
  Rung rung;
  std::int64_t micro_batch_size = 0;
  std::optional<std::int64_t> gradient_accumulation;  ///< set when a global batch is kept
  std::int64_t largest_fitting_micro_batch = 0;       ///< before divisibility
  MicroLimit limit = MicroLimit::Memory;
  Estimate estimate;                   ///< at the chosen rung and micro batch
  std::vector<RejectedRung> rejected;  ///< in ladder order
  std::string reason;                  ///< when !fits
};

/// The rungs in the order they are tried: every allowed stage ascending without offload;
/// then, at the highest allowed stage, optimizer offload to CPU, then NVMe (stage 3 with an
/// nvme_path only); then, at stage 3, parameter offload to CPU, then NVMe, each with the
/// optimizer on CPU, NVMe, then the GPU. Combinations DeepSpeed would ignore are skipped.
std::vector<Rung> ladder(const FitSpace& space);

/// Walks the ladder and returns the first rung on which a micro batch of at least
/// `min_micro_batch_size` fits, with the largest such micro batch. Throws
/// std::invalid_argument when the batch constraints cannot hold on any rung (a pinned
/// accumulation that does not divide the global batch, an empty ladder, bad sizes).
FitResult fit(const FitRequest& request);

/// The batch arithmetic of a request, checked: what fit() and fastest() share.
struct BatchBounds {
  std::int64_t world = 1;
  std::optional<std::int64_t> per_rank;  ///< global batch / world size: micro x accumulation
  std::optional<std::int64_t> pinned;    ///< the micro batch the pins fix (directly or not)
  std::int64_t lowest = 1;               ///< the smallest acceptable micro batch
  std::int64_t cap = 1;                  ///< the largest one the search may try
};
/// Throws FitInputError for batch constraints that cannot hold on any rung.
BatchBounds batch_bounds(const FitRequest& request);

/// ladder(space), refused (FitInputError at /auto_fit) when it is empty.
std::vector<Rung> checked_ladder(const FitSpace& space);

/// One rung at the bounds: whether a micro batch from `lowest` fits, the largest that does
/// (`largest`), and the largest acceptable one (`micro`: it divides the global batch per
/// rank), or why not (`rejected`).
struct RungOutcome {
  bool fits = false;
  std::int64_t largest = 0;
  std::int64_t micro = 0;
  RejectedRung rejected;
};
RungOutcome try_rung(const Inputs& base, const Rung& rung, const BatchBounds& bounds);

/// Why a fitting rung's micro batch is `outcome.micro`.
MicroLimit limit_of(const FitRequest& request, const BatchBounds& bounds,
                    const RungOutcome& outcome);

/// "ZeRO-3, offload_optimizer=cpu, offload_param=none".
std::string describe(const Rung& rung);
/// "GPU needs 21.37 GiB of 24.00 GiB; CPU needs 100.41 GiB of 128.00 GiB".
std::string describe_need(const Estimate& estimate);
const char* to_string(MicroLimit limit);

}  // namespace zf::memory
