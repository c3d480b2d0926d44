// SPDX-License-Identifier: MIT
// plugin.skipped: what `list plugins` says about a plugin file it cannot inspect.
#include "skipped_plugin.hpp"

#include "diagnostic_printer.hpp"
#include "zeroforge/diagnostic_codes.hpp"

namespace zf::cli {

Diagnostic skipped_plugin(const Error& error) {
  Diagnostic d;
  d.code = codes::plugin_skipped;
  d.severity = Severity::Warning;
  d.kind = ErrorKind::Plugin;
  // The location stays in the message: the line reads `zeroforge: warning: FILE: error: ...`.
  d.message = error.what();
  return d;
}

nlohmann::ordered_json skipped_plugin_json(const std::filesystem::path& path, const Error& error) {
  nlohmann::ordered_json entry = {{"path", path.string()}, {"error", error.message()}};
  entry.update(diagnostic_to_json(skipped_plugin(error)));
  return entry;
}

}  // namespace zf::cli
