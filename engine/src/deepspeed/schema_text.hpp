// SPDX-License-Identifier: MIT
// The compiled-in text of deepspeed_schema.json (defined in the CMake-generated schema_data.cpp).
#pragma once

#include <string_view>

namespace zf::deepspeed {

/// The content of engine/src/deepspeed/deepspeed_schema.json.
std::string_view schema_text() noexcept;

}  // namespace zf::deepspeed
