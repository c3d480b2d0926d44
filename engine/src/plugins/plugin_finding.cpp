// SPDX-License-Identifier: MIT
// A values hook's finding as the diagnostic `plugin.refused` (render, explain, generate and
// report print refusals through it). Here beside the plugin host, so that generate, below the
// pipeline steps, reads it without reading them.
#include "zeroforge/plugin_host.hpp"

namespace zf {

Diagnostic to_diagnostic(const PluginFinding& finding, const std::string& subject) {
  Diagnostic d;
  d.code = "plugin.refused";
  d.kind = ErrorKind::Plugin;
  d.reporter = finding.plugin;
  d.message = finding.message;
  if (finding.file.empty()) {
    d.where.file = subject;
  } else {
    d.where.file = finding.file;
    d.json_pointer = finding.file_pointer;
  }
  return d;
}

}  // namespace zf
