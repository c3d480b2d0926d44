// SPDX-License-Identifier: MIT
// The report's throughput charts (see ranking_chart.hpp). Every bar of a tier shares one axis,
// 0 to the tier's fastest candidate, so bars compare across its configs; the figures print
// with fixed decimals, locale-free, so the same manifest gives the same bytes.
#include "report/ranking_chart.hpp"

#include <algorithm>
#include <cstdio>

#include "report/html_text.hpp"

namespace zf::report {
namespace {

constexpr double kRankWidth = 700;
constexpr double kRankBarX = 330;
constexpr double kRankBarWidth = 230;
constexpr double kRankTextX = kRankBarX + kRankBarWidth + 8;
constexpr double kRankHeadHeight = 20;
constexpr double kRankRowHeight = 20;
constexpr double kRankBarHeight = 14;

struct StepPattern {
  const char* part;  // kMemoryEstimateStepParts
  const char* meaning;
  const char* body;
};
constexpr StepPattern kStepPatterns[] = {
    {"compute", "forward and backward at the GPU's peak times the matmul efficiency",
     R"(<rect width="8" height="8" fill="#1f4e79"/>)"},
    {"communication", "ZeRO's collectives that overlap leaves exposed",
     R"(<rect width="8" height="8" fill="#d5efe8"/><path d="M0,2 H8 M0,6 H8" stroke="#17695a" stroke-width="1.4"/>)"},
    {"offload", "PCIe and NVMe transfers of offloaded states and parameters",
     R"(<rect width="8" height="8" fill="#f6b26b"/><circle cx="4" cy="4" r="1.7" fill="#6b3500"/>)"},
    {"optimizer", "the optimizer step (on the GPU, or CPU Adam when offloaded)",
     R"(<rect width="8" height="8" fill="#e6def2"/><path d="M0,0 l8,8 M8,0 l-8,8" stroke="#5b3d8f" stroke-width="0.9"/>)"},
};

std::string fixed_text(double value, const char* format) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string label(const RankedCandidate& c) {
  return "ZeRO-" + std::to_string(c.stage) + ", opt. " + c.optimizer_on + ", params " +
         c.parameters_on + ", ckpt " + c.checkpointing + ", " + std::to_string(c.micro_batch_size) +
         " x " + std::to_string(c.gradient_accumulation);
}

double fastest_of(const Tier& tier) {
  double top = 0;
  for (const Config& c : tier.configs) {
    if (!c.auto_fit) continue;
    for (const RankedCandidate& r : c.auto_fit->ranking) top = std::max(top, r.tokens_per_second);
  }
  return top;
}

}  // namespace

std::string step_pattern_defs() {
  std::string out =
      R"(<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false"><style>)"
      R"(.rank-chart text { font-family: system-ui, "DejaVu Sans", sans-serif; fill: #111; font-size: 11px; })"
      R"( .rank-chart .name { font-size: 12px; font-weight: 700; })"
      R"( .rank-chart .chosen .label { font-weight: 700; }</style><defs>)";
  for (const StepPattern& p : kStepPatterns) {
    out += R"(<pattern id="s-)" + std::string(p.part) +
           R"(" patternUnits="userSpaceOnUse" width="8" height="8">)" + p.body + "</pattern>";
  }
  return out + "</defs></svg>\n";
}

std::string step_legend() {
  std::string out = "<dl class=\"legend\">\n";
  for (const StepPattern& p : kStepPatterns) {
    out +=
        R"(<div><dt><svg width="28" height="14" aria-hidden="true" focusable="false"><rect width="28" height="14" fill="url(#s-)" +
        std::string(p.part) + R"x()" stroke="#000" stroke-width="0.5"/></svg> )x" + p.part +
        "</dt><dd>" + escape(p.meaning) + "</dd></div>\n";
  }
  return out + "</dl>\n";
}

std::string ranking_chart(const Tier& tier, std::size_t index) {
  if (!tier.ranked()) return "";
  const double top = fastest_of(tier);
  double height = 4;
  for (const Config& c : tier.configs) {
    if (c.auto_fit && !c.auto_fit->ranking.empty())
      height += kRankHeadHeight + kRankRowHeight * static_cast<double>(c.auto_fit->ranking.size());
  }
  const std::string id = "rank-" + std::to_string(index);
  const std::string tier_name = tier.name.empty() ? "the family" : "tier " + tier.name;
  std::string out = R"(<svg class="rank-chart" role="img" aria-labelledby=")" + id + "-title " +
                    id + R"(-desc" viewBox="0 0 )" + svg_number(kRankWidth) + " " +
                    svg_number(height) + R"(" width=")" + svg_number(kRankWidth) + R"(" height=")" +
                    svg_number(height) + R"(">)";
  out += R"(<title id=")" + id + R"(-title">Predicted throughput of auto-fit's candidates, )" +
         escape(tier_name) + "</title>";
  out += R"(<desc id=")" + id +
         R"(-desc">For each config auto-fit ranked (objective fastest), one bar per candidate )"
         R"(that fits, fastest first: the first is the one chosen. A bar's length is the )"
         R"(predicted tokens per second, on one axis for the tier; its parts are the step's )"
         R"(compute, communication, offload and optimizer shares of its seconds. The table )"
         R"(beside the chart has the same figures.</desc>)";
  double y = 2;
  for (const Config& c : tier.configs) {
    if (!c.auto_fit || c.auto_fit->ranking.empty()) continue;
    out += R"(<text class="name" x="0" y=")" + svg_number(y + 14) + R"(">)" +
           escape(name_in_tier(c, tier)) + " (" + std::to_string(c.auto_fit->candidates) +
           " candidates fit)</text>";
    y += kRankHeadHeight;
    for (std::size_t i = 0; i < c.auto_fit->ranking.size(); ++i) {
      const RankedCandidate& r = c.auto_fit->ranking[i];
      out += R"(<g class="candidate)" + std::string(i == 0 ? " chosen" : "") + R"("><title>)" +
             escape(r.rung) + ", activation checkpointing " + escape(r.checkpointing) +
             ", micro batch " + std::to_string(r.micro_batch_size) + " x accumulation " +
             std::to_string(r.gradient_accumulation) + "</title>";
      out += R"(<text class="label" x="0" y=")" + svg_number(y + 11) + R"(">)" +
             (i == 0 ? "\xE2\x96\xB6 " : "") + escape(label(r)) + "</text>";
      const double length = top > 0 ? kRankBarWidth * r.tokens_per_second / top : 0;
      double x = kRankBarX;
      for (const auto& [part, seconds] : r.parts) {
        if (seconds <= 0 || r.seconds <= 0) continue;
        const double w = std::min(length * seconds / r.seconds, kRankBarX + length - x);
        if (w <= 0) continue;
        out += R"(<rect x=")" + svg_number(x) + R"(" y=")" + svg_number(y + 1) + R"(" width=")" +
               svg_number(w) + R"(" height=")" + svg_number(kRankBarHeight) + R"(" fill="url(#s-)" +
               escape(part) + R"x()" stroke="#000" stroke-width="0.5"><title>)x" + escape(part) +
               ": " + fixed_text(seconds, "%.3f") + " s</title></rect>";
        x += w;
      }
      out += R"(<text class="figure" x=")" + svg_number(kRankTextX) + R"(" y=")" +
             svg_number(y + 11) + R"(">)" + fixed_text(r.tokens_per_second, "%.0f") +
             " tokens/s, " + fixed_text(r.seconds, "%.3f") + " s</text></g>";
      y += kRankRowHeight;
    }
  }
  return out + "</svg>";
}

