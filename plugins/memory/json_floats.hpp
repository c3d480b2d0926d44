// SPDX-License-Identifier: MIT
// JSON text whose floats read as zeroforge writes them: nlohmann's dump does not always print
// the shortest round-trip digits (0.617701 can come out as 0.6177009999999999), and the
// estimate's JSON must be byte for byte what zeroforge.dumps() writes of the same record.
#pragma once

#include <string>

namespace zf::memory {

/// `json` with every number that has a fraction or an exponent rewritten in zeroforge's JSON
/// form (engine/src/number_format.hpp, append_json_float): the shortest digits that read back
/// as the same double, fixed notation for decimal exponents in [-4, 21) (`0.0001`, `100.0`),
/// else `3e-5` / `1.5e300`. Strings and integers are left as they are.
std::string shortest_floats(const std::string& json);

}  // namespace zf::memory
