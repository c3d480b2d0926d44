// SPDX-License-Identifier: MIT
// JSON values compared as DeepSpeed reads them: objects by their keys whatever the order,
// numbers by value (5e8 equals 500000000), and the pointers where two documents differ.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace zf::importer {

/// True when `a` and `b` are the same JSON value: objects with the same keys (any order) and
/// equal values, arrays equal item by item, numbers equal as numbers (an integer and a float
/// are equal when they are the same number), strings, booleans and null as themselves.
bool same_json(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

/// The JSON pointers (under `pointer`) where `a` and `b` differ, in `a`'s order then `b`'s: a key
/// only one of two objects has, or a value that differs (objects are compared key by key, anything
/// else as a whole). Empty when same_json(a, b).
///
///     json_differences({"a": 1, "b": {"c": 2}}, {"a": 1.0, "b": {"c": 3}, "d": 0});
///     // {"/b/c", "/d"}
std::vector<std::string> json_differences(const nlohmann::ordered_json& a,
                                          const nlohmann::ordered_json& b,
                                          const std::string& pointer = "");

}  // namespace zf::importer
