// SPDX-License-Identifier: MIT
// A values hook's finding as the diagnostic `plugin.refused` (render, explain, generate and
// report print refusals through it), and a logged plugin message as `plugin.message`. Here
// beside the plugin host, so that generate, below the pipeline steps, reads them without
// reading those steps.
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/plugin_host.hpp"

namespace zf {

Diagnostic to_diagnostic(const PluginFinding& finding, const std::string& subject) {
  Diagnostic d;
  d.code = codes::plugin_refused;
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

std::optional<Diagnostic> plugin_message_diagnostic(const PluginMessage& message) {
  if (message.level < PluginLogLevel::Warning) return std::nullopt;
  Diagnostic d;
  d.severity = message.level == PluginLogLevel::Warning ? Severity::Warning : Severity::Error;
  if (!message.code.empty()) {
    // The host's own words about the plugin's request (a shadowed tier): as the commands say it.
    d.code = message.code;
    d.message = message.text;
    return d;
  }
  d.code = codes::plugin_message;
  d.kind = ErrorKind::Plugin;
  d.message = "plugin '" + message.plugin + "': " + message.text;
  return d;
}

}  // namespace zf
