// SPDX-License-Identifier: MIT
// plugin_refusal (see plugin_refusal.hpp).
#include "pipeline/plugin_refusal.hpp"

namespace zf::pipeline {

Diagnostic plugin_refusal(const PluginFinding& finding, const std::string& subject) {
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

}  // namespace zf::pipeline
