// SPDX-License-Identifier: MIT
// zf::Finding: one problem the validator's rules found in one config. Plain data, declared
// below the runner so that the DeepSpeed rule families (engine/src/deepspeed/) can report it.
#pragma once

#include <string>

#include "zeroforge/diagnostic.hpp"

namespace zf {

/// One problem found in one config. `pointer` is a JSON pointer into the config ("" for the
/// whole document); `rule` is a stable id documented in docs/validate.md.
struct Finding {
  std::string file;
  std::string pointer;
  Severity severity = Severity::Error;
  std::string rule;
  std::string message;
};

}  // namespace zf
