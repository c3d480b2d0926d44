// SPDX-License-Identifier: MIT
// The step-time model's arithmetic (docs/estimator.md, "Step time"): Megatron's FLOP count,
// ZeRO's communication volumes over a ring, PCIe/NVMe offload traffic and the optimizer step.
#include "step_time.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zf::memory {
namespace {

constexpr double kGB = 1e9;

void check_positive(const char* key, std::optional<double> value) {
  if (value && !(std::isfinite(*value) && *value > 0)) {
    throw std::invalid_argument(std::string(key) + ": expected a positive number, got " +
                                std::to_string(*value));
  }
}

double element_bytes(Precision precision) { return precision == Precision::Fp32 ? 4.0 : 2.0; }

// Communication that overlap hides: `overlap` of it, at most the compute it runs behind.
double exposed(double comm, double compute, double overlap) {
  return comm - std::min(overlap * comm, compute);
}

}  // namespace

void set_step_constant(StepConstants& constants, const std::string& key, double value) {
  struct Field {
    const char* key;
    double StepConstants::*member;
    bool fraction;
  };
  static constexpr Field kFields[] = {
      {"matmul_efficiency_at_ref", &StepConstants::matmul_efficiency_at_ref, true},
      {"matmul_work_exponent", &StepConstants::matmul_work_exponent, false},
      {"matmul_efficiency_max", &StepConstants::matmul_efficiency_max, true},
      {"collective_efficiency", &StepConstants::collective_efficiency, true},
      {"comm_overlap", &StepConstants::comm_overlap, true},
      {"cpu_adam_params_per_core_second", &StepConstants::cpu_adam_params_per_core_second, false},
  };
  std::string known;
  for (const Field& field : kFields) {
    if (key == field.key) {
      // The overlap may be 0 (nothing hidden); the others divide or scale, so must be positive.
      const bool zero_ok = key == "comm_overlap";
      if (!std::isfinite(value) || value < 0 || (value == 0 && !zero_ok) ||
          (field.fraction && value > 1)) {
        throw std::invalid_argument(key + ": expected " +
                                    (field.fraction ? "a fraction up to 1" : "a positive number") +
                                    ", got " + std::to_string(value));
      }
      constants.*field.member = value;
      return;
    }
    known += known.empty() ? field.key : std::string(", ") + field.key;
  }
  throw std::invalid_argument("unknown step constant '" + key + "' (known: " + known + ")");
}

double matmul_efficiency(const ModelShape& shape, std::int64_t micro_batch_size,
                         const StepConstants& c) {
  const double work = static_cast<double>(micro_batch_size) * static_cast<double>(shape.seq_len) *
                      static_cast<double>(shape.hidden);
  const double grown =
      c.matmul_efficiency_at_ref * std::pow(work / kMatmulReferenceWork, c.matmul_work_exponent);
  return std::min(c.matmul_efficiency_max, grown);
}

