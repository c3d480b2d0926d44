// SPDX-License-Identifier: MIT
// JSON values as YAML flow text that every YAML reader zeroforge's files meet reads as the same
// value: YAML 1.1 (PyYAML: accelerate, the tests) and YAML 1.2 (go-yaml: kubectl, the API server).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace zf::pipeline {

/// `value` on one line of YAML flow text (`{"name": "data", "emptyDir": {"sizeLimit": 1.0e+20}}`)
/// that YAML 1.1 and YAML 1.2 readers both read back as `value`. The rule: no plain scalar but
/// the few both schemas resolve alike. Every string and key is double-quoted (so `yes`, `no`,
/// `on`, `off`, `~`, `0o17`, `1e+20`, `1_000`, `1:30` stay strings), with `\uXXXX` for each
/// character a reader breaks a line at or refuses (C0 and C1 controls, U+2028, U+2029, U+FEFF,
/// U+FFFE, U+FFFF); integers are plain digits; `true`, `false` and `null` are written so; a float
/// always has a `.` in its mantissa and a sign in its exponent (`1.0e+20`, `2.5e-07`), because
/// YAML 1.1's float pattern needs both (PyYAML reads `1e+20` and `1.0e20` as strings) while YAML
/// 1.2's core schema takes them either way.
std::string yaml_flow_text(const nlohmann::ordered_json& value);

/// The YAML 1.1 / 1.2 float spelling of a JSON number's text (`1e+20` -> `1.0e+20`, `1E20` ->
/// `1.0E+20`, `0.5` as it is): what yaml_flow_text writes for a float.
std::string yaml_float_text(std::string json_number);

}  // namespace zf::pipeline
