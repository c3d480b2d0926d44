// SPDX-License-Identifier: MIT
// zeroforge import: existing DeepSpeed configs read back into one family whose members
// regenerate each of them, with the validator's verdict on every input and the import's own
// notes (docs/import.md). The CLI (engine/cli/import_command.cpp) prints and writes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "import/config_mapping.hpp"
#include "zeroforge/import.hpp"
#include "zeroforge/validator.hpp"

namespace zf::importer {

// ImportRequest, ImportedConfig, ImportResult and import_configs are public:
// zeroforge/import.hpp (zf::, which zf::importer code sees unqualified).

}  // namespace zf::importer
