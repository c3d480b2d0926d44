// SPDX-License-Identifier: MIT
// Scratch (reverted): an upward call, io -> generate, with no include the layering test could see.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace zf {
std::string manifest_entry_text(const nlohmann::ordered_json& entry);  // generate's, by hand
std::string upward_call_demo(const nlohmann::ordered_json& entry) {
  return manifest_entry_text(entry);
}
}  // namespace zf
