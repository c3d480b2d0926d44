// SPDX-License-Identifier: MIT
// The top-level value names the DeepSpeed values contract (deepspeed/contract.cpp) knows, for
// the checks of other files that hold values: tier files.
#pragma once

#include <span>
#include <string_view>

namespace zf::detail {

/// Every top-level value the contract knows, the tier facts plugins read, `auto_fit`, `launch`
/// and the reserved `tier`, in docs/values.md's order.
std::span<const std::string_view> contract_value_names() noexcept;

}  // namespace zf::detail
