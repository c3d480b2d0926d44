// SPDX-License-Identifier: MIT
// The estimator's arithmetic. DeepSpeed's two functions are re-derived from its source so that
// every int()/float step matches Python's (docs/estimator.md lists each term and its source).
#include "estimator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "checked.hpp"

namespace zf::memory {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Python's int(x) for a float: truncation toward zero (of a figure within 8 EiB).
std::int64_t py_int(double x) {
  if (!(std::fabs(x) < 9.0e18)) bytes_beyond_range();
  return static_cast<std::int64_t>(std::trunc(x));
}

// Python's `a * b / c` for ints: true division, correctly rounded, as IEEE division is when
// both operands are exact doubles (all our products stay below 2^53).
double py_truediv(std::int64_t numerator, std::int64_t denominator) {
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

// Elements of one rank's partition: DeepSpeed pads partitions up to equal sizes.
std::int64_t partition(std::int64_t elements, std::int64_t ranks) {
  return (elements + ranks - 1) / ranks;
}

// `capacity` less the fraction `margin` (0 <= margin < 1) of it, rounded: never below 0 nor
// above `capacity`, whatever the double product rounds to near 2^63.
std::int64_t usable_bytes(std::int64_t capacity, double margin) {
  const double kept = static_cast<double>(capacity) * margin;
  if (!(kept < static_cast<double>(capacity))) return 0;
  return capacity - static_cast<std::int64_t>(std::llround(kept));
}

void require_positive(std::int64_t value, const char* name) {
  if (value <= 0) {
    throw std::invalid_argument(std::string(name) + " must be positive, got " +
                                std::to_string(value));
  }
}

}  // namespace

DeepSpeedEstimate deepspeed_zero2(std::int64_t total_params, std::int64_t gpus_per_node,
                                  std::int64_t nodes, bool cpu_offload,
                                  double additional_buffer_factor) {
  const std::int64_t total_gpus = bytes_product({nodes, gpus_per_node});
  std::int64_t gpu = 0;
  double cpu = 0;
  // Python multiplies the ints exactly and converts the product to a float for the factor:
  // one rounding, as the product of the two exact doubles below (which cannot overflow).
  if (cpu_offload) {
    gpu = bytes_product({2, total_params});
    cpu = static_cast<double>(total_params) *
          static_cast<double>(std::max<std::int64_t>(bytes_product({4, total_gpus}), 16)) *
          additional_buffer_factor;
  } else {
    // 2 bytes of 16-bit weights replicated; 18 partitioned: 16-bit and fp32 gradients, fp32
    // weights, momentum and variance (the v0.14.3 formula; before it was 4Ψ + 16Ψ/N).
    gpu = bytes_sum({bytes_product({2, total_params}),
                     py_int(py_truediv(bytes_product({18, total_params}), total_gpus))});
    cpu = static_cast<double>(total_params) *
          static_cast<double>(bytes_product({4, gpus_per_node})) * additional_buffer_factor;
  }
  return {py_int(cpu), gpu};
}

DeepSpeedEstimate deepspeed_zero3(std::int64_t total_params, std::int64_t largest_layer_params,
                                  std::int64_t gpus_per_node, std::int64_t nodes, bool cpu_offload,
                                  bool cpu_offload_params, bool zero_init,
                                  double additional_buffer_factor) {
  const std::int64_t total_gpus = bytes_product({nodes, gpus_per_node});
  const double gpus_factor = 1.0 / static_cast<double>(nodes);
  const std::int64_t largest_layer_memory = bytes_product({4, largest_layer_params});
  const auto psi = static_cast<double>(total_params);
  // Python's max(int, float) keeps the int unless the float is strictly larger; either way
  // the product with Ψ is exact below 2^53, so one double expression reproduces it.
  auto cpu_factor = [&](double per_node_factor) {
    const auto replicated = static_cast<double>(bytes_product({4, gpus_per_node}));
    return per_node_factor > replicated ? per_node_factor : replicated;
  };
  std::int64_t gpu = 0;
  double cpu = 0;
  if (cpu_offload) {
    if (cpu_offload_params) {
      gpu = largest_layer_memory;
      cpu = zero_init ? static_cast<double>(bytes_product({total_params, 18})) * gpus_factor
                      : psi * cpu_factor(18 * gpus_factor);
    } else {
      gpu = bytes_sum(
          {largest_layer_memory, py_int(py_truediv(bytes_product({2, total_params}), total_gpus))});
      cpu = zero_init ? static_cast<double>(bytes_product({total_params, 16})) * gpus_factor
                      : psi * cpu_factor(16 * gpus_factor);
    }
  } else {
    gpu = bytes_sum(
        {largest_layer_memory, py_int(py_truediv(bytes_product({18, total_params}), total_gpus))});
    // Exact products of exact doubles, rounded once as Python converts its exact int.
    cpu = (zero_init ? static_cast<double>(largest_layer_params) : psi) *
          static_cast<double>(bytes_product({4, gpus_per_node}));
  }
  return {py_int(cpu * additional_buffer_factor), gpu};
}

namespace {

// The inputs a caller can get wrong, each refused with what it must be.
void check_inputs(const Inputs& in) {
  require_positive(in.params, "params");
  if (in.largest_layer_params < 0) {
    throw std::invalid_argument("largest_layer_params must be positive, got " +
                                std::to_string(in.largest_layer_params));
  }
  require_positive(in.gpus_per_node, "gpus_per_node");
  require_positive(in.nodes, "nodes");
  // A million GPUs is beyond any cluster; the bound keeps every per-rank product in range.
  if (in.gpus_per_node > 1'000'000 || in.nodes > 1'000'000 ||
      in.gpus_per_node * in.nodes > 1'000'000) {
    throw std::invalid_argument("gpus_per_node=" + std::to_string(in.gpus_per_node) +
                                " x nodes=" + std::to_string(in.nodes) +
                                " is beyond any cluster this estimator describes (at most "
                                "1000000 GPUs)");
  }
  for (auto [value, name] :
       {std::pair{in.params, "params"}, {in.largest_layer_params, "largest_layer_params"}}) {
    if (value > 1'000'000'000'000'000LL) {
      throw std::invalid_argument(std::string(name) + "=" + std::to_string(value) +
                                  " is beyond any model this estimator describes (max 1e15)");
    }
  }
  require_positive(in.micro_batch_size, "micro_batch_size");
  if (in.stage < 0 || in.stage > 3) {
    throw std::invalid_argument("stage must be 0, 1, 2 or 3, got " + std::to_string(in.stage));
  }
  if (in.offload_optimizer != Offload::None && in.stage == 0) {
    throw std::invalid_argument("offload_optimizer takes effect only at stage 1, 2 or 3");
  }
  if (in.offload_param != Offload::None && in.stage != 3) {
    throw std::invalid_argument("offload_param takes effect only at stage 3");
  }
  if (in.additional_buffer_factor <= 0 || (in.headroom && *in.headroom < 0) ||
      in.cuda_context_gib < 0) {
    throw std::invalid_argument(
        "additional_buffer_factor must be positive; headroom and cuda_context_gib not negative");
  }
  if ((in.gpu_memory_gib && *in.gpu_memory_gib <= 0) ||
      (in.cpu_memory_gib && *in.cpu_memory_gib <= 0)) {
    throw std::invalid_argument("gpu_memory_gib and cpu_memory_gib must be positive");
  }
  if (!(in.gpu_memory_margin >= 0 && in.gpu_memory_margin < 1)) {
    throw std::invalid_argument("gpu_memory_margin must be a fraction from 0 to below 1, got " +
                                std::to_string(in.gpu_memory_margin));
  }
  if (in.shape) check_shape(*in.shape);
}

// What every part of the estimate derives from the inputs: the model's elements (Ψ), the
// ranks (N), a rank's partition, the bytes per weight and per gradient (16-bit under mixed
// precision), and what is offloaded.
struct Sizes {
  std::int64_t psi, n, part, wb, gb;
  bool mixed, opt_off, param_off;
};

Sizes sizes_of(const Inputs& in) {
  const bool mixed = in.precision != Precision::Fp32;
  const std::int64_t n = in.gpus_per_node * in.nodes;
  return {in.params,
          n,
          partition(in.params, n),
          mixed ? 2 : 4,
          mixed ? 2 : 4,
          mixed,
          in.offload_optimizer != Offload::None,
          in.offload_param != Offload::None};
}

// The model states on the GPU, and where the offloaded ones go.
void add_model_states(const Inputs& in, const Sizes& z, Estimate& out) {
  const std::int64_t psi = z.psi, part = z.part, wb = z.wb, gb = z.gb;
  const bool mixed = z.mixed, opt_off = z.opt_off, param_off = z.param_off;
  // ZeRO paper (Rajbhandari et al. 2020, §3 and Table 1): 16-bit weights and gradients (2Ψ
  // each) plus KΨ of optimizer states; fp32 training keeps 4-byte weights and gradients and
  // no master copy. Offloaded optimizer states carry an fp32 gradient copy (ZeRO-Offload,
  // Ren et al. 2021): (K + 4)Ψ/N per rank on the CPU.
  std::int64_t k = in.optimizer == Optimizer::Adam ? 12 : 8;
  if (!mixed) k -= 4;  // no fp32 master weights
  out.optimizer_k = static_cast<int>(k);
  std::int64_t gpu = 0, offloaded = 0, param_offloaded = 0;
  switch (in.stage) {
    case 0:
      gpu = (wb + gb + k) * psi;
      break;
    // With the optimizer offloaded, gradients leave the GPU bucket by bucket into the CPU's
    // fp32 gradient copy (ZeRO-Offload; DeepSpeed's own estimators keep no gradients on the
    // GPU then either); stages 1 and 2 share that code path in DeepSpeed.
    case 1:
      gpu = wb * psi + (opt_off ? 0 : gb * psi + k * part);
      break;
    case 2:
      gpu = wb * psi + (opt_off ? 0 : (gb + k) * part);
      break;
    case 3:
      gpu = (param_off ? 0 : wb * part) + (opt_off ? 0 : (gb + k) * part);
      break;
  }
  if (opt_off) offloaded = (k + 4) * part;
  if (param_off) param_offloaded = wb * part;
  out.model_states_gpu = gpu;
  auto place = [&](Offload where, std::int64_t per_rank) {
    const std::int64_t per_node = bytes_product({per_rank, in.gpus_per_node});
    if (where == Offload::Cpu) out.model_states_cpu = bytes_sum({out.model_states_cpu, per_node});
    if (where == Offload::Nvme)
      out.model_states_nvme = bytes_sum({out.model_states_nvme, per_node});
  };
  place(in.offload_optimizer, offloaded);
  place(in.offload_param, param_offloaded);
}

// The config's buffers (elements to bytes), never more than the model itself.
void add_buffers(const Inputs& in, const Sizes& z, Estimate& out) {
  const std::int64_t psi = z.psi, wb = z.wb, gb = z.gb, n = z.n;
  const auto capped = [&](std::int64_t elements) { return std::min(psi, elements); };
  if (in.stage == 3) {
    out.stage3_working_set =
        wb * capped(std::max(in.stage3_max_live_parameters, out.largest_layer_params)) +
        wb * capped(in.stage3_prefetch_bucket_size);
    out.comm_buffers = gb * capped(in.reduce_bucket_size);
  } else if (in.stage == 0) {
    // DeepSpeed's all-reduce at stage 0 flattens gradients into buffers of 5e8 elements
    // (engine.py, MEMORY_OPT_ALLREDUCE_SIZE); one GPU has nothing to reduce.
    out.comm_buffers = n > 1 ? gb * capped(500000000) : 0;
  } else {
    out.comm_buffers = gb * capped(in.reduce_bucket_size) + wb * capped(in.allgather_bucket_size);
  }
}

// The optimizer step's own memory, and the activation blocks it cannot reuse.
void add_optimizer_step(const Inputs& in, const Sizes& z, Estimate& out) {
  const std::int64_t psi = z.psi, part = z.part, n = z.n;
  const bool mixed = z.mixed, opt_off = z.opt_off;
  // The optimizer step, after backward. With mixed precision the optimizer steps on an fp32
  // copy of the gradients: DeepSpeed's FP16_Optimizer (stage 0, fp16 and bf16) converts all
  // of them (4Ψ), ZeRO-1/2 the rank's partition (4Ψ/N, stage_1_and_2.py), ZeRO-3 one
  // sub-group at a time (at most sub_group_size = 1e9 elements, stage3.py). A per-tensor
  // optimizer (torch.optim AdamW, as in the measurements) adds two fp32 temporaries of the
  // largest tensor; DeepSpeed's FusedAdam needs none, so this errs on the safe side. An
  // offloaded optimizer steps on the CPU.
  if (!opt_off) {
    std::int64_t fp32_grads = 0;
    if (mixed) {
      fp32_grads = 4 * (in.stage == 0   ? psi
                        : in.stage == 3 ? std::min<std::int64_t>(part, 1000000000)
                                        : part);
    }
    const std::int64_t largest_rank =
        in.stage == 3 ? partition(out.largest_layer_params, n) : out.largest_layer_params;
    out.optimizer_step = fp32_grads + 2 * 4 * largest_rank;
  }
  // The caching allocator keeps the freed activation blocks reserved; the step can reuse only
  // blocks at least as large as its own tensors. Measured: the loss's fp32 logits blocks are
  // reused when they are as large as the largest fp32 gradient tensor; the layers' smaller
  // blocks are not, so they count on top of the step.
  const std::int64_t largest_step_tensor =
      4 * (in.stage == 3 ? partition(out.largest_layer_params, n) : out.largest_layer_params);
  const std::int64_t logits_block =
      in.shape ? out.activations_logits / (in.loss == Loss::Hf ? 3 : 2) : 0;
  const std::int64_t reusable = logits_block >= largest_step_tensor ? out.activations_logits : 0;
  out.step_unreused = std::max<std::int64_t>(0, out.activations_gpu - reusable);
}

// The totals against the tier's memory.
void add_capacity(const Inputs& in, Estimate& out) {
  if (in.gpu_memory_gib) {
    out.gpu_capacity = bytes_of(*in.gpu_memory_gib * kGiB);
    out.gpu_margin = in.gpu_memory_margin;
    out.gpu_usable = usable_bytes(out.gpu_capacity, in.gpu_memory_margin);
    out.gpu_fits = out.total_gpu <= out.gpu_usable;
  }
  if (in.cpu_memory_gib) {
    out.cpu_capacity = bytes_of(*in.cpu_memory_gib * kGiB);
    out.cpu_fits = out.total_cpu <= out.cpu_capacity;
  }
}

}  // namespace

Estimate estimate(const Inputs& in) {
  check_inputs(in);
  const Sizes z = sizes_of(in);
  const std::int64_t psi = z.psi;
  const bool opt_off = z.opt_off, param_off = z.param_off;
  Estimate out;
  out.params = psi;
  out.largest_layer_params =
      in.largest_layer_params > 0 ? in.largest_layer_params : std::max<std::int64_t>(1, psi / 32);
  out.world_size = z.n;
  add_model_states(in, z, out);
  if (in.shape) {
    const Activations a = activation_bytes(*in.shape, in.micro_batch_size, in.checkpointing,
                                           in.precision, in.attention, in.loss);
    out.activations_layers = a.stored;
    out.activations_logits = a.loss;
    out.activations_backward = a.backward;
    out.activations_gpu = a.peak;
  }

  add_buffers(in, z, out);
  add_optimizer_step(in, z, out);
  out.headroom_fraction = in.headroom.value_or(default_headroom(in.checkpointing));
  out.headroom = bytes_of(static_cast<double>(out.activations_gpu) * out.headroom_fraction);
  const std::int64_t forward_backward = bytes_sum({out.activations_gpu, out.headroom});
  const std::int64_t step = bytes_sum({out.optimizer_step, out.step_unreused});
  out.step_is_peak = out.optimizer_step > 0 && step > forward_backward;
  out.cuda_context = bytes_of(in.cuda_context_gib * kGiB);
  out.total_gpu = bytes_sum({out.model_states_gpu, out.stage3_working_set, out.comm_buffers,
                             std::max(forward_backward, step), out.cuda_context});
  out.total_cpu = out.model_states_cpu;

  // DeepSpeed's estimators know ZeRO-2 and ZeRO-3 with CPU offload; NVMe offload keeps the
  // same GPU side, so it maps to cpu_offload. Parameter offload alone has no estimator.
  if (in.stage == 2) {
    out.deepspeed =
        deepspeed_zero2(psi, in.gpus_per_node, in.nodes, opt_off, in.additional_buffer_factor);
  } else if (in.stage == 3 && (opt_off || !param_off)) {
    out.deepspeed = deepspeed_zero3(psi, out.largest_layer_params, in.gpus_per_node, in.nodes,
                                    opt_off, param_off, in.zero_init, in.additional_buffer_factor);
  }

  add_capacity(in, out);
  return out;
}

std::string describe_margin(const Estimate& e) {
  if (!e.gpu_fits || e.gpu_margin <= 0) return "";
  char buffer[96];
  // The percentage as written: 5, 2.5, 3.75 (at most two decimals).
  std::snprintf(buffer, sizeof buffer, "%.2f GiB less the %.2f",
                static_cast<double>(e.gpu_capacity) / kGiB, e.gpu_margin * 100);
  std::string out = buffer;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out + "% safety margin";
}

const char* to_string(Offload offload) {
  switch (offload) {
    case Offload::None:
      return "none";
    case Offload::Cpu:
      return "cpu";
    case Offload::Nvme:
      return "nvme";
  }
  return "?";
}

const char* to_string(Optimizer optimizer) { return optimizer == Optimizer::Adam ? "adam" : "sgd"; }

std::optional<Offload> offload_from_string(std::string_view text) {
  for (Offload offload : {Offload::None, Offload::Cpu, Offload::Nvme}) {
    if (text == to_string(offload)) return offload;
  }
  return std::nullopt;
}

}  // namespace zf::memory
