// SPDX-License-Identifier: MIT
// What an import says about its inputs besides the validator's verdict: the keys carried as
// written (`extra`), a file name that promises another stage, precision or offload than the
// file has, and inputs that are copies of each other or differ in one key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "import/config_mapping.hpp"
#include "zeroforge/validator.hpp"

namespace zf::importer {

/// One `import-passthrough` note per key of `extra` that the template does not write:
/// recursing into the objects `written` (the template's own output for the member) has. The
/// note says why when a binding of `mapping` would have written it, and names the rules of
/// the validator's findings in `judged` (the input's) at the key, inside it, or at an object
/// around it other than the whole config.
std::vector<Finding> passthrough_notes(const std::string& file, const Json& extra,
                                       const Json& written, const ConfigMapping& mapping,
                                       const std::vector<Finding>& judged);

/// An `import-name` warning when the file's name (its last component, without `.json`)
/// names a ZeRO stage (`zero3`, `z3`, `stage_3`), a precision (`bf16`, `fp16`, `fp32`) or
/// offload (`offload`) that `config` does not have.
std::vector<Finding> name_notes(const std::string& file, const Json& config);

/// Two inputs that are the same JSON value (`pointer` empty), or that differ at one key only.
struct Pair {
  std::size_t earlier, later;  ///< indexes into the inputs
  std::optional<std::string> pointer;
  std::string earlier_value, later_value;  ///< shown values there ("absent" when missing)
};

/// Every such pair, by the later input then the earlier one.
std::vector<Pair> find_pairs(const std::vector<const Json*>& configs);

/// The pair as a finding on its later input (`import-duplicate`, `import-one-key`), naming the
/// inputs by `names`.
Finding pair_finding(const Pair& pair, const std::vector<std::string>& names);

}  // namespace zf::importer
