// SPDX-License-Identifier: MIT
// The step time as JSON: `zeroforge estimate --format json`'s "step" object, and the parts
// auto-fit's ranking records (docs/estimator.md, "Step time" and "The objective").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "step_time.hpp"

namespace zf::memory {

/// Seconds to the microsecond and rates to three decimals: more digits claim a precision the
/// model does not have (shortest_floats then prints them as written).
double rounded_seconds(double seconds);
double rounded_rate(double rate);

/// {"compute", "communication", "offload", "optimizer"}, seconds.
nlohmann::ordered_json step_parts_json(const StepTime& step);

/// The hardware the model used and what it assumed.
nlohmann::ordered_json hardware_json(const Hardware& hw);

/// The whole "step" object (null without a step: no model shape).
nlohmann::ordered_json step_json(const std::optional<StepTime>& step, const Hardware& hw);

}  // namespace zf::memory
