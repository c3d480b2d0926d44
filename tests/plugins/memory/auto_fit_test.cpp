// SPDX-License-Identifier: MIT
// Tier auto-fit's search (plugins/memory/auto_fit.cpp) on its own: the ladder's order, the
// largest fitting micro batch per rung, the global batch kept, pinned values, bad batches.
#include "memory/auto_fit.hpp"

#include <gtest/gtest.h>

#include "memory/model_presets.hpp"
#include "zeroforge/output.hpp"

namespace zf::memory {
namespace {

// The engine's reader, which the host hands the plugin (zf_host::read_file).
const FileReader read_input = [](const std::string& path) { return zf::read_file(path); };

constexpr Offload N = Offload::None, C = Offload::Cpu, V = Offload::Nvme;

// A model preset on a cluster, the way a tier and the llama-2-7b-autofit family give it.
FitRequest request(const std::string& model, std::int64_t gpus, std::int64_t nodes, double gpu_gib,
                   double cpu_gib, std::optional<std::int64_t> global) {
  ModelPreset preset = load_model_preset(model, ZF_SOURCE_DIR, read_input);
  FitRequest r;
  r.base.params = preset.params;
  r.base.largest_layer_params = preset.largest_layer_params;
  r.base.shape = preset.shape;
  r.base.checkpointing = Checkpointing::Full;
  r.base.gpus_per_node = gpus;
  r.base.nodes = nodes;
  r.base.gpu_memory_gib = gpu_gib;
  r.base.cpu_memory_gib = cpu_gib;
  r.global_batch_size = global;
  return r;
}

FitRequest small_7b() { return request("llama-2-7b", 1, 1, 24, 128, 512); }
FitRequest medium_7b() { return request("llama-2-7b", 8, 1, 80, 1024, 512); }

bool fits_at(const FitRequest& r, const Rung& rung, std::int64_t micro) {
  Inputs in = r.base;
  in.stage = rung.stage;
  in.offload_optimizer = rung.offload_optimizer;
  in.offload_param = rung.offload_param;
  in.micro_batch_size = micro;
  Estimate e = estimate(in);
  return *e.gpu_fits && *e.cpu_fits;
}

TEST(AutoFitTest, LadderRaisesTheStageThenOffloadsTheOptimizerThenTheParameters) {
  struct Case {
    const char* name;
    FitSpace space;
    std::vector<Rung> expected;
  };
  FitSpace everything;
  everything.nvme_available = true;
  FitSpace no_nvme;
  FitSpace up_to_two;
  up_to_two.stages = {1, 2};
  FitSpace pinned_two_no_offload;
  pinned_two_no_offload.stages = {2};
  pinned_two_no_offload.offload_optimizer = {N};
  FitSpace stage_zero_with_offload;
  stage_zero_with_offload.stages = {0};
  FitSpace optimizer_pinned_none;
  optimizer_pinned_none.offload_optimizer = {N};
  const std::vector<Case> cases = {
      {"everything allowed, NVMe present",
       everything,
       {{1, N, N},
        {2, N, N},
        {3, N, N},
        {3, C, N},
        {3, V, N},
        {3, N, C},
        {3, C, C},
        {3, V, C},
        {3, N, V},
        {3, C, V},
        {3, V, V}}},
      {"no nvme_path: no NVMe rung",
       no_nvme,
       {{1, N, N}, {2, N, N}, {3, N, N}, {3, C, N}, {3, N, C}, {3, C, C}}},
      {"stages 1-2: offload at stage 2, no parameter offload",
       up_to_two,
       {{1, N, N}, {2, N, N}, {2, C, N}}},
      {"stage and optimizer pinned", pinned_two_no_offload, {{2, N, N}}},
      {"stage 0 takes no offload", stage_zero_with_offload, {{0, N, N}}},
      {"optimizer pinned to the GPU",
       optimizer_pinned_none,
       {{1, N, N}, {2, N, N}, {3, N, N}, {3, N, C}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Rung> got = ladder(c.space);
    ASSERT_EQ(got.size(), c.expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(describe(got[i]), describe(c.expected[i])) << i;
  }
}

TEST(AutoFitTest, SevenBillionOnTheSmallTierGetsZero3WithCpuOptimizerOffload) {
  FitRequest r = small_7b();
  FitResult result = fit(r);
  ASSERT_TRUE(result.fits) << result.reason;
  EXPECT_EQ(describe(result.rung), describe({3, C, N}));
  // Every rung before it was tried and rejected, in ladder order, for the GPU.
  ASSERT_EQ(result.rejected.size(), 3u);
  for (int stage = 1; stage <= 3; ++stage) {
    const RejectedRung& rejected = result.rejected[stage - 1];
    EXPECT_EQ(describe(rejected.rung), describe({stage, N, N}));
    EXPECT_FALSE(*rejected.estimate.gpu_fits);
    EXPECT_NE(rejected.reason.find("GPU needs"), std::string::npos) << rejected.reason;
  }
  // The largest micro batch that fits: it fits, the next one up does not.
  EXPECT_TRUE(fits_at(r, result.rung, result.micro_batch_size));
  EXPECT_FALSE(fits_at(r, result.rung, result.micro_batch_size + 1));
  EXPECT_EQ(result.limit, MicroLimit::Memory);
  // The global batch is kept: micro x accumulation x world size.
  EXPECT_EQ(result.micro_batch_size * *result.gradient_accumulation * 1, 512);
  EXPECT_TRUE(*result.estimate.gpu_fits && *result.estimate.cpu_fits);
  EXPECT_GT(result.estimate.total_cpu, 0);
}

TEST(AutoFitTest, SevenBillionOnTheMediumTierNeedsNoOffload) {
  FitRequest r = medium_7b();
  FitResult result = fit(r);
  ASSERT_TRUE(result.fits) << result.reason;
  EXPECT_EQ(result.rung.offload_optimizer, N);
  EXPECT_EQ(result.rung.offload_param, N);
  EXPECT_TRUE(result.rejected.empty()) << "no escalation needed";
  EXPECT_EQ(result.rung.stage, r.space.stages.front());
  EXPECT_EQ(result.micro_batch_size * *result.gradient_accumulation * 8, 512);
  // The largest fitting micro batch, then the largest divisor of 512 / 8 = 64 below it.
  const std::int64_t largest = result.largest_fitting_micro_batch;
  EXPECT_TRUE(fits_at(r, result.rung, largest));
  EXPECT_FALSE(fits_at(r, result.rung, largest + 1));
  std::int64_t divisor = largest;
  while (64 % divisor != 0) --divisor;
  EXPECT_EQ(result.micro_batch_size, divisor);
  EXPECT_EQ(result.limit, divisor < largest ? MicroLimit::Divisibility : MicroLimit::Memory);
}

TEST(AutoFitTest, MicroBatchIsTheLargestFittingDivisorOfTheBatchPerRank) {
  // For every batch per rank from 1 to 40, the choice is the largest divisor of it that fits
  // (found here by brute force over the estimator), capped by that batch per rank.
  const FitRequest base = medium_7b();
  const Rung rung = fit(base).rung;
  for (std::int64_t per_rank = 1; per_rank <= 40; ++per_rank) {
    SCOPED_TRACE(per_rank);
    FitRequest r = base;
    r.global_batch_size = per_rank * 8;
    r.max_micro_batch_size = 64;
    FitResult result = fit(r);
    ASSERT_TRUE(result.fits);
    ASSERT_EQ(describe(result.rung), describe(rung));
    std::int64_t expected = 0;
    for (std::int64_t m = 1; m <= per_rank; ++m) {
      if (per_rank % m == 0 && fits_at(r, rung, m)) expected = m;
    }
    EXPECT_EQ(result.micro_batch_size, expected);
    EXPECT_EQ(result.micro_batch_size * *result.gradient_accumulation, per_rank);
  }
}

TEST(AutoFitTest, MaximumAndGlobalBatchCapTheMicroBatch) {
  FitRequest r = request("gpt2", 8, 1, 80, 1024, 512);
  r.max_micro_batch_size = 4;
  FitResult capped = fit(r);
  EXPECT_EQ(capped.micro_batch_size, 4);
  EXPECT_EQ(capped.limit, MicroLimit::Maximum);
  r.max_micro_batch_size = 64;
  r.global_batch_size = 16;  // 2 per rank
  FitResult per_rank = fit(r);
  EXPECT_EQ(per_rank.micro_batch_size, 2);
  EXPECT_EQ(*per_rank.gradient_accumulation, 1);
  EXPECT_EQ(per_rank.limit, MicroLimit::GlobalBatch);
  r.global_batch_size.reset();  // nothing to keep: the largest that fits, up to the maximum
  FitResult free = fit(r);
  EXPECT_EQ(free.micro_batch_size, 64);
  EXPECT_FALSE(free.gradient_accumulation.has_value());
}

TEST(AutoFitTest, PinnedValuesNarrowTheSearch) {
  FitRequest r = small_7b();
  r.space.stages = {2};  // pinned stage: offload happens at stage 2
  FitResult stage_two = fit(r);
  ASSERT_TRUE(stage_two.fits);
  EXPECT_EQ(describe(stage_two.rung), describe({2, C, N}));

  // A pinned micro batch of 4 does not fit with the optimizer offloaded alone (the
  // activations double twice), so the parameters go to the CPU too.
  r = small_7b();
  r.pinned_micro_batch = 4;
  FitResult pinned_micro = fit(r);
  ASSERT_TRUE(pinned_micro.fits);
  EXPECT_TRUE(fits_at(r, {3, C, N}, 2));
  EXPECT_FALSE(fits_at(r, {3, C, N}, 4));
  EXPECT_EQ(describe(pinned_micro.rung), describe({3, C, C}));
  EXPECT_EQ(pinned_micro.micro_batch_size, 4);
  EXPECT_EQ(*pinned_micro.gradient_accumulation, 128);
  EXPECT_EQ(pinned_micro.limit, MicroLimit::Pinned);

  // A pinned accumulation decides the micro batch: 512 / 128 = 4, the same result.
  r = small_7b();
  r.pinned_accumulation = 128;
  FitResult via_accumulation = fit(r);
  ASSERT_TRUE(via_accumulation.fits);
  EXPECT_EQ(describe(via_accumulation.rung), describe({3, C, C}));
  EXPECT_EQ(via_accumulation.micro_batch_size, 4);
  EXPECT_EQ(via_accumulation.limit, MicroLimit::Pinned);

  r = small_7b();
  r.space.offload_optimizer = {N};
  r.space.offload_param = {N};
  FitResult impossible = fit(r);
  EXPECT_FALSE(impossible.fits);
  EXPECT_EQ(impossible.reason.rfind("does not fit even at ZeRO-3, offload_optimizer=none", 0), 0u)
      << impossible.reason;
}

TEST(AutoFitTest, SeventyBillionFitsNowhereOnTheSmallTier) {
  FitResult result = fit(request("llama-2-70b", 1, 1, 24, 128, 64));
  EXPECT_FALSE(result.fits);
  EXPECT_EQ(result.rejected.size(), ladder(FitSpace{}).size());
  EXPECT_NE(result.reason.find("ZeRO-3, offload_optimizer=cpu, offload_param=cpu"),
            std::string::npos)
      << result.reason;
  EXPECT_NE(result.reason.find("CPU needs"), std::string::npos) << result.reason;
}

TEST(AutoFitTest, BatchesThatCannotBeKeptAreRefusedWithTheirPointer) {
  struct Case {
    const char* name;
    std::int64_t global;
    std::optional<std::int64_t> micro, accumulation;
    std::int64_t min_micro;
    const char* pointer;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"global not a multiple of the world size",
       500,
       {},
       {},
       1,
       "/global_batch_size",
       "global_batch_size=500 is not a multiple of world_size=8, so no micro batch x accumulation "
       "keeps it; use 496 or 504, or leave this tier out"},
      {"global smaller than the world size",
       4,
       {},
       {},
       1,
       "/global_batch_size",
       "global_batch_size=4 is not a multiple of world_size=8, so no micro batch x accumulation "
       "keeps it; use 8, or leave this tier out"},
      {"pinned accumulation does not divide",
       512,
       {},
       3,
       1,
       "/gradient_accumulation",
       "gradient_accumulation=3 does not divide global_batch_size / world_size = 64"},
      {"pinned micro does not divide",
       512,
       3,
       {},
       1,
       "/micro_batch_size",
       "micro_batch_size=3 does not divide global_batch_size / world_size = 64"},
      {"minimum above the batch per rank",
       16,
       {},
       {},
       4,
       "/auto_fit/min_micro_batch_size",
       "min_micro_batch_size=4 exceeds global_batch_size / world_size = 2"},
      // Near the 64-bit limit the multiple above is past it, and only the one below is named.
      {"global at the largest integer",
       9223372036854775807,
       {},
       {},
       1,
       "/global_batch_size",
       "global_batch_size=9223372036854775807 is not a multiple of world_size=8, so no micro "
       "batch x accumulation keeps it; use 9223372036854775800, or leave this tier out"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FitRequest r = medium_7b();
    r.global_batch_size = c.global;
    r.pinned_micro_batch = c.micro;
    r.pinned_accumulation = c.accumulation;
    r.min_micro_batch_size = c.min_micro;
    try {
      fit(r);
      ADD_FAILURE() << "no error";
    } catch (const FitInputError& e) {
      EXPECT_EQ(e.pointer(), c.pointer);
      EXPECT_STREQ(e.what(), c.message);
    }
  }
}

// Sizes anywhere up to 2^63 - 1 are checked products and a search that cannot overflow (issue
// 22): a cluster whose GPU count passes 64 bits is refused at /nodes, and the largest
// max_micro_batch_size finds the same micro batch as a small one (memory limits it).
TEST(AutoFitTest, SizesNearThe64BitLimitAreCheckedNeverWrapped) {
  FitRequest huge_cluster = medium_7b();
  huge_cluster.base.gpus_per_node = 4611686018427387904;
  huge_cluster.base.nodes = 2;
  try {
    fit(huge_cluster);
    ADD_FAILURE() << "no error";
  } catch (const FitInputError& e) {
    EXPECT_EQ(e.pointer(), "/nodes");
    EXPECT_STREQ(e.what(),
                 "gpus_per_node x nodes = 4611686018427387904 x 2 is beyond 64-bit integers "
                 "(9223372036854775807)");
  }
  FitRequest bounded = medium_7b();
  bounded.global_batch_size.reset();
  bounded.max_micro_batch_size = 4096;
  FitRequest unbounded = bounded;
  unbounded.max_micro_batch_size = 9223372036854775807;
  FitResult small = fit(bounded), largest = fit(unbounded);
  ASSERT_TRUE(small.fits && largest.fits);
  EXPECT_EQ(largest.micro_batch_size, small.micro_batch_size);
  EXPECT_LT(largest.micro_batch_size, 4096) << "limited by memory, not by the maximum";
  EXPECT_EQ(largest.limit, MicroLimit::Memory);
}

}  // namespace
}  // namespace zf::memory
