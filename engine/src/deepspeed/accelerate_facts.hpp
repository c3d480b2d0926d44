// SPDX-License-Identifier: MIT
// What accelerate's DeepSpeedPlugin does to the config file the HF Trainer hands it, per
// accelerate release (the "accelerate" block of deepspeed_schema.json, read from accelerate's
// source by engine/tools/extract_accelerate_facts.py).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace zf::deepspeed {

/// The fact set of accelerate `version` ("" = the newest): {"from", "commit", "requires",
/// "fills": [{"pointer", "value", "field"}]}. Throws zf::Error (Usage) for a release the
/// block does not list (check_accelerate_version's message).
const nlohmann::ordered_json& accelerate_facts(std::string_view version);

/// The fill of `facts` at `pointer`, or nullptr.
const nlohmann::ordered_json* accelerate_fill(const nlohmann::ordered_json& facts,
                                              std::string_view pointer);

}  // namespace zf::deepspeed
