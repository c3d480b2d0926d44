// SPDX-License-Identifier: MIT
// The step-time model (plugins/memory/step_time.cpp, gpu_facts.cpp): Megatron's FLOP count, one
// hand-computed step, and the properties a step-time model must have (slow links, stages,
// offload, checkpointing, accumulation).
#include "memory/step_time.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zf::memory {
namespace {

// GPT-2-style, 4 h MLP, no GQA: Megatron's formula applies as printed.
ModelShape small_gelu() {
  ModelShape s;
  s.layers = 2;
  s.hidden = 64;
  s.heads = 4;
  s.vocab = 1000;
  s.seq_len = 128;
  return s;
}

// A 1.3B-class shape for the properties: large enough that every part matters.
ModelShape gpt_1_3b() {
  ModelShape s;
  s.layers = 24;
  s.hidden = 2048;
  s.heads = 16;
  s.vocab = 50257;
  s.seq_len = 1024;
  return s;
}

Inputs inputs_for(const ModelShape& shape, int stage, std::int64_t gpus, std::int64_t nodes) {
  Inputs in;
  in.shape = shape;
  in.params = params_from_shape(shape);
  in.stage = stage;
  in.gpus_per_node = gpus;
  in.nodes = nodes;
  in.micro_batch_size = 4;
  return in;
}

Hardware a100(double inter_node_gbs = 25) {
  HardwareGiven given;
  given.gpu = "A100-SXM4-80GB";
  given.inter_node_gbs = inter_node_gbs;
  given.cpu_cores = 64;
  return resolve_hardware(given, Precision::Bf16);
}

TEST(StepTimeTest, FlopsAreMegatronsFormula) {
  // Narayanan et al. 2021, eq. 3: 72 B s l h^2 (1 + s/6h) + 6 B s h V without recomputation,
  // 96 B s l h^2 (1 + s/6h) + 6 B s h V with full recomputation.
  const double b = 3, s = 128, l = 2, h = 64, v = 1000;
  const double plain = 72 * b * s * l * h * h * (1 + s / (6 * h)) + 6 * b * s * h * v;
  const double full = 96 * b * s * l * h * h * (1 + s / (6 * h)) + 6 * b * s * h * v;
  EXPECT_DOUBLE_EQ(forward_backward_flops(small_gelu(), 3, Checkpointing::None), plain);
  EXPECT_DOUBLE_EQ(forward_backward_flops(small_gelu(), 3, Checkpointing::Full), full);
  EXPECT_DOUBLE_EQ(forward_backward_flops(small_gelu(), 1, Checkpointing::None), 149815296.0);
  // Selective recomputes only the attention scores (Korthikanti et al. 2022): 4 B s^2 h l.
  EXPECT_DOUBLE_EQ(forward_backward_flops(small_gelu(), 3, Checkpointing::Selective),
                   plain + 4 * b * s * s * h * l);
}

TEST(StepTimeTest, SwigluAndGqaCountTheirOwnMatmuls) {
  ModelShape s = small_gelu();
  s.mlp = Mlp::Swiglu;
  s.intermediate = 172;
  s.kv_heads = 2;  // k = 32
  // Per layer: h(h + 2k) + h^2 + 3 h i = 64 * 128 + 4096 + 3 * 64 * 172.
  const double layer = 64.0 * 128 + 4096 + 3.0 * 64 * 172;
  const double expected =
      3 * (2 * 128 * layer * 2 + 4.0 * 128 * 128 * 64 * 2 + 2.0 * 128 * 64 * 1000);
  EXPECT_DOUBLE_EQ(forward_backward_flops(s, 1, Checkpointing::None), expected);
}

TEST(StepTimeTest, OneStepByHand) {
  // Ψ = 1e9, ZeRO-2, 8 GPUs on one node, bf16, one micro step of the small shape.
  Inputs in = inputs_for(small_gelu(), 2, 8, 1);
  in.params = 1000000000;
  in.micro_batch_size = 1;
  HardwareGiven given;
  given.gpu = "A100-SXM4-80GB";
  given.gpu_tflops = 100;
  given.intra_node_gbs = 100;
  given.pcie_gbs = 10;
  given.cpu_cores = 10;
  const Hardware hw = resolve_hardware(given, Precision::Bf16);
  const StepTime t = step_time(in, 1, hw);
  // The matmul efficiency at w = 1 x 128 x 64 tokens x hidden, the fitted power of the work.
  const StepConstants c;
  const double efficiency =
      std::min(c.matmul_efficiency_max,
               c.matmul_efficiency_at_ref *
                   std::pow(128.0 * 64 / kMatmulReferenceWork, c.matmul_work_exponent));
  const double compute = 149815296.0 / (100e12 * efficiency);
  // One ring pass: 7/8 x 1e9 x 2 bytes over 100 GB/s x 0.8.
  const double ring = 1.75e9 / 80e9;
  EXPECT_DOUBLE_EQ(t.compute, compute);
  EXPECT_DOUBLE_EQ(t.communication_total, 2 * ring);
  // The reduce-scatter hides behind compute (half of it at most, all of compute here); the
  // all-gather after the optimizer does not.
  EXPECT_DOUBLE_EQ(t.communication, ring - compute + ring);
  EXPECT_DOUBLE_EQ(t.offload, 0);
  // Fused Adam on the GPU: 1.25e8 parameters x 30 bytes at the A100 80GB's 2,039 GB/s.
  EXPECT_DOUBLE_EQ(t.optimizer, 1.25e8 * 30 / 2039e9);
  EXPECT_DOUBLE_EQ(t.seconds, t.compute + t.communication + t.optimizer);
  EXPECT_DOUBLE_EQ(t.samples_per_second, 8 / t.seconds);
  EXPECT_DOUBLE_EQ(t.tokens_per_second, 8 * 128 / t.seconds);
  EXPECT_DOUBLE_EQ(t.tflops_per_gpu, 149815296.0 / t.seconds / 1e12);

  // The same with the optimizer on the CPU: 5e8 bytes over PCIe (gradients down, the updated
  // 16-bit partition back), and 8 x 1.25e8 parameters on 10 cores at CPU Adam's fitted rate.
  in.offload_optimizer = Offload::Cpu;
  const StepTime off = step_time(in, 1, hw);
  EXPECT_DOUBLE_EQ(off.offload, 5e8 / 10e9);
  EXPECT_DOUBLE_EQ(off.optimizer, 1e9 / (10 * c.cpu_adam_params_per_core_second));
}

TEST(StepTimeTest, MatmulEfficiencyGrowsWithThePerGpuWorkUpToItsCeiling) {
  const StepConstants c;
  ModelShape wide = gpt_1_3b();
  double previous = 0;
  for (std::int64_t b : {1, 2, 4, 8}) {
    SCOPED_TRACE(b);
    const double e = matmul_efficiency(wide, b, c);
    EXPECT_GT(e, previous);
    EXPECT_LE(e, c.matmul_efficiency_max);
    previous = e;
  }
  // At the reference work it is the reference efficiency (if below the ceiling).
  ModelShape ref = wide;
  ref.seq_len = 1000;
  ref.hidden = 10000;
  EXPECT_DOUBLE_EQ(matmul_efficiency(ref, 1, c),
                   std::min(c.matmul_efficiency_max, c.matmul_efficiency_at_ref));
  // Far beyond it the ceiling holds.
  ref.seq_len = 1000000;
  EXPECT_DOUBLE_EQ(matmul_efficiency(ref, 1024, c), c.matmul_efficiency_max);
  // A larger micro batch runs faster per sample: compute per sample falls.
  const Inputs one = inputs_for(wide, 2, 8, 1);
  Inputs four = one;
  four.micro_batch_size = 16;
  EXPECT_LT(step_time(four, 1, a100()).compute / 16, step_time(one, 1, a100()).compute / 4);
}

TEST(StepTimeTest, StepConstantsAreSetByNameAndChecked) {
  StepConstants c;
  set_step_constant(c, "matmul_efficiency_max", 0.7);
  EXPECT_DOUBLE_EQ(c.matmul_efficiency_max, 0.7);
  set_step_constant(c, "comm_overlap", 0);
  EXPECT_DOUBLE_EQ(c.comm_overlap, 0);
  set_step_constant(c, "cpu_adam_params_per_core_second", 3e7);
  EXPECT_DOUBLE_EQ(c.cpu_adam_params_per_core_second, 3e7);
  EXPECT_THROW(set_step_constant(c, "matmul_efficiency_max", 1.5), std::invalid_argument);
  EXPECT_THROW(set_step_constant(c, "collective_efficiency", 0), std::invalid_argument);
  EXPECT_THROW(set_step_constant(c, "matmul_work_exponent", -1), std::invalid_argument);
  try {
    set_step_constant(c, "nope", 1);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: matmul_efficiency_at_ref"), std::string::npos);
  }
  // The hardware carries them to the model.
  HardwareGiven given;
  given.constants.comm_overlap = 0.25;
  EXPECT_DOUBLE_EQ(resolve_hardware(given, Precision::Bf16).constants.comm_overlap, 0.25);
}

TEST(StepTimeTest, ARingAcrossNodesGetsTheNodesWholeNetwork) {
  // Each ring crosses a node's boundary once and NCCL runs one ring per NIC: every GPU's
  // stream gets the node's network (25 GB/s here), not an eighth of it.
  EXPECT_DOUBLE_EQ(ring_bandwidth_gbs(a100(25), 2), 25 * StepConstants{}.collective_efficiency);
  EXPECT_DOUBLE_EQ(ring_bandwidth_gbs(a100(25), 1), 300 * StepConstants{}.collective_efficiency);
  EXPECT_DOUBLE_EQ(ring_bandwidth_gbs(a100(1000), 4), 300 * StepConstants{}.collective_efficiency);
}

TEST(StepTimeTest, MoreGpusOverTheSameSlowLinkCommunicateLonger) {
  double previous = 0;
  for (std::int64_t nodes : {1, 2, 4, 8, 16}) {
    SCOPED_TRACE(nodes);
    const StepTime t = step_time(inputs_for(gpt_1_3b(), 2, 8, nodes), 1, a100());
    EXPECT_GT(t.communication_total, previous);
    previous = t.communication_total;
  }
  // A faster network shortens it.
  const Inputs in = inputs_for(gpt_1_3b(), 2, 8, 4);
  EXPECT_LT(step_time(in, 1, a100(400)).communication_total,
            step_time(in, 1, a100(25)).communication_total);
}

TEST(StepTimeTest, StagesCommunicateInZeroPapersOrder) {
  // With accumulation, stage 3 (per micro step: two all-gathers and a reduce-scatter) >
  // stage 2 (a reduce-scatter per micro step) > stage 1 (once a step) = stage 0 (one all-reduce).
  struct Case {
    std::int64_t accumulation;
  };
  for (const Case& c : {Case{4}, Case{16}}) {
    SCOPED_TRACE(c.accumulation);
    double comm[4];
    for (int stage = 0; stage <= 3; ++stage) {
      comm[stage] = step_time(inputs_for(gpt_1_3b(), stage, 8, 2), c.accumulation, a100())
                        .communication_total;
    }
    EXPECT_GT(comm[3], comm[2]);
    EXPECT_GT(comm[2], comm[1]);
    EXPECT_DOUBLE_EQ(comm[1], comm[0]);
  }
  // Without accumulation stages 0-2 move the same 2Ψ and stage 3 moves 3Ψ (ZeRO paper, sec. 7).
  double one[4];
  for (int stage = 0; stage <= 3; ++stage) {
    one[stage] = step_time(inputs_for(gpt_1_3b(), stage, 8, 2), 1, a100()).communication_total;
  }
  EXPECT_DOUBLE_EQ(one[1], one[0]);
  EXPECT_DOUBLE_EQ(one[2], one[0]);
  EXPECT_DOUBLE_EQ(one[3], 1.5 * one[0]);
}

TEST(StepTimeTest, OneGpuCommunicatesNothing) {
  for (int stage = 0; stage <= 3; ++stage) {
    SCOPED_TRACE(stage);
    EXPECT_EQ(step_time(inputs_for(gpt_1_3b(), stage, 1, 1), 4, a100()).communication_total, 0);
  }
}

TEST(StepTimeTest, OffloadAddsPcieTime) {
  struct Case {
    const char* name;
    int stage;
    Offload optimizer, param;
  };
  const Case cases[] = {
      {"stage 1 optimizer", 1, Offload::Cpu, Offload::None},
      {"stage 2 optimizer", 2, Offload::Cpu, Offload::None},
      {"stage 3 optimizer", 3, Offload::Cpu, Offload::None},
      {"stage 3 both", 3, Offload::Cpu, Offload::Cpu},
      {"stage 3 nvme", 3, Offload::Nvme, Offload::Nvme},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Inputs in = inputs_for(gpt_1_3b(), c.stage, 8, 1);
    const StepTime gpu = step_time(in, 2, a100());
    EXPECT_EQ(gpu.offload, 0);
    in.offload_optimizer = c.optimizer;
    in.offload_param = c.param;
    const StepTime off = step_time(in, 2, a100());
    EXPECT_GT(off.offload, 0);
    EXPECT_GT(off.seconds, gpu.seconds);
  }
  // Parameters offloaded as well move more over PCIe than the optimizer alone.
  Inputs in = inputs_for(gpt_1_3b(), 3, 8, 1);
  in.offload_optimizer = Offload::Cpu;
  const double optimizer_only = step_time(in, 2, a100()).offload;
  in.offload_param = Offload::Cpu;
  EXPECT_GT(step_time(in, 2, a100()).offload, optimizer_only);
  // NVMe adds the drive's time on top of PCIe's.
  const double cpu_both = step_time(in, 2, a100()).offload;
  in.offload_optimizer = Offload::Nvme;
  in.offload_param = Offload::Nvme;
  EXPECT_GT(step_time(in, 2, a100()).offload, cpu_both);
}

TEST(StepTimeTest, CheckpointingRaisesComputeByTheRecomputeFactor) {
  const Inputs base = inputs_for(gpt_1_3b(), 2, 8, 1);
  const double none = step_time(base, 1, a100()).compute;
  for (Checkpointing c : {Checkpointing::Selective, Checkpointing::Full}) {
    SCOPED_TRACE(to_string(c));
    Inputs in = base;
    in.checkpointing = c;
    const double factor = forward_backward_flops(*in.shape, 4, c) /
                          forward_backward_flops(*in.shape, 4, Checkpointing::None);
    EXPECT_DOUBLE_EQ(step_time(in, 1, a100()).compute / none, factor);
    // Recomputing the forward is at most one more forward: 4/3 of the work.
    EXPECT_GT(factor, 1.0);
    EXPECT_LE(factor, 4.0 / 3.0);
  }
}

TEST(StepTimeTest, AccumulationAmortizesTheOptimizerStep) {
  Inputs in = inputs_for(gpt_1_3b(), 2, 8, 1);
  in.offload_optimizer = Offload::Cpu;
  const StepTime one = step_time(in, 1, a100());
  double previous_share = 1, previous_rate = 0;
  for (std::int64_t accumulation : {1, 4, 16}) {
    SCOPED_TRACE(accumulation);
    const StepTime t = step_time(in, accumulation, a100());
    EXPECT_DOUBLE_EQ(t.optimizer, one.optimizer);  // once a step, whatever the accumulation
    EXPECT_DOUBLE_EQ(t.compute, static_cast<double>(accumulation) * one.compute);
    EXPECT_LT(t.optimizer / t.seconds, previous_share);
    EXPECT_GT(t.samples_per_second, previous_rate);
    previous_share = t.optimizer / t.seconds;
    previous_rate = t.samples_per_second;
  }
}

TEST(StepTimeTest, HardwareComesFromTheTableWhereTheTierIsSilent) {
  const Hardware h100 = resolve_hardware({}, Precision::Bf16);
  EXPECT_EQ(h100.gpu, "H100-SXM5-80GB");
  EXPECT_DOUBLE_EQ(h100.gpu_tflops, 989.5);
  EXPECT_DOUBLE_EQ(h100.intra_node_gbs, 450);
  EXPECT_EQ(h100.assumed,
            (std::vector<std::string>{"gpu", "gpu_tflops", "intra_node_gbs", "inter_node_gbs",
                                      "pcie_gbs", "nvme_gbs", "cpu_cores"}));
  HardwareGiven l40s;
  l40s.gpu = "l40s";  // names match without case
  l40s.inter_node_gbs = 50;
  const Hardware l = resolve_hardware(l40s, Precision::Fp32);
  EXPECT_EQ(l.gpu, "L40S");
  EXPECT_DOUBLE_EQ(l.gpu_tflops, 91.6);
  EXPECT_DOUBLE_EQ(l.intra_node_gbs, 32);  // no NVLink: its peers are over PCIe
  EXPECT_DOUBLE_EQ(l.inter_node_gbs, 50);
  HardwareGiven v100;
  v100.gpu = "V100-SXM2-32GB";
  EXPECT_DOUBLE_EQ(resolve_hardware(v100, Precision::Fp16).gpu_tflops, 125);
  EXPECT_DOUBLE_EQ(resolve_hardware(v100, Precision::Bf16).gpu_tflops, 15.7);  // no bf16 cores
}

TEST(StepTimeTest, EveryKnownGpuHasItsFactsAndASource) {
  for (const GpuFacts& gpu : known_gpus()) {
    SCOPED_TRACE(std::string(gpu.name));
    EXPECT_EQ(find_gpu(gpu.name), &gpu);
    EXPECT_GT(gpu.fp16_tflops, gpu.fp32_tflops);
    EXPECT_GT(gpu.memory_gbs, 0);
    EXPECT_GT(gpu.pcie_gbs, 0);
    EXPECT_NE(gpu.source.find("datasheet"), std::string_view::npos);
  }
  EXPECT_EQ(known_gpus().size(), 6u);
}

TEST(StepTimeTest, RefusesBadHardwareAndInputs) {
  HardwareGiven given;
  given.gpu = "B9000";
  try {
    resolve_hardware(given, Precision::Bf16);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "gpu: unknown GPU 'B9000' (known: V100-SXM2-32GB, A100-SXM4-40GB, "
                 "A100-SXM4-80GB, H100-SXM5-80GB, H200-SXM-141GB, L40S)");
  }
  HardwareGiven zero;
  zero.pcie_gbs = 0;
  EXPECT_THROW(resolve_hardware(zero, Precision::Bf16), std::invalid_argument);
  Inputs no_shape;
  no_shape.params = 1000;
  EXPECT_THROW(step_time(no_shape, 1, a100()), std::invalid_argument);
  EXPECT_THROW(step_time(inputs_for(gpt_1_3b(), 2, 8, 1), 0, a100()), std::invalid_argument);
}

}  // namespace
}  // namespace zf::memory
