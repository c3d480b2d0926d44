// SPDX-License-Identifier: MIT
// The pieces of to_json_text (json_writer.cpp) for writers that assemble JSON text themselves,
// such as the manifest, which is written entry by entry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace zf::detail {

/// Appends `json` as to_json_text prints it nested `indent` spaces deep: the first line is not
/// indented and there is no final newline.
void append_json(std::string& out, const nlohmann::ordered_json& json, int indent);
/// Appends `text` as a JSON string, quoted and escaped.
void append_json_string(std::string& out, std::string_view text);

}  // namespace zf::detail
