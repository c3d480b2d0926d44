// SPDX-License-Identifier: MIT
// A plugin file that `list plugins` skips because it cannot be inspected, as a diagnostic and as
// the entry `--format json` lists under "errors"; the Python module's list_plugins says the same.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"

namespace zf::cli {

/// A plugin file that `list plugins` could not inspect (`error`, from PluginHost::inspect): the
/// warning `plugin.skipped`, printed `zeroforge: warning: ` and then the error's whole line
/// (`/opt/plugins/x.so: error: ...`), as list plugins always printed it.
Diagnostic skipped_plugin(const Error& error);

/// The entry of `errors` in `list plugins --format json` for `path`, which failed to load with
/// `error`: `{"path", "error"}` (the error's message) and then the diagnostic's fields as
/// diagnostic_to_json writes them (`code`, `kind`, `severity`, `message`). The Python module's
/// list_plugins writes the same.
nlohmann::ordered_json skipped_plugin_json(const std::filesystem::path& path, const Error& error);

}  // namespace zf::cli