Hardware resolve_hardware(const HardwareGiven& given, Precision precision) {
  check_positive("gpu_tflops", given.gpu_tflops);
  check_positive("intra_node_gbs", given.intra_node_gbs);
  check_positive("inter_node_gbs", given.inter_node_gbs);
  check_positive("pcie_gbs", given.pcie_gbs);
  check_positive("nvme_gbs", given.nvme_gbs);
  if (given.cpu_cores && *given.cpu_cores < 1) {
    throw std::invalid_argument("cpu_cores: expected a positive integer, got " +
                                std::to_string(*given.cpu_cores));
  }
  Hardware hw;
  const GpuFacts* gpu = find_gpu(given.gpu.value_or(kDefaultGpu));
  if (!gpu) {
    throw std::invalid_argument("gpu: unknown GPU '" + *given.gpu +
                                "' (known: " + known_gpu_names() + ")");
  }
  hw.gpu = std::string(gpu->name);
  if (!given.gpu) hw.assumed.push_back("gpu");
  auto fill = [&](const char* key, std::optional<double> value, double fallback, double& into) {
    into = value.value_or(fallback);
    if (!value) hw.assumed.push_back(key);
  };
  fill("gpu_tflops", given.gpu_tflops, peak_tflops(*gpu, precision), hw.gpu_tflops);
  hw.memory_gbs = gpu->memory_gbs;  // always the table's: no tier key states it
  // A GPU without NVLink talks to its peers over PCIe.
  fill("intra_node_gbs", given.intra_node_gbs,
       gpu->nvlink_gbs > 0 ? gpu->nvlink_gbs : gpu->pcie_gbs, hw.intra_node_gbs);
  fill("inter_node_gbs", given.inter_node_gbs, kDefaultInterNodeGbs, hw.inter_node_gbs);
  fill("pcie_gbs", given.pcie_gbs, gpu->pcie_gbs, hw.pcie_gbs);
  fill("nvme_gbs", given.nvme_gbs, kDefaultNvmeGbs, hw.nvme_gbs);
  hw.cpu_cores = given.cpu_cores.value_or(kDefaultCpuCores);
  hw.constants = given.constants;
  if (!given.cpu_cores) hw.assumed.push_back("cpu_cores");
  return hw;
}

double forward_backward_flops(const ModelShape& shape, std::int64_t micro_batch_size,
                              Checkpointing checkpointing) {
  const double b = static_cast<double>(micro_batch_size);
  const double s = static_cast<double>(shape.seq_len);
  const double h = static_cast<double>(shape.hidden);
  const double l = static_cast<double>(shape.layers);
  const double k = static_cast<double>(shape.kv_dim());
  const double i = static_cast<double>(shape.intermediate_or_default());
  const double v = static_cast<double>(shape.vocab);
  const double tokens = b * s;
  // Weights one layer multiplies by: q, k, v, o and the MLP's two (gelu) or three (swiglu).
  const double layer_matmul = h * (h + 2 * k) + h * h + (shape.mlp == Mlp::Swiglu ? 3 : 2) * h * i;
  const double matmuls = 2 * tokens * layer_matmul * l;
  const double scores = 4 * b * s * s * h * l;  // Q K^T and scores x V, per Megatron
  const double head = 2 * tokens * h * v;
  double flops = 3 * (matmuls + scores + head);  // backward = 2 x forward
  if (checkpointing == Checkpointing::Full) flops += matmuls + scores;
  if (checkpointing == Checkpointing::Selective) flops += scores;
  return flops;
}

CommVolume comm_volume(int stage, std::int64_t params, std::int64_t world_size,
                       Precision precision) {
  CommVolume out;
  if (world_size <= 1) return out;
  const double n = static_cast<double>(world_size);
  const double psi = static_cast<double>(params);
  const double bytes = element_bytes(precision);  // gradients and 16-bit parameters alike
  const double ring = (n - 1) / n * psi * bytes;  // one reduce-scatter or all-gather
  switch (stage) {
    case 0:
      out.at_boundary = 2 * ring;  // all-reduce
      break;
    case 1:
      out.at_boundary = ring;  // reduce-scatter of the accumulated gradients
      out.after_step = ring;   // all-gather of the updated partitions
      break;
    case 2:
      out.per_micro_step = ring;  // every backward reduce-scatters into the partitions
      out.after_step = ring;
      break;
    default:
      out.per_micro_step = 3 * ring;  // all-gathers in forward and backward, reduce-scatter
      break;
  }
  return out;
}

double ring_bandwidth_gbs(const Hardware& hw, std::int64_t nodes) {
  double link = hw.intra_node_gbs;
  if (nodes > 1) link = std::min(link, hw.inter_node_gbs);
  return link * hw.constants.collective_efficiency;
}

