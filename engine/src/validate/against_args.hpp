// SPDX-License-Identifier: MIT
// The "args" rule family (against_args.cpp): a config checked against the training command it
// will run under. It lives beside the command-line parsing it reads, not with the DeepSpeed rule
// families (deepspeed/rules.hpp) whose Context it reports through.
#pragma once

#include "deepspeed/rules.hpp"
#include "zeroforge/validator.hpp"

namespace zf::validate {

/// args-*: each disagreement between `command` and the config is a finding; validate_config
/// runs it last, when ValidateOptions::against is set.
void check_against_args(const deepspeed::Context& ctx, const TrainingCommand& command);

}  // namespace zf::validate
