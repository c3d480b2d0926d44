// SPDX-License-Identifier: MIT
// The report's memory charts (see memory_chart.hpp). Bars are scaled to percent of their own
// capacity, so every bar of a chart shares one axis and the capacity line is one line; a bar
// longer than the axis is cut at its end and says so.
#include "report/memory_chart.hpp"

#include <algorithm>
#include <cmath>

#include "report/html_text.hpp"

namespace zf::report {
namespace {

// The geometry of a chart, in SVG user units (the SVG scales down on narrow screens).
constexpr double kWidth = 700;
constexpr double kBarX = 140;      // where bars start: 0 %; config names left of it
constexpr double kBarWidth = 360;  // the axis: 0 % to the chart's top percentage
constexpr double kTextX = kBarX + kBarWidth + 10;
constexpr double kAxisHeight = 30;  // percent labels above the rows
constexpr double kRowHeight = 50;
constexpr double kGpuBarHeight = 20;
constexpr double kHostBarHeight = 8;
constexpr std::size_t kLabelChars = 20;  // longer names are cut (the title has them whole)

struct Pattern {
  const char* key;
  const char* label;
  const char* meaning;
  const char* body;  // inside <pattern width="8" height="8">
};

// Distinct in grey as in colour: solid, stripes of three directions, dots, cross-hatch,
// checks.
constexpr Pattern kPatterns[] = {
    {"model-states", "model states",
     "weights, gradients and optimizer states on this GPU (2+2+K bytes per parameter, "
     "partitioned by the stage)",
     R"(<rect width="8" height="8" fill="#1f4e79"/>)"},
    {"working-set", "stage-3 working set", "ZeRO-3's gathered parameters and prefetch bucket",
     R"(<rect width="8" height="8" fill="#dbe7f3"/><path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" stroke="#1f4e79" stroke-width="1.6"/>)"},
    {"buffers", "communication buffers", "the config's reduce and all-gather buckets",
     R"(<rect width="8" height="8" fill="#d5efe8"/><path d="M0,2 H8 M0,6 H8" stroke="#17695a" stroke-width="1.4"/>)"},
    {"activations", "activations", "the peak of forward and backward",
     R"(<rect width="8" height="8" fill="#f6b26b"/><circle cx="4" cy="4" r="1.7" fill="#6b3500"/>)"},
    {"headroom", "fragmentation headroom",
     "what the caching allocator keeps beyond the activations",
     R"(<rect width="8" height="8" fill="#fdebd7"/><path d="M0,0 l8,8 M8,0 l-8,8" stroke="#b45f06" stroke-width="0.9"/>)"},
    {"optimizer-step", "optimizer step",
     "fp32 gradients and temporaries, when the step is the peak",
     R"(<rect width="8" height="8" fill="#e6def2"/><path d="M2,0 V8 M6,0 V8" stroke="#5b3d8f" stroke-width="1.4"/>)"},
    {"kept-activations", "activation blocks kept",
     "activations the step cannot reuse, when it is the peak",
     R"(<rect width="8" height="8" fill="#fdebd7"/><circle cx="4" cy="4" r="1.2" fill="#b45f06"/><circle cx="0" cy="0" r="1.2" fill="#b45f06"/><circle cx="8" cy="8" r="1.2" fill="#b45f06"/><circle cx="0" cy="8" r="1.2" fill="#b45f06"/><circle cx="8" cy="0" r="1.2" fill="#b45f06"/>)"},
    {"cuda-context", "CUDA context", "memory outside PyTorch's allocator",
     R"(<rect width="8" height="8" fill="#4d4d4d"/><path d="M0,8 l8,-8" stroke="#ffffff" stroke-width="1"/>)"},
    {"host", "host (offload)", "offloaded model states per node, of the host's memory",
     R"(<rect width="8" height="8" fill="#d9ead3"/><rect width="4" height="4" fill="#38761d"/><rect x="4" y="4" width="4" height="4" fill="#38761d"/>)"},
};

std::string cut(const std::string& text) {
  if (text.size() <= kLabelChars) return text;
  std::size_t end = kLabelChars - 1;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
  return text.substr(0, end) + "\xE2\x80\xA6";                                      // …
}

double ratio(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The axis' end in percent of capacity: 100, or what the fullest bar needs in steps of 25,
// at most 200 (longer bars are cut).
double top_percent(const Tier& tier) {
  double top = 100;
  for (const Config& c : tier.configs) {
    if (!c.memory) continue;
    top = std::max({top, 100 * ratio(c.memory->gpu_total, c.memory->gpu_capacity),
                    100 * ratio(c.memory->cpu_total, c.memory->cpu_capacity)});
  }
  return std::min(200.0, std::ceil(top / 25.0) * 25.0);
}

// One stacked bar: parts laid left to right, each width bytes/capacity on the axis, cut at
// the axis' end. Without a capacity the bar is drawn to scale with the tier's largest need.
std::string bar(const std::vector<Segment>& parts, std::int64_t scale_bytes, double top, double y,
                double height) {
  std::string out;
  const double per_byte =
      scale_bytes > 0 ? kBarWidth * 100.0 / top / static_cast<double>(scale_bytes) : 0;
  double x = kBarX;
  const double end = kBarX + kBarWidth;
  for (const Segment& s : parts) {
    if (s.bytes <= 0 || x >= end) continue;
    const double w = std::min(static_cast<double>(s.bytes) * per_byte, end - x);
    out += R"(<rect x=")" + svg_number(x) + R"(" y=")" + svg_number(y) + R"(" width=")" +
           svg_number(w) + R"(" height=")" + svg_number(height) + R"(" fill="url(#p-)" + s.key +
           R"x()" stroke="#000" stroke-width="0.5"><title>)x" + escape(s.label) + ": " +
           gib(s.bytes) + " GiB</title></rect>";
    x += w;
  }
  return out;
}

std::string row(const Config& c, const Tier& tier, double y, double top, std::int64_t tier_max) {
  const std::string name = name_in_tier(c, tier);
  std::string out = R"(<g class="row"><title>)" + escape(c.path) + "</title>";
  out += R"(<text class="name" x="0" y=")" + svg_number(y + 16) + R"(">)" + escape(cut(name)) +
         "</text>";
  if (!c.memory) {
    out += R"(<text class="none" x=")" + svg_number(kBarX) + R"(" y=")" + svg_number(y + 16) +
           R"(">no memory estimate (see the config's notes below)</text></g>)";
    return out;
  }
  const Memory& m = *c.memory;
  const double gpu_y = y + 2, host_y = y + 2 + kGpuBarHeight + 5;
  // The capacity as an empty frame, then the parts over it.
  const double frame = kBarWidth * 100.0 / top;
  for (auto [bar_y, height] :
       {std::pair{gpu_y, kGpuBarHeight}, std::pair{host_y, kHostBarHeight}}) {
    out += R"(<rect class="frame" x=")" + svg_number(kBarX) + R"(" y=")" + svg_number(bar_y) +
           R"(" width=")" + svg_number(frame) + R"(" height=")" + svg_number(height) + R"("/>)";
  }
  out += bar(m.gpu, m.gpu_capacity > 0 ? m.gpu_capacity : tier_max, top, gpu_y, kGpuBarHeight);
  out += bar({{"host", "host (offload)", m.cpu_total}},
             m.cpu_capacity > 0 ? m.cpu_capacity : tier_max, top, host_y, kHostBarHeight);
  // The safety margin: a mark where the usable memory ends, inside the GPU's frame.
  if (m.gpu_capacity > 0 && m.gpu_usable < m.gpu_capacity) {
    const double x = kBarX + kBarWidth * 100.0 * ratio(m.gpu_usable, m.gpu_capacity) / top;
    out += R"(<line class="margin" x1=")" + svg_number(x) + R"(" y1=")" + svg_number(gpu_y - 2) +
           R"(" x2=")" + svg_number(x) + R"(" y2=")" + svg_number(gpu_y + kGpuBarHeight + 2) +
           R"("><title>usable: )" + gib(m.gpu_usable) + " GiB, less the " +
           margin_text(m.gpu_margin) + " safety margin</title></line>";
  }
  auto figure = [](const char* what, std::int64_t need, std::int64_t capacity,
                   std::int64_t usable) {
    std::string text = std::string(what) + gib(need);
    if (capacity <= 0) return text + " GiB (no capacity stated)";
    text += " / " + gib(capacity) + " GiB, " + percent(need, capacity) + "%";
    if (need > usable) text += need > capacity ? ", does not fit" : ", over the safety margin";
    return text;
  };
  const bool gpu_cut = m.gpu_capacity > 0 && 100 * ratio(m.gpu_total, m.gpu_capacity) > top;
  out += R"(<text class="figure" x=")" + svg_number(kTextX) + R"(" y=")" + svg_number(gpu_y + 14) +
         R"(">)" + escape(figure("GPU ", m.gpu_total, m.gpu_capacity, m.gpu_usable)) +
         (gpu_cut ? " \xC2\xBB" : "") + "</text>";
  out += R"(<text class="figure host" x=")" + svg_number(kTextX) + R"(" y=")" +
         svg_number(host_y + 8) + R"(">)" +
         escape(figure("host ", m.cpu_total, m.cpu_capacity, m.cpu_capacity)) + "</text></g>";
  return out;
}

}  // namespace

std::string pattern_defs() {
  std::string out =
      R"(<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>)";
  for (const Pattern& p : kPatterns) {
    out += R"(<pattern id="p-)" + std::string(p.key) +
           R"(" patternUnits="userSpaceOnUse" width="8" height="8">)" + p.body + "</pattern>";
  }
  return out + "</defs></svg>\n";
}

