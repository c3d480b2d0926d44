// SPDX-License-Identifier: MIT
// A values hook's finding as the diagnostic `plugin.refused` (render, explain, generate's
// explain of a family member share it).
#pragma once

#include <string>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf::pipeline {

/// `finding` at its placed file and pointer (PluginFinding::file), else at `subject` (the
/// template or family file), reported by its plugin.
Diagnostic plugin_refusal(const PluginFinding& finding, const std::string& subject);

}  // namespace zf::pipeline
