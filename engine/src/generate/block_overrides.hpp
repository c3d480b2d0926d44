// SPDX-License-Identifier: MIT
// Warnings for values that an overridden template block leaves unread (render and generate).
#pragma once

#include <string>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/template.hpp"

namespace zf::pipeline {

/// A top-level value a layer sets, and how a warning names that layer: `--set fp16.x=1`,
/// `team/family.json: /values/fp16`, a tier or values file.
struct ValueSet {
  std::string name;
  std::string label;
};

/// One warning (`values.overridden-block`, at the label) per name in `sets` (the first to set it
/// names it) that only a block of a parent template reads, a block `tpl` overrides without
/// `super()` (Template::overridden_blocks): the rendered config ignores the value.
///
///     --set fp16.loss_scale_window=2000: warning: fp16 is set, but only block 'precision' of
///     deepspeed/config.json.j2 reads it, and team/config.json.j2 overrides that block without
///     super(): the config ignores it (to change one key, set its value rather than override
///     the block; docs/values.md)
std::vector<Diagnostic> overridden_block_warnings(const Template& tpl,
                                                  const std::vector<ValueSet>& sets);

}  // namespace zf::pipeline