std::string ranking_table(const Tier& tier, std::size_t index) {
  if (!tier.ranked()) return "";
  std::string out =
      R"(<table class="rank-table" aria-describedby="rank-)" + std::to_string(index) +
      R"(-title"><caption>The chart's figures: candidates fastest first, seconds per step</caption><thead><tr>)"
      R"(<th>config</th><th>candidate</th><th class="num">tokens/s</th><th class="num">step</th>)"
      R"(<th class="num">compute</th><th class="num">communication</th><th class="num">offload</th><th class="num">optimizer</th></tr></thead><tbody>)"
      "\n";
  for (const Config& c : tier.configs) {
    if (!c.auto_fit) continue;
    for (std::size_t i = 0; i < c.auto_fit->ranking.size(); ++i) {
      const RankedCandidate& r = c.auto_fit->ranking[i];
      out += std::string(i == 0 ? R"(<tr class="chosen">)" : "<tr>") + "<td>" +
             escape(name_in_tier(c, tier)) + "</td><td>" + escape(label(r)) +
             (i == 0 ? " (chosen)" : "") + R"(</td><td class="num">)" +
             fixed_text(r.tokens_per_second, "%.0f") + R"(</td><td class="num">)" +
             fixed_text(r.seconds, "%.3f") + "</td>";
      for (const auto& part : r.parts)
        out += R"(<td class="num">)" + fixed_text(part.second, "%.3f") + "</td>";
      out += "</tr>\n";
    }
  }
  return out + "</tbody></table>\n";
}

}  // namespace zf::report
