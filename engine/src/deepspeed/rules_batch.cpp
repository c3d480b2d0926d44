// SPDX-License-Identifier: MIT
// Rule family "batch": DeepSpeed's batch arithmetic (DeepSpeedConfig._set_batch_related_parameters
// and _batch_assertion): missing keys are derived with floor division, then
// train_batch_size == micro * accumulation * world_size is asserted, all three > 0.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "checked_math.hpp"
#include "rules.hpp"

namespace zf::deepspeed {
namespace {

struct Batch {
  std::optional<long long> train, micro, gas;
};

struct Derived {
  long long train = 0, micro = 0, gas = 0;
  std::string how;      // which keys DeepSpeed derived, for the message
  bool beyond = false;  // DeepSpeed's train = micro * gas * world is past 64 bits
};

// micro * gas * world, or nullopt past 64 bits (Python's integers have no such limit, so a
// product that large is simply not equal to any train_batch_size a config can hold).
std::optional<long long> product(long long micro, long long gas, long long world) {
  return detail::checked_product({micro, gas, world});
}

// DeepSpeed's own derivation for one world size.
Derived derive(const Batch& b, long long world) {
  Derived d{b.train.value_or(0), b.micro.value_or(0), b.gas.value_or(0), "", false};
  if (b.train && b.micro && b.gas) return d;
  if (b.train && b.micro) {
    d.gas = world > 0 && d.micro > 0 ? d.train / d.micro / world : 0;
    d.how = "gradient_accumulation_steps = " + std::to_string(d.train) + " // " +
            std::to_string(d.micro) + " // " + std::to_string(world) + " = " +
            std::to_string(d.gas);
  } else if (b.train && b.gas) {
    d.micro = world > 0 && d.gas > 0 ? d.train / world / d.gas : 0;
    d.how = "train_micro_batch_size_per_gpu = " + std::to_string(d.train) + " // " +
            std::to_string(world) + " // " + std::to_string(d.gas) + " = " +
            std::to_string(d.micro);
  } else if (b.train) {
    d.gas = 1;
    d.micro = world > 0 ? d.train / world : 0;
    d.how = "gradient_accumulation_steps = 1, train_micro_batch_size_per_gpu = " +
            std::to_string(d.train) + " // " + std::to_string(world) + " = " +
            std::to_string(d.micro);
  } else {
    if (!b.gas) d.gas = 1;
    const std::optional<long long> train = product(d.micro, d.gas, world);
    d.beyond = !train;
    d.train = train.value_or(0);
    d.how = "train_batch_size = " + std::to_string(d.micro) + " * " + std::to_string(d.gas) +
            " * " + std::to_string(world);
  }
  return d;
}

bool consistent(const Derived& d, long long world) {
  return d.train > 0 && d.micro > 0 && d.gas > 0 && product(d.micro, d.gas, world) == d.train;
}

std::string first_present(const Batch& b) {
  if (b.train) return "/train_batch_size";
  if (b.micro) return "/train_micro_batch_size_per_gpu";
  return "/gradient_accumulation_steps";
}

}  // namespace

void check_batch(const Context& ctx) {
  if (!ctx.config.is_object()) return;
  const json& c = ctx.config;
  static const char* const kKeys[] = {"train_batch_size", "train_micro_batch_size_per_gpu",
                                      "gradient_accumulation_steps"};
  if (const json* elastic = member(c, "elasticity"); enabled_true(elastic)) {
    bool ignore = is_true(*elastic, "ignore_non_elastic_batch_info");
    for (const char* key : kKeys) {
      if (member(c, key) != nullptr && !ignore) {
        ctx.report(
            pointer_join("", key), Severity::Error, "elasticity-batch",
            std::string(
                "with elasticity enabled DeepSpeed computes the batch itself and refuses \"") +
                key + "\"; remove it or set elasticity.ignore_non_elastic_batch_info to true");
      }
    }
    return;
  }
  Batch b;
  std::optional<long long>* slots[] = {&b.train, &b.micro, &b.gas};
  for (int i = 0; i < 3; ++i) {
    const json* it = member(c, kKeys[i]);
    if (it == nullptr || it->is_null()) continue;
    if (is_auto(*it)) return;  // filled by the Trainer (--hf) or already an auto-without-hf error
    if (!it->is_number_integer()) return;  // a type or integer-required error already
    *slots[i] = it->get<long long>();
    if (**slots[i] <= 0) return;  // a bounds error already
  }
  if (!b.train && !b.micro) {
    ctx.report("", Severity::Error, "batch-missing",
               "DeepSpeed needs train_batch_size or train_micro_batch_size_per_gpu (\"Either "
               "train_batch_size or "
               "train_micro_batch_size_per_gpu needs to be provided\"); add "
               "train_micro_batch_size_per_gpu");
    return;
  }
  long long sp = 1;
  if (const json* it = member(c, "sequence_parallel_size");
      it != nullptr && it->is_number_integer() && it->get<long long>() > 0) {
    sp = it->get<long long>();
  }
  std::optional<long long> world_option = ctx.options.world_size;
  if (!world_option && ctx.options.against) world_option = ctx.options.against->world_size;
  if (world_option) {
    long long world = *world_option / sp;
    Derived d = derive(b, world);
    if (consistent(d, world)) return;
    std::string world_text = std::to_string(world);
    if (sp > 1)
      world_text += " (" + std::to_string(*world_option) + " GPUs / sequence_parallel_size " +
                    std::to_string(sp) + ")";
    std::string message;
    if (d.beyond) {
      message = "at world size " + world_text + " DeepSpeed derives " + d.how + ", which " +
                detail::beyond_int64();
    } else if (d.micro <= 0 || d.gas <= 0) {
      message =
          "at world size " + world_text + " DeepSpeed derives " + d.how + ", which must be > 0";
    } else {
      message =
          "train_batch_size must equal train_micro_batch_size_per_gpu * "
          "gradient_accumulation_steps * "
          "world size, but " +
          std::to_string(d.train) + " != " + std::to_string(d.micro) + " * " +
          std::to_string(d.gas) + " * " + world_text;
      if (!d.how.empty()) message += " (DeepSpeed derived " + d.how + ")";
    }
    const std::optional<long long> want =
        product(b.micro.value_or(d.micro), b.gas.value_or(d.gas), world);
    if (b.micro && b.gas && !want) {
      message += "; lower train_micro_batch_size_per_gpu or gradient_accumulation_steps";
    } else if (b.micro && b.gas && *want > 0) {
      message += "; set train_batch_size to " + std::to_string(*want) + " or remove it";
    } else {
      message += "; make train_batch_size a multiple of the other two times the world size";
    }
    ctx.report(first_present(b), Severity::Error, "batch-mismatch", message);
    return;
  }
  if (!b.train) return;  // train_batch_size is derived from the micro batch: any world size works
  std::vector<long long> worlds;
  long long limit = std::min<long long>(b.train.value_or(1), 1 << 20);
  for (long long w = 1; w <= limit; ++w) {
    if (!consistent(derive(b, w), w)) continue;
    if (std::optional<long long> gpus = detail::checked_product({w, sp})) worlds.push_back(*gpus);
  }
  if (worlds.empty()) {
    ctx.report(first_present(b), Severity::Error, "batch-mismatch",
               "no world size satisfies train_batch_size == train_micro_batch_size_per_gpu * "
               "gradient_accumulation_steps * world size with these values; fix the batch keys");
    return;
  }
  std::string list;
  for (std::size_t i = 0; i < worlds.size() && i < 16; ++i)
    list += (i ? ", " : "") + std::to_string(worlds[i]);
  if (worlds.size() > 16) list += ", ...";
  ctx.report(first_present(b), Severity::Note, "batch-world-size",
             std::string("the batch keys are consistent only with world size") +
                 (worlds.size() > 1 ? "s " : " ") + list +
                 "; pass --world-size N to check the one you launch with");
}

}  // namespace zf::deepspeed
