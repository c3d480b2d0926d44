// SPDX-License-Identifier: MIT
// Number formatting shared by the renderer (Python's repr of floats, as Jinja2 prints them)
// and by JSON output (zeroforge's stable shortest round-trip form).
#pragma once

#include <string>

namespace zf::detail {

/// Python's `repr(float)`: shortest round-trip digits, fixed notation for exponents in
/// [-4, 16) with a `.0` for integral values, otherwise `1e+16` / `1.5e-05`; `inf`, `nan`.
void append_python_float(std::string& out, double value);

/// zeroforge's JSON form of a float: shortest round-trip digits, fixed notation for
/// exponents in [-4, 21) (`0.0001`, `1.0`), otherwise `3e-5` / `1.5e300` (learning rates
/// read as people write them).
/// Non-finite values are not JSON; callers reject them first.
void append_json_float(std::string& out, double value);

}  // namespace zf::detail
