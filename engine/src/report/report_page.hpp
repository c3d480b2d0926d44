// SPDX-License-Identifier: MIT
// The family report as one self-contained HTML page: inline CSS and SVG, no scripts, fonts or
// other files; every string from user files escaped; the same view gives the same bytes.
#pragma once

#include <string>

#include "report/report_view.hpp"

namespace zf::report {

/// The page: a header (family, counts, what changed against the old manifest), the legend,
/// then per tier its chart with a table of the same figures beside it (or why there is no
/// chart), a table of its configs (settings, batch arithmetic, change, warnings, links) and
/// per config its memory breakdown, auto-fit trail and validator findings.
std::string render_page(const View& view);

}  // namespace zf::report
