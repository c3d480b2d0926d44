// SPDX-License-Identifier: MIT
// Internals of sha256_hex (zeroforge/output.hpp) that tests compare against each other.
#pragma once

#include <string>
#include <string_view>

namespace zf::detail {

/// SHA-256 without the x86 SHA extensions; sha256_hex uses them when the CPU has them.
std::string sha256_hex_portable(std::string_view data);
/// True when sha256_hex runs on the x86 SHA extensions.
bool sha256_has_hardware();

}  // namespace zf::detail
