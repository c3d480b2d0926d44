// SPDX-License-Identifier: MIT
// What an import says about its inputs besides the validator's verdict: the keys carried as
// written (`extra`), a file name that promises another stage, precision or offload than the
// file has, and inputs that are copies of each other or differ in one key.
#pragma once

#include <cstddef>
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

/// How many inputs a note or the family's description names before "and N more".
inline constexpr std::size_t kShownInputs = 8;

/// Inputs that are the same JSON value (`pointer` empty), or that are the same config except
/// at one key, with at least two different values there (absent is one): what differs, said
/// once per key rather than once per pair of inputs.
struct Variation {
  std::optional<std::string> pointer;  ///< the key; none for inputs that are the same value
  std::vector<std::size_t> inputs;     ///< indexes into the inputs, in input order (2 or more)
  std::vector<std::string> values;     ///< per input, its shown value there ("absent")
};

/// Every such group. The inputs that agree except at key P are found by hashing each input
/// less the member at P (a sum of hashes over leaves, so each is one subtraction), grouping
/// equal hashes and confirming each group by comparing the values: linear in the inputs'
/// size. A key where every input of the group has an object is left to the keys inside it.
/// Ordered by the last input of each group, then by where the key comes in it.
std::vector<Variation> find_variations(const std::vector<const Json*>& configs);

/// The group as a finding on its last input (`import-duplicate`, `import-one-key`), naming
/// the inputs by `names`, at most kShownInputs of them. For two inputs it says "the same
/// config as" / "the only key that differs from" the earlier one.
Finding variation_finding(const Variation& variation, const std::vector<std::string>& names);

/// The group as a sentence of the family's description, naming the inputs by `names`.
std::string variation_sentence(const Variation& variation, const std::vector<std::string>& names);

}  // namespace zf::importer