StepTime step_time(const Inputs& in, std::int64_t gradient_accumulation, const Hardware& hw) {
  if (!in.shape)
    throw std::invalid_argument("the step time needs a model shape, not only --params");
  if (gradient_accumulation < 1) {
    throw std::invalid_argument("gradient_accumulation: expected a positive integer, got " +
                                std::to_string(gradient_accumulation));
  }
  const double ga = static_cast<double>(gradient_accumulation);
  const std::int64_t world = in.gpus_per_node * in.nodes;
  const double n = static_cast<double>(world);
  const double psi = static_cast<double>(in.params);
  const double partition = psi / n;  // Ψ/N: what each rank owns of parameters and states
  const double bytes = element_bytes(in.precision);
  StepTime out;

  const double micro_flops =
      forward_backward_flops(*in.shape, in.micro_batch_size, in.checkpointing);
  const double efficiency = matmul_efficiency(*in.shape, in.micro_batch_size, hw.constants);
  const double micro_compute = micro_flops / (hw.gpu_tflops * 1e12 * efficiency);
  out.flops_per_gpu = ga * micro_flops;
  out.compute = ga * micro_compute;

  const CommVolume volume = comm_volume(in.stage, in.params, world, in.precision);
  const double bw = ring_bandwidth_gbs(hw, in.nodes) * kGB;
  const double micro_comm = volume.per_micro_step / bw;
  const double boundary_comm = volume.at_boundary / bw;
  const double after_comm = volume.after_step / bw;
  out.communication_total = ga * micro_comm + boundary_comm + after_comm;
  // The boundary's reduction runs in the last backward; the all-gather after the optimizer
  // has no compute to hide behind.
  const double overlap = hw.constants.comm_overlap;
  out.communication = (ga - 1) * exposed(micro_comm, micro_compute, overlap) +
                      exposed(micro_comm + boundary_comm, micro_compute, overlap) + after_comm;

  // Offload, per GPU over PCIe and per node on NVMe (ZeRO-Offload, ZeRO-Infinity).
  double pcie = 0, nvme = 0;
  const bool optimizer_off = in.offload_optimizer != Offload::None && in.stage >= 1;
  const bool param_off = in.offload_param != Offload::None && in.stage == 3;
  if (optimizer_off) {
    // Gradients go down every micro step where ZeRO partitions them (stages 2-3), once at
    // stage 1; the updated 16-bit partition comes back once, unless parameters stay offloaded.
    pcie += (in.stage >= 2 ? ga : 1.0) * partition * bytes;
    if (!param_off) pcie += partition * bytes;
    // NVMe: the fp32 master weights, momentum and variance read and written once a step.
    if (in.offload_optimizer == Offload::Nvme) {
      nvme += 2 * 12 * partition * static_cast<double>(in.gpus_per_node);
    }
  }
  if (param_off) {
    pcie += ga * 2 * partition * bytes;  // fetched for forward and for backward
    if (in.offload_param == Offload::Nvme) {
      nvme += (ga * 2 + 1) * partition * bytes * static_cast<double>(in.gpus_per_node);
    }
  }
  out.offload = pcie / (hw.pcie_gbs * kGB) + nvme / (hw.nvme_gbs * kGB);

  // The optimizer step, once a step. On the GPU it streams its tensors through memory: fp32
  // weights, gradients and states read, weights and states written, plus the 16-bit copy.
  const double states = in.optimizer == Optimizer::Adam ? 2 : 1;
  if (optimizer_off) {
    const double node_params = partition * static_cast<double>(in.gpus_per_node);
    out.optimizer = node_params / (static_cast<double>(hw.cpu_cores) *
                                   hw.constants.cpu_adam_params_per_core_second);
  } else {
    const double touched = (2 + states) * 4 + (1 + states) * 4 + (bytes == 2 ? 2 : 0);
    out.optimizer = partition * touched / (hw.memory_gbs * kGB);
  }

  out.seconds = out.compute + out.communication + out.offload + out.optimizer;
  const double samples = ga * static_cast<double>(in.micro_batch_size) * n;
  out.samples_per_second = samples / out.seconds;
  out.tokens_per_second = samples * static_cast<double>(in.shape->seq_len) / out.seconds;
  out.tflops_per_gpu = out.flops_per_gpu / out.seconds / 1e12;
  return out;
}

}  // namespace zf::memory