std::string legend() {
  std::string out = "<dl class=\"legend\">\n";
  for (const Pattern& p : kPatterns) {
    out +=
        R"(<div><dt><svg width="28" height="14" aria-hidden="true" focusable="false"><rect width="28" height="14" fill="url(#p-)" +
        std::string(p.key) + R"x()" stroke="#000" stroke-width="0.5"/></svg> )x" + p.label +
        "</dt><dd>" + escape(p.meaning) + "</dd></div>\n";
  }
  return out + "</dl>\n";
}

std::string tier_chart(const Tier& tier, std::size_t index) {
  const double top = top_percent(tier);
  std::int64_t tier_max = 0;  // the scale of bars without a capacity
  for (const Config& c : tier.configs) {
    if (c.memory) tier_max = std::max({tier_max, c.memory->gpu_total, c.memory->cpu_total});
  }
  const double height = kAxisHeight + kRowHeight * static_cast<double>(tier.configs.size()) + 4;
  const std::string id = "chart-" + std::to_string(index);
  const std::string tier_name = tier.name.empty() ? "the family" : "tier " + tier.name;
  std::string out = R"(<svg class="tier-chart" role="img" aria-labelledby=")" + id + "-title " +
                    id + R"(-desc" viewBox="0 0 )" + svg_number(kWidth) + " " + svg_number(height) +
                    R"(" width=")" + svg_number(kWidth) + R"(" height=")" + svg_number(height) +
                    R"(">)";
  out += R"(<title id=")" + id + R"(-title">Memory of each config of )" + escape(tier_name) +
         "</title>";
  out += R"(<desc id=")" + id +
         R"(-desc">One row per config. The upper bar is the estimated peak memory of one GPU, )"
         R"(part by part (model states, stage-3 working set, communication buffers, )"
         R"(activations and fragmentation headroom or the optimizer step, CUDA context), as a )"
         R"(percentage of the GPU's memory; the dashed line is 100 %, and a short mark on )"
         R"(each bar is where the usable memory ends (the safety margin). The lower bar is the )"
         R"(host memory the offloaded model states take per node, as a percentage of the )"
         R"(node's memory. The table beside the chart has the same figures.</desc>)";
  // The axis: a tick every 25 %, the capacity (100 %) dashed.
  for (double pct = 0; pct <= top + 0.01; pct += 25) {
    const double x = kBarX + kBarWidth * pct / top;
    const bool capacity = pct == 100;
    out += R"(<line class=")" + std::string(capacity ? "capacity" : "tick") + R"(" x1=")" +
           svg_number(x) + R"(" y1="20" x2=")" + svg_number(x) + R"(" y2=")" +
           svg_number(height - 2) + R"("/>)";
    out += R"(<text class="axis)" + std::string(capacity ? " capacity-label" : "") + R"(" x=")" +
           svg_number(x) + R"(" y="14">)" + svg_number(pct) + "%</text>";
  }
  for (std::size_t i = 0; i < tier.configs.size(); ++i) {
    out += row(tier.configs[i], tier, kAxisHeight + kRowHeight * static_cast<double>(i), top,
               tier_max);
  }
  return out + "</svg>";
}

}  // namespace zf::report
