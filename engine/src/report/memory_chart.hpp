// SPDX-License-Identifier: MIT
// The report's memory charts as inline SVG: one chart per tier with a stacked per-GPU bar and
// a host bar for each config, scaled to the tier's capacities; the fill patterns (so the bars
// read without colour) and their legend.
#pragma once

#include <cstddef>
#include <string>

#include "report/report_view.hpp"

namespace zf::report {

/// A zero-size SVG holding the fill patterns every chart and legend refers to (`#p-KEY`).
std::string pattern_defs();

/// The legend: each part of the bars with its pattern and what it means.
std::string legend();

/// The chart of `tier` (`index` makes its ids unique): `<svg class="tier-chart" role="img">`
/// with a title, a description, a capacity line and, per config in the tier's order, its
/// GPU bar part by part, its host bar and the figures as text.
std::string tier_chart(const Tier& tier, std::size_t index);

}  // namespace zf::report
