// SPDX-License-Identifier: MIT
// The report's throughput charts as inline SVG: per tier, for each config auto-fit ranked
// (objective "fastest"), one bar per candidate, its length the predicted tokens/s and its
// parts the step's compute, communication, offload and optimizer shares; and a table of the
// same figures.
#pragma once

#include <cstddef>
#include <string>

#include "report/report_view.hpp"

namespace zf::report {

/// A zero-size SVG with the step parts' fill patterns (`#s-KEY`), and their legend.
std::string step_pattern_defs();
std::string step_legend();

/// The ranking chart of `tier` (`index` makes its ids unique): `<svg class="rank-chart"
/// role="img">`; "" when no config of the tier has a ranking.
std::string ranking_chart(const Tier& tier, std::size_t index);

/// The table beside it.
std::string ranking_table(const Tier& tier, std::size_t index);

}  // namespace zf::report
