// SPDX-License-Identifier: MIT
// The family report's HTML (see report_page.hpp). Everything that came from a user's file —
// family name and description, paths, variant values, findings, plugin messages — goes
// through escape(); ids are made from indexes, never from names.
#include "report/report_page.hpp"

#include <algorithm>
#include <set>

#include "report/html_text.hpp"
#include "report/memory_chart.hpp"
#include "report/ranking_chart.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/tiers.hpp"

namespace zf::report {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kStyle = R"(
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       color: #111; background: #fff; margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 1320px; }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.4rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 0.3rem; border-bottom: 2px solid #333; padding-bottom: 0.15rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.3rem; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; }
a { color: #0b4f8a; }
.muted { color: #444; }
nav ul { list-style: none; padding: 0; margin: 0.3rem 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
.summary { margin: 0.2rem 0; }
.legend { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 0.15rem 1.2rem; margin: 0.4rem 0; }
.legend div { display: flex; gap: 0.5rem; align-items: baseline; }
.legend dt { white-space: nowrap; font-weight: 600; }
.legend dt svg { vertical-align: middle; }
.legend dd { margin: 0; color: #333; font-size: 0.88rem; }
figure.chart { display: flex; flex-wrap: wrap; gap: 1rem 1.5rem; align-items: flex-start; margin: 0.6rem 0; }
figure.chart svg { flex: 0 1 700px; max-width: 100%; height: auto; }
.tier-chart text { font-family: system-ui, "DejaVu Sans", sans-serif; fill: #111; }
.tier-chart .name, .tier-chart .figure { font-size: 12px; }
.tier-chart .figure.host, .tier-chart .none { font-size: 10.5px; }
.tier-chart .axis { font-size: 11px; text-anchor: middle; }
.tier-chart .capacity-label { font-weight: 700; }
.tier-chart .tick { stroke: #d0d0d0; stroke-width: 1; }
.tier-chart .capacity { stroke: #000; stroke-width: 1.5; stroke-dasharray: 5 3; }
.tier-chart .margin { stroke: #b00020; stroke-width: 2; }
.tier-chart .frame { fill: #fff; stroke: #777; stroke-width: 0.75; }
table { border-collapse: collapse; margin: 0.4rem 0; font-size: 0.88rem; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
th, td { border: 1px solid #bbb; padding: 0.2rem 0.45rem; text-align: left; vertical-align: top; }
th { background: #eee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td code, td.variant { white-space: nowrap; }
tr.total td { font-weight: 700; }
.mark { display: inline-block; border: 1px solid #333; border-radius: 3px; padding: 0 0.3rem;
        font-size: 0.78rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.03em; }
.mark.new { background: #e2f0d9; }
.mark.changed { background: #fde9c8; }
.mark.unchanged { background: #f2f2f2; font-weight: 400; }
.mark.over { background: #f4cccc; }
.no-chart { border-left: 4px solid #999; padding: 0.3rem 0.7rem; background: #f6f6f6; }
details.config { border: 1px solid #ccc; border-radius: 4px; margin: 0.35rem 0; padding: 0.2rem 0.6rem; }
details.config > summary { cursor: pointer; }
details.config[open] > summary { margin-bottom: 0.3rem; }
ul.findings { margin: 0.2rem 0; padding-left: 1.2rem; }
div.tables { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
footer { margin-top: 2.5rem; border-top: 1px solid #bbb; padding-top: 0.5rem; font-size: 0.85rem; color: #333; }
@media print { details.config { break-inside: avoid; } }
)";

std::string text_or_dash(const Json& facts, const char* key) {
  auto it = facts.find(key);
  if (it == facts.end() || it->is_null()) return "\xE2\x80\x94";  // —
  return escape(it->is_string() ? it->get<std::string>() : it->dump());
}

std::string where_text(const Json& facts, const char* key) {
  auto it = facts.find(key);
  if (it == facts.end() || !it->is_string()) return "\xE2\x80\x94";
  const std::string where = it->get<std::string>();
  if (where == "none") return "GPU";
  if (where == "cpu") return "CPU";
  if (where == "nvme") return "NVMe";
  return escape(where);
}

std::string mark(Change change) {
  if (change == Change::NotCompared) return "";
  const std::string name = to_string(change);
  return R"(<span class="mark )" + name + R"(">)" + name + "</span>";
}

// The link to a config, relative to the report.
std::string href(const View& view, const std::string& path) {
  return escape(url_path(view.link_dir.empty() ? path : view.link_dir + "/" + path));
}

// The facts' list `key` (batch_keys, auto_keys), or `otherwise` when the manifest has none.
std::vector<std::string> names(const Json& facts, const char* key,
                               std::vector<std::string> otherwise) {
  auto it = facts.find(key);
  if (it == facts.end() || !it->is_array()) return otherwise;
  std::vector<std::string> out;
  for (const auto& name : *it) {
    if (name.is_string()) out.push_back(name.get<std::string>());
  }
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The Trainer keys that say "auto": every one with hf_auto true, the listed ones with a list.
std::vector<std::string> auto_keys(const Json& facts) {
  if (!facts.value("hf_auto", false)) return {};
  std::vector<std::string> all;
  for (auto key : trainer_filled_keys()) all.emplace_back(key);
  return names(facts, "auto_keys", all);
}

// "micro × accumulation × world = train batch" from the manifest's facts, and which of the
// batch keys the config writes when not all three, or leaves to the Trainer.
std::string batch_text(const Json& facts) {
  auto number = [&](const char* key) -> std::string {
    auto it = facts.find(key);
    return it != facts.end() && it->is_number_integer() ? std::to_string(it->get<std::int64_t>())
                                                        : std::string();
  };
  const std::string micro = number("micro_batch_size"), acc = number("gradient_accumulation"),
                    world = number("world_size"), total = number("train_batch_size");
  if (micro.empty() || acc.empty() || world.empty() || total.empty()) return "\xE2\x80\x94";
  std::vector<std::string> all;
  for (auto key : deepspeed_batch_keys()) all.emplace_back(key);
  const std::vector<std::string> written = names(facts, "batch_keys", all);
  if (written.empty()) {
    return "\xE2\x80\x94 (no batch keys: DeepSpeed needs train_batch_size or "
           "train_micro_batch_size_per_gpu)";
  }
  std::string out = micro + " \xC3\x97 " + acc + " \xC3\x97 " + world + " = " + total;
  const std::vector<std::string> autos = auto_keys(facts);
  if (written.size() < all.size()) {
    std::string keys;
    for (const auto& key : written) {
      keys += (keys.empty() ? "" : ", ") + key + (has(autos, key) ? " \"auto\"" : "");
    }
    return out + " (the config writes only " + keys + "; DeepSpeed derives the rest)";
  }
  std::string said_auto;
  for (const auto& key : written) {
    if (has(autos, key)) said_auto += (said_auto.empty() ? "" : ", ") + key;
  }
  if (said_auto.empty()) return out;
  const bool every = std::all_of(written.begin(), written.end(),
                                 [&](const std::string& key) { return has(autos, key); });
  return out + (every ? " (the config says \"auto\": the HF Trainer fills them)"
                      : " (\"auto\": " + said_auto + ", which the HF Trainer fills)");
}

// The precision, or "auto" where the Trainer's --fp16 / --bf16 decide it.
std::string precision_text(const Json& facts) {
  const std::vector<std::string> autos = auto_keys(facts);
  const bool fp16 = has(autos, "fp16.enabled"), bf16 = has(autos, "bf16.enabled");
  if (fp16 && bf16) return "auto (--fp16 or --bf16)";
  const std::string precision = text_or_dash(facts, "precision");
  if (!fp16 && !bf16) return precision;
  const std::string section = fp16 ? "fp16" : "bf16";
  if (precision == section) return section + " with --" + section + ", else fp32 (\"auto\")";
  return precision + "; " + section + " \"auto\"";
}

// A variant's text as a table cell: long ones (an imported config's include entry, with its
// passthrough) are cut, the whole text in the title.
std::string variant_cell(const std::string& variant) {
  constexpr std::size_t kShown = 160;
  if (variant.size() <= kShown) return escape(variant);
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(variant[cut]) & 0xC0) == 0x80) --cut;
  return "<span title=\"" + escape(variant) + "\">" + escape(variant.substr(0, cut)) +
         "\xE2\x80\xA6</span>";
}

std::string gib_cell(std::int64_t bytes) {
  return R"(<td class="num" data-bytes=")" + std::to_string(bytes) + R"(">)" + gib(bytes) + "</td>";
}

std::string header(const View& view) {
  std::string out = "<header>\n<h1>Family <code>" + escape(view.family) + "</code></h1>\n";
  if (!view.description.empty())
    out += R"(<p class="description">)" + escape(view.description) + "</p>\n";
  std::string tiers;
  for (const Tier& tier : view.tiers) {
    if (tier.name.empty()) continue;
    tiers += (tiers.empty() ? "" : ", ") + escape(tier.name);
  }
  out += R"(<p class="summary">)" + std::to_string(view.configs) + " configs";
  if (!view.template_name.empty())
    out += " of template <code>" + escape(view.template_name) + "</code>";
  if (!tiers.empty()) out += " in " + std::to_string(view.tiers.size()) + " tiers (" + tiers + ")";
  out += ". " +
         std::string(view.manifest_written
                         ? "They were written to the output directory with this report."
                         : "Nothing was written: the links point where <code>zeroforge "
                           "generate</code> writes them.") +
         "</p>\n";
  const Baseline& b = view.baseline;
  out += R"(<p class="summary changes">)";
  if (!b.problem.empty()) {
    out += "The manifest already in the output directory could not be read (" + escape(b.problem) +
           "), so changes are not marked.";
  } else if (!b.present) {
    out +=
        "The output directory held no manifest, so there is nothing to compare with: changes "
        "are not marked.";
  } else {
    std::size_t counts[4] = {0, 0, 0, 0};
    for (const Tier& tier : view.tiers) {
      for (const Config& c : tier.configs) ++counts[static_cast<int>(c.change)];
    }
    out += "Against the manifest that was in the output directory: " +
           std::to_string(counts[static_cast<int>(Change::New)]) + " new, " +
           std::to_string(counts[static_cast<int>(Change::Changed)]) + " changed, " +
           std::to_string(counts[static_cast<int>(Change::Unchanged)]) + " unchanged, " +
           std::to_string(view.removed.size()) + " removed.";
  }
  out += "</p>\n";
  if (!view.removed.empty()) {
    out +=
        "<p>Removed (listed by the old manifest, no longer generated):</p>\n<ul "
        "class=\"removed\">\n";
    for (const auto& path : view.removed)
      out += R"(<li><span class="mark removed">removed</span> <code>)" + escape(path) +
             "</code></li>\n";
    out += "</ul>\n";
  }
  out += "<nav aria-label=\"Tiers\"><ul>\n";
  for (std::size_t i = 0; i < view.tiers.size(); ++i) {
    const Tier& tier = view.tiers[i];
    out += R"(<li><a href="#tier-)" + std::to_string(i) + R"(">)" +
           (tier.name.empty() ? std::string("configs") : "tier " + escape(tier.name)) + "</a> (" +
           std::to_string(tier.configs.size()) + ")</li>\n";
  }
  return out + "</ul></nav>\n</header>\n";
}

// The cluster as the estimates state it, else the world size the manifest records.
std::string tier_facts(const Tier& tier) {
  for (const Config& c : tier.configs) {
    if (!c.memory) continue;
    const Memory& m = *c.memory;
    std::string out = std::to_string(m.nodes) + (m.nodes == 1 ? " node" : " nodes") + " \xC3\x97 " +
                      std::to_string(m.gpus_per_node) + (m.gpus_per_node == 1 ? " GPU" : " GPUs");
    if (m.gpu_capacity > 0) {
      out += "; " + gib(m.gpu_capacity) + " GiB per GPU";
      if (m.gpu_usable < m.gpu_capacity)
        out += " (" + gib(m.gpu_usable) + " usable: a " + margin_text(m.gpu_margin) +
               " safety margin)";
    }
    if (m.cpu_capacity > 0) out += "; " + gib(m.cpu_capacity) + " GiB host memory per node";
    return out + ".";
  }
  std::set<std::string> worlds;
  for (const Config& c : tier.configs) worlds.insert(text_or_dash(c.facts, "world_size"));
  std::string out;
  for (const auto& w : worlds) out += (out.empty() ? "" : ", ") + w;
  return "World size " + out + ".";
}

std::string chart_table(const Tier& tier, std::size_t index) {
  std::string out = R"(<table class="chart-table" aria-describedby="chart-)" +
                    std::to_string(index) +
                    R"(-title"><caption>The chart's figures: need of capacity, GiB</caption>)"
                    R"(<thead><tr><th>config</th><th class="num">GPU</th><th class="num">of</th>)"
                    R"(<th class="num">%</th><th class="num">host</th>)"
                    R"(<th class="num">of</th><th class="num">%</th></tr></thead><tbody>)"
                    "\n";
  for (const Config& c : tier.configs) {
    out += "<tr><td><code>" + escape(name_in_tier(c, tier)) + "</code></td>";
    if (!c.memory) {
      out += R"(<td colspan="6">no memory estimate</td></tr>)"
             "\n";
      continue;
    }
    const Memory& m = *c.memory;
    auto capacity_cell = [](std::int64_t capacity) {
      return capacity > 0 ? gib_cell(capacity) : std::string(R"(<td class="num">?</td>)");
    };
    auto percent_cell = [](std::int64_t need, std::int64_t capacity) {
      std::string p = percent(need, capacity);
      std::string cell = R"(<td class="num">)" + (p.empty() ? std::string("?") : p + "%");
      if (capacity > 0 && need > capacity) cell += R"( <span class="mark over">over</span>)";
      return cell + "</td>";
    };
    out += gib_cell(m.gpu_total) + capacity_cell(m.gpu_capacity) +
           percent_cell(m.gpu_total, m.gpu_capacity) + gib_cell(m.cpu_total) +
           capacity_cell(m.cpu_capacity) + percent_cell(m.cpu_total, m.cpu_capacity) + "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

// "SLURM (torchrun), Kubernetes (PyTorchJob), deepspeed: 8 nodes × 8 GPUs": what the companions
// written beside the config launch it with (the schedulers first, then the launchers) and the
// shape they launch, from the manifest's `launch` and `companions`; "—" without companions.
std::string launch_text(const Json& facts) {
  auto launch = facts.find("launch");
  if (launch == facts.end() || !launch->is_object()) return "\xE2\x80\x94";
  auto count = [&](const char* key) {
    auto it = launch->find(key);
    return it != launch->end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
  };
  const std::int64_t nodes = count("nodes"), gpus = count("gpus_per_node");
  if (nodes <= 0 || gpus <= 0) return "\xE2\x80\x94";
  std::string by;
  auto add = [&](const std::string& part) { by += (by.empty() ? "" : ", ") + part; };
  for (const auto& [key, name] : {std::pair{"slurm", "SLURM"}, {"kubernetes", "Kubernetes"}}) {
    auto it = launch->find(key);
    if (it != launch->end() && it->is_string())
      add(std::string(name) + " (" + escape(it->get<std::string>()) + ")");
  }
  auto companions = facts.find("companions");
  for (const char* launcher : {"deepspeed", "torchrun", "accelerate"}) {
    if (companions != facts.end() && companions->is_object() && companions->contains(launcher))
      add(launcher);
  }
  const std::string shape = std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") +
                            " \xC3\x97 " + std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs");
  return by.empty() ? shape : by + ": " + shape;
}

std::string configs_table(const View& view, const Tier& tier, std::size_t tier_index) {
  std::string out =
      R"(<table class="configs"><caption>Configs)" +
      (tier.name.empty() ? std::string() : " of tier " + escape(tier.name)) +
      R"(</caption><thead><tr><th>config</th><th>change</th><th>variant</th><th>stage</th>)"
      R"(<th>optimizer on</th><th>parameters on</th><th>precision</th>)"
      R"(<th>micro × accumulation × world = global batch</th><th>launch</th><th>validator</th>)"
      R"(</tr></thead><tbody>)"
      "\n";
  for (std::size_t i = 0; i < tier.configs.size(); ++i) {
    const Config& c = tier.configs[i];
    const std::string anchor = "config-" + std::to_string(tier_index) + "-" + std::to_string(i);
    out += R"(<tr><td><a href=")" + href(view, c.path) + R"("><code>)" + escape(c.path) +
           "</code></a></td><td>" + mark(c.change) + R"(</td><td class="variant">)" +
           variant_cell(c.variant) + "</td><td>" + text_or_dash(c.facts, "stage") + "</td><td>" +
           where_text(c.facts, "offload_optimizer") + "</td><td>" +
           where_text(c.facts, "offload_param") + "</td><td>" + precision_text(c.facts) +
           "</td><td>" + batch_text(c.facts) + R"(</td><td class="launch">)" +
           launch_text(c.facts) + "</td><td>";
    if (c.findings.empty()) {
      out += "none";
    } else {
      out += R"(<a href="#)" + anchor + R"(">)" + std::to_string(c.findings.size()) +
             (c.findings.size() == 1 ? " finding" : " findings") + "</a>";
    }
    out += "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string memory_section(const Config& c) {
  if (!c.memory) {
    return R"(<p class="no-chart">No memory chart: )" + escape(c.no_memory) + ".</p>\n";
  }
  const Memory& m = *c.memory;
  std::string out = "<h3>Memory</h3>\n<p>Estimated by the " + escape(m.publisher) +
                    " plugin for <code>" + escape(m.model) + "</code>";
  if (!m.assumptions.empty()) out += " (" + escape(m.assumptions) + ")";
  if (!m.command.empty()) {
    out += ": the figures <code>" + escape(m.command) +
           "</code> prints for this model, stage, offload, micro batch and tier";
  }
  out += ".</p>\n";
  out += R"(<div class="tables"><table class="breakdown"><caption>Per GPU, at the peak of )" +
         std::string(m.step_is_peak ? "the optimizer step" : "forward and backward") +
         R"(</caption><thead><tr><th>part</th><th class="num">GiB</th></tr></thead><tbody>)"
         "\n";
  for (const Segment& s : m.gpu) {
    out += R"(<tr class=")" + std::string(s.key) + R"("><td>)" + s.label + "</td>" +
           gib_cell(s.bytes) + "</tr>\n";
  }
  out += R"(<tr class="total gpu-total"><td>total</td>)" + gib_cell(m.gpu_total) + "</tr>\n";
  if (m.gpu_capacity > 0) {
    out += R"(<tr class="gpu-capacity"><td>GPU memory</td>)" + gib_cell(m.gpu_capacity) + "</tr>\n";
    // A config must fit in the usable memory: the card's less the safety margin.
    if (m.gpu_usable < m.gpu_capacity) {
      out += R"(<tr class="gpu-usable"><td>usable, less the )" + margin_text(m.gpu_margin) +
             " safety margin</td>" + gib_cell(m.gpu_usable) + "</tr>\n";
    }
    if (m.gpu_total <= m.gpu_usable) {
      out += R"(<tr class="free"><td>free ()" +
             percent(m.gpu_usable - m.gpu_total, m.gpu_capacity) + "%)</td>" +
             gib_cell(m.gpu_usable - m.gpu_total) + "</tr>\n";
    } else {
      out += R"(<tr class="short"><td><span class="mark over">over</span> short by</td>)" +
             gib_cell(m.gpu_total - m.gpu_usable) + "</tr>\n";
    }
  }
  out += "</tbody></table>\n";
  out +=
      R"(<table class="host"><caption>Per node (host)</caption><thead><tr><th>part</th><th class="num">GiB</th></tr></thead><tbody>)"
      "\n";
  out += R"(<tr class="cpu-total"><td>offloaded model states in CPU memory</td>)" +
         gib_cell(m.cpu_total) + "</tr>\n";
  if (m.cpu_capacity > 0)
    out +=
        R"(<tr class="cpu-capacity"><td>host memory</td>)" + gib_cell(m.cpu_capacity) + "</tr>\n";
  if (m.nvme > 0) {
    out +=
        R"(<tr class="nvme"><td>offloaded model states on NVMe (the tier states no NVMe capacity)</td>)" +
        gib_cell(m.nvme) + "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string auto_fit_section(const Config& c) {
  if (!c.auto_fit) return "";
  const AutoFit& a = *c.auto_fit;
  std::string out = "<h3>Auto-fit</h3>\n<p>Chose " + escape(a.chosen) + " with micro batch " +
                    std::to_string(a.micro_batch_size) + " (the largest that fits: " +
                    std::to_string(a.largest_fitting_micro_batch_size) + "; limited by " +
                    escape(a.limited_by) + ").";
  if (!a.pinned.empty()) {
    std::string pinned;
    for (const auto& name : a.pinned) pinned += (pinned.empty() ? "" : ", ") + escape(name);
    out += " Left as set: " + pinned + ".";
  }
  out += "</p>\n";
  if (a.objective == "fastest" && !a.ranking.empty()) {
    out +=
        "<p>Objective fastest: of " + std::to_string(a.candidates) +
        " candidates that fit, the step-time model predicts this one fastest (" +
        escape(std::to_string(static_cast<long long>(a.ranking.front().tokens_per_second + 0.5))) +
        " tokens/s); the tier's throughput chart shows the first " +
        std::to_string(a.ranking.size()) + ".</p>\n";
    if (a.escalated.empty()) return out;
    out += "<p>Rungs that fit at no micro batch:</p>\n";
  } else if (a.escalated.empty()) {
    return out + "<p>The first rung tried fit.</p>\n";
  }
  out +=
      R"(<table class="trail"><caption>Rungs tried before, in order (GiB)</caption><thead><tr>)"
      R"(<th>rung</th><th class="num">micro batch</th><th class="num">GPU need</th>)"
      R"(<th class="num">GPU usable</th><th class="num">GPU short by</th><th class="num">host need</th>)"
      R"(<th class="num">host</th><th>why not</th></tr></thead><tbody>)"
      "\n";
  for (const RejectedRung& r : a.escalated) {
    const std::int64_t short_by = r.gpu_bytes > r.gpu_usable ? r.gpu_bytes - r.gpu_usable : 0;
    out += "<tr><td>" + escape(r.rung) + R"(</td><td class="num">)" +
           std::to_string(r.micro_batch_size) + "</td>" + gib_cell(r.gpu_bytes) +
           gib_cell(r.gpu_usable) + gib_cell(short_by) + gib_cell(r.cpu_bytes) +
           gib_cell(r.cpu_capacity) + "<td>" + escape(r.reason) + "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string findings_section(const Config& c) {
  if (c.findings.empty()) return "";
  std::string out = "<h3>Validator</h3>\n<ul class=\"findings\">\n";
  for (const Finding& f : c.findings) {
    out += "<li><strong>" + std::string(severity_name(f.severity)) + "</strong> [" +
           escape(f.rule) + "] <code>" + escape(f.pointer.empty() ? "/" : f.pointer) +
           "</code>: " + escape(f.message) + "</li>\n";
  }
  return out + "</ul>\n";
}

std::string config_details(const View& view, const Config& c, const std::string& anchor) {
  std::string summary = "<code>" + escape(c.path) + "</code>";
  if (c.change != Change::NotCompared) summary += " " + mark(c.change);
  if (c.memory) {
    const Memory& m = *c.memory;
    summary += " \xE2\x80\x94 GPU " + gib(m.gpu_total) + " GiB";
    if (m.gpu_capacity > 0)
      summary += " of " + gib(m.gpu_capacity) + " (" + percent(m.gpu_total, m.gpu_capacity) + "%)";
    if (m.gpu_capacity > 0 && m.gpu_total > m.gpu_usable)
      summary += R"( <span class="mark over">does not fit</span>)";
  }
  if (!c.findings.empty()) {
    summary += " \xE2\x80\x94 " + std::to_string(c.findings.size()) +
               (c.findings.size() == 1 ? " finding" : " findings");
  }
  std::string out =
      R"(<details class="config" id=")" + anchor + R"("><summary>)" + summary + "</summary>\n";
  out += R"(<p><a href=")" + href(view, c.path) + R"(">Open the config</a> (sha256 <code>)" +
         escape(c.sha256.substr(0, 12)) + "</code>)</p>\n";
  out += memory_section(c) + auto_fit_section(c) + findings_section(c);
  return out + "</details>\n";
}

// The footer's word on the figures. The bundled estimator (plugin `memory`) is the one this
// page names when it charts nothing, so a page without another plugin's estimate says what
// it always said; figures another plugin published are that plugin's, named in each config's
// notes.
std::string figures_note(const View& view) {
  for (const Tier& tier : view.tiers) {
    for (const Config& c : tier.configs) {
      if (c.memory && c.memory->publisher != "memory") {
        return "Memory figures are estimates by the plugins that published them (each config's "
               "notes name its plugin), not measurements.";
      }
    }
  }
  return "Memory figures are the memory plugin's estimates (<code>zeroforge estimate</code>; "
         "docs/estimator.md says how they are made and how well they match measurements), not "
         "measurements.";
}

std::string tier_section(const View& view, const Tier& tier, std::size_t index) {
  const std::string id = "tier-" + std::to_string(index);
  std::string out = R"(<section class="tier" id=")" + id + R"(" aria-labelledby=")" + id +
                    R"(-heading">)" + "\n<h2 id=\"" + id + "-heading\">" +
                    (tier.name.empty() ? std::string("Configs") : "Tier " + escape(tier.name)) +
                    "</h2>\n<p class=\"tier-facts\">" + escape(tier_facts(tier)) + "</p>\n";
  if (tier.charted()) {
    out += "<figure class=\"chart\">\n" + tier_chart(tier, index) + "\n" +
           chart_table(tier, index) + "</figure>\n";
  } else {
    // One reason when every config shares it (the usual case: no model anywhere).
    std::set<std::string> reasons;
    for (const Config& c : tier.configs) reasons.insert(c.no_memory);
    out += R"(<p class="no-chart">No memory chart for this tier: )" +
           (reasons.size() == 1 ? escape(*reasons.begin()) : std::string("see each config below")) +
           ". <code>zeroforge report FAMILY --model NAME</code> estimates the configs with a model "
           "preset (<code>zeroforge list presets</code>) without changing them.</p>\n";
  }
  if (tier.ranked()) {
    out += "<figure class=\"chart\">\n" + ranking_chart(tier, index) + "\n" +
           ranking_table(tier, index) + "</figure>\n";
  }
  out += configs_table(view, tier, index);
  for (std::size_t i = 0; i < tier.configs.size(); ++i) {
    out += config_details(view, tier.configs[i],
                          "config-" + std::to_string(index) + "-" + std::to_string(i));
  }
  return out + "</section>\n";
}

}  // namespace

std::string render_page(const View& view) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>zeroforge report: " +
      escape(view.family) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += pattern_defs();
  out += header(view);
  out += "<main>\n";
  bool charted = false;
  for (const Tier& tier : view.tiers) charted = charted || tier.charted();
  if (charted) {
    out +=
        "<section class=\"reading\" aria-labelledby=\"reading-heading\">\n"
        "<h2 id=\"reading-heading\">Reading the charts</h2>\n"
        "<p>Each row is one config. The upper bar is one GPU's estimated peak, part by part, "
        "as a percentage of the GPU's memory; the dashed line is the capacity (100%). The "
        "lower bar is the host memory the offloaded model states take per node. Every "
        "part has its own pattern, and the table beside each chart has the same figures.</p>\n" +
        legend() + "</section>\n";
  }
  bool ranked = false;
  for (const Tier& tier : view.tiers) ranked = ranked || tier.ranked();
  if (ranked) {
    // Only on a page with a ranking, so every other page stays as it was, byte for byte.
    out += step_pattern_defs() +
           "<section class=\"reading\" aria-labelledby=\"ranking-heading\">\n"
           "<h2 id=\"ranking-heading\">Reading the throughput charts</h2>\n"
           "<p>Where auto-fit chose the fastest config (<code>auto_fit.objective: \"fastest\""
           "</code>), a second chart ranks the candidates that fit by the step-time model's "
           "predicted tokens per second, fastest (the one chosen, marked \xE2\x96\xB6) first. "
           "Each bar is split into the step's parts by their share of its seconds.</p>\n" +
           step_legend() + "</section>\n";
  }
  for (std::size_t i = 0; i < view.tiers.size(); ++i) out += tier_section(view, view.tiers[i], i);
  out += "</main>\n<footer>\n<p>Made by zeroforge " + escape(view.zeroforge_version) +
         " from family <code>" + escape(view.family) + "</code>. " + figures_note(view) +
         " This page is self-contained: no scripts, no fonts, no network.</p>\n</footer>\n"
         "</body>\n</html>\n";
  return out;
}

}  // namespace zf::report
