// SPDX-License-Identifier: MIT
// Rule family "regressions": releases with a regression that a config choice meets (known-
// regression), each entry with its source in DeepSpeed's or an integrator's tracker. Reported
// only where a release is pinned (validate --deepspeed-version, a family's deepspeed_version):
// the newest release zeroforge knows carries no advice to move off it unasked.
#include <string_view>

#include "rules.hpp"

namespace zf::deepspeed {
namespace {

struct KnownRegression {
  std::string_view first, last;  // the releases it was reported in, inclusive
  int stage;                     // the ZeRO stage it meets
  bool bf16_only;                // only with bf16 enabled ("auto" counts: the Trainer may)
  Severity severity;             // Warning: wrong results; Note: slower
  std::string_view source;
  std::string_view what;
  std::string_view advice;
};

// Found in the trackers (the search tool); the ranges are those the reports and the fixes name.
constexpr KnownRegression kKnownRegressions[] = {
    {"0.15.4", "0.16.9", 3, false, Severity::Note, "DeepSpeed issue #7499",
     "ZeRO-3 training was reported about 10% slower than on 0.13.1 (8 x A100, and on Ascend), "
     "with ZeRO-1 and ZeRO-2 unaffected",
     "measure the step time against another release before settling on this one"},
    {"0.17.6", "0.18.2", 2, false, Severity::Warning, "DeepSpeed issue #7718",
     "ZeRO-2 computes wrong gradients (gradient norms far below those of earlier releases and "
     "of ZeRO-3 with the same seed); reported fixed in 0.18.3 (huggingface/trl issue #4540)",
     "use 0.18.3 or newer, or ZeRO-3"},
    {"0.18.5", "0.18.6", 2, false, Severity::Note, "DeepSpeed issue #7885",
     "ZeRO-2 training was reported much slower than on 0.18.4",
     "compare the step time with 0.18.4"},
    {"0.18.3", "0.19.6", 2, true, Severity::Note, "DeepSpeed issue #8224",
     "ZeRO-2 with bf16 computes wrong gradients on more than one rank when a submodule is used "
     "more than once per step (a regression from PR #7665, in 0.18.3; reported in 0.19.3, its "
     "fix, PR #8245, is in no release zeroforge knows)",
     "if the model calls a module twice in one step (shared or tied layers), use ZeRO-3 or a "
     "release before 0.17.6"},
};

bool bf16_on(const json& config) {
  const json* bf16 = member(config, "bf16");
  if (bf16 == nullptr) bf16 = member(config, "bfloat16");
  if (bf16 == nullptr || !bf16->is_object()) return false;
  const json* enabled = member(*bf16, "enabled");
  return enabled != nullptr &&
         ((enabled->is_boolean() && enabled->get<bool>()) || is_auto(*enabled));
}

}  // namespace

void check_regressions(const Context& ctx) {
  if (ctx.options.deepspeed_version.empty()) return;  // the newest, not pinned
  for (const KnownRegression& known : kKnownRegressions) {
    if (ctx.release < require_release(known.first) || ctx.release > require_release(known.last))
      continue;
    if (ctx.stage != known.stage || (known.bf16_only && !bf16_on(ctx.config))) continue;
    ctx.report("/zero_optimization/stage", known.severity, "known-regression",
               ctx.deepspeed() + " is in the range of " + std::string(known.source) + " (" +
                   std::string(known.first) + " to " + std::string(known.last) +
                   "): " + std::string(known.what) + "; " + std::string(known.advice));
  }
}

}  // namespace zf::deepspeed
