// SPDX-License-Identifier: MIT
// The family report's HTML (engine/src/report/report_page.cpp, memory_chart.cpp): one chart per
// tier that has estimates, a table of the same figures, links relative to the report, change
// marks, and every string from user files escaped.
#include "report/report_page.hpp"

#include <gtest/gtest.h>

#include "report/memory_chart.hpp"

namespace zf::report {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Memory memory(std::int64_t gpu_capacity) {
  Memory m;
  m.publisher = "memory";
  m.command = "zeroforge estimate";
  m.model = "llama-2-7b";
  m.gpu = {{"model-states", "model states", 10},      {"working-set", "stage-3 working set", 0},
           {"buffers", "communication buffers", 3},   {"activations", "activations", 4},
           {"headroom", "fragmentation headroom", 1}, {"cuda-context", "CUDA context", 2}};
  m.gpu_total = 20;
  m.gpu_capacity = gpu_capacity;
  m.gpu_usable = gpu_capacity;  // no safety margin unless a test sets one
  m.cpu_total = 6;
  m.cpu_capacity = 60;
  m.gpus_per_node = 8;
  m.nodes = 1;
  m.assumptions = "sequence 4096";
  return m;
}

Config config(const std::string& path, std::optional<Memory> m = std::nullopt) {
  Config c;
  c.path = path;
  c.variant = "stage=1";
  c.facts = {{"world_size", 8},
             {"stage", 1},
             {"precision", "bf16"},
             {"offload_optimizer", "cpu"},
             {"offload_param", "none"},
             {"micro_batch_size", 2},
             {"gradient_accumulation", 4},
             {"train_batch_size", 64}};
  c.sha256 = "0123456789abcdef";
  c.memory = std::move(m);
  if (!c.memory) c.no_memory = "nothing names a model";
  return c;
}

View view() {
  View v;
  v.family = "fam";
  v.zeroforge_version = "0.1.0";
  v.template_name = "deepspeed/config.json.j2";
  v.tiers = {Tier{"small", {config("small/a.json", memory(40)), config("small/b.json")}},
             Tier{"large", {config("large/a.json")}}};
  v.configs = 3;
  return v;
}

TEST(ReportPageTest, OneChartPerTierThatHasEstimatesAndWhyTheOthersHaveNone) {
  const std::string page = render_page(view());
  EXPECT_EQ(count(page, "<svg class=\"tier-chart\" role=\"img\""), 1u);
  EXPECT_EQ(count(page, "<table class=\"chart-table\""), 1u);
  EXPECT_EQ(count(page, "No memory chart for this tier: nothing names a model."), 1u);
  EXPECT_NE(page.find("<title id=\"chart-0-title\">Memory of each config of tier small</title>"),
            std::string::npos);
  EXPECT_EQ(count(page, "no memory estimate (see the config's notes below)"), 1u)
      << "small/b.json's row in the chart";
}

// The notes and the footer name the plugin that published the figures, and say only what its
// record says: no assumptions or command, no words about them.
TEST(ReportPageTest, NamesThePluginThatPublishedTheFigures) {
  const std::string bundled_footer =
      "Memory figures are the memory plugin's estimates (<code>zeroforge estimate</code>; "
      "docs/estimator.md says how they are made and how well they match measurements), not "
      "measurements.";
  const std::string page = render_page(view());
  EXPECT_NE(page.find("<p>Estimated by the memory plugin for <code>llama-2-7b</code> (sequence "
                      "4096): the figures <code>zeroforge estimate</code> prints for this "
                      "model, stage, offload, micro batch and tier.</p>"),
            std::string::npos);
  EXPECT_NE(page.find(bundled_footer), std::string::npos);

  Memory other = memory(40);
  other.publisher = "acme_estimator";
  other.model = "acme <13b>";
  other.assumptions = "";
  other.command = "";
  View v = view();
  v.tiers[1].configs[0].memory = other;
  const std::string mixed = render_page(v);
  EXPECT_NE(mixed.find("<p>Estimated by the acme_estimator plugin for <code>acme &lt;13b&gt;</code>"
                       ".</p>"),
            std::string::npos);
  EXPECT_EQ(mixed.find(bundled_footer), std::string::npos);
  EXPECT_NE(mixed.find("Memory figures are estimates by the plugins that published them (each "
                       "config's notes name its plugin), not measurements."),
            std::string::npos);
}

// A config must fit in the usable memory (the card's less the safety margin): the notes
// show it, the chart marks it, and a config between the two is "over the safety margin".
TEST(ReportPageTest, TheSafetyMarginIsShownAndDecidesWhatFits) {
  Memory m = memory(40);
  m.gpu_total = 39;
  m.gpu_usable = 38;
  m.gpu_margin = 0.05;
  View v = view();
  v.tiers[0].configs[0] = config("small/a.json", m);
  const std::string page = render_page(v);
  EXPECT_NE(page.find("<tr class=\"gpu-usable\"><td>usable, less the 5% safety margin</td><td "
                      "class=\"num\" data-bytes=\"38\">"),
            std::string::npos);
  EXPECT_NE(page.find("<tr class=\"short\"><td><span class=\"mark over\">over</span> short "
                      "by</td><td class=\"num\" data-bytes=\"1\">"),
            std::string::npos);
  EXPECT_NE(page.find("<line class=\"margin\""), std::string::npos);
  EXPECT_NE(page.find("<title>usable: 0.00 GiB, less the 5% safety margin</title>"),
            std::string::npos);
  EXPECT_NE(page.find("GPU 0.00 / 0.00 GiB, 97.5%, over the safety margin"), std::string::npos);
  EXPECT_EQ(count(page, "<span class=\"mark over\">does not fit</span>"), 1u)
      << "the config's summary";
  // Within the usable memory it fits, and what is free is counted to the margin.
  m.gpu_total = 30;
  v.tiers[0].configs[0] = config("small/a.json", m);
  const std::string fits = render_page(v);
  EXPECT_NE(fits.find("<tr class=\"free\"><td>free (20.0%)</td><td class=\"num\" "
                      "data-bytes=\"8\">"),
            std::string::npos);
  EXPECT_EQ(count(fits, "does not fit"), 0u);
  // Without a margin there is no usable row and no mark.
  EXPECT_EQ(count(render_page(view()), "gpu-usable"), 0u);
  EXPECT_EQ(count(render_page(view()), "<line class=\"margin\""), 0u);
}

TEST(ReportPageTest, TheTableBesideTheChartHasTheSameFiguresInBytesAndGiB) {
  const std::string page = render_page(view());
  // small/a.json: 20 of 40 bytes GPU, 6 of 60 host.
  EXPECT_NE(page.find("<tr><td><code>a.json</code></td><td class=\"num\" data-bytes=\"20\">"
                      "0.00</td><td class=\"num\" data-bytes=\"40\">0.00</td><td "
                      "class=\"num\">50.0%</td><td class=\"num\" data-bytes=\"6\">0.00</td><td "
                      "class=\"num\" data-bytes=\"60\">0.00</td><td class=\"num\">10.0%</td></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("<tr class=\"model-states\"><td>model states</td><td class=\"num\" "
                      "data-bytes=\"10\">"),
            std::string::npos);
}

TEST(ReportPageTest, ABarLongerThanItsCapacityIsMarkedInWordsNotOnlyInColour) {
  View v = view();
  v.tiers[0].configs[0].memory = memory(10);  // needs 20 of 10
  const std::string page = render_page(v);
  EXPECT_NE(page.find("GPU 0.00 / 0.00 GiB, 200.0%, does not fit"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"mark over\">over</span> short by"), std::string::npos);
}

TEST(ReportPageTest, LinksAreRelativeToTheReportAndUrlEncoded) {
  View v = view();
  v.link_dir = "../out";
  v.tiers[1].configs[0].path = "large/a b#1.json";
  const std::string page = render_page(v);
  EXPECT_NE(page.find("<a href=\"../out/small/a.json\">"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"../out/large/a%20b%231.json\">"), std::string::npos);
}

TEST(ReportPageTest, EscapesEveryStringFromUserFiles) {
  View v = view();
  const std::string evil = "<script>alert(\"x\")</script>";
  v.description = evil;
  v.tiers[0].name = evil;
  v.tiers[0].configs[0].variant = evil;
  v.tiers[0].configs[0].path = "small/" + evil + ".json";
  v.tiers[0].configs[0].findings = {{"small/x", "/a<b>", Severity::Warning, "r<1>", evil}};
  v.removed = {evil};
  v.baseline.present = true;
  const std::string page = render_page(v);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("href=\"small/%3Cscript%3Ealert%28%22x%22%29%3C/script%3E.json\""),
            std::string::npos);
}

TEST(ReportPageTest, TheHeaderCountsTheChanges) {
  View v = view();
  v.baseline.present = true;
  v.tiers[0].configs[0].change = Change::New;
  v.tiers[0].configs[1].change = Change::Changed;
  v.tiers[1].configs[0].change = Change::Unchanged;
  v.removed = {"medium/x.json"};
  const std::string page = render_page(v);
  EXPECT_NE(page.find("Against the manifest that was in the output directory: 1 new, 1 changed, "
                      "1 unchanged, 1 removed."),
            std::string::npos);
  EXPECT_EQ(count(page, "<span class=\"mark new\">new</span>"), 2u) << "table and details";
  EXPECT_NE(page.find("<span class=\"mark removed\">removed</span> <code>medium/x.json</code>"),
            std::string::npos);
  v.baseline = Baseline{};
  EXPECT_NE(render_page(v).find("The output directory held no manifest"), std::string::npos);
}

TEST(ReportPageTest, ThePageIsSelfContained) {
  const std::string page = render_page(view());
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("url(http"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
}

TEST(ReportPageTest, EveryPatternABarUsesIsDefinedAndInTheLegend) {
  const std::string defs = pattern_defs(), key = legend();
  for (const char* part : {"model-states", "working-set", "buffers", "activations", "headroom",
                           "optimizer-step", "kept-activations", "cuda-context", "host"}) {
    SCOPED_TRACE(part);
    EXPECT_NE(defs.find("<pattern id=\"p-" + std::string(part) + "\""), std::string::npos);
    EXPECT_NE(key.find("fill=\"url(#p-" + std::string(part) + ")\""), std::string::npos);
  }
}

// An imported config may write only some batch keys and leave only some keys to the Trainer
// (manifest facts batch_keys / auto_keys): its row says which, and what precision "auto" means.
TEST(ReportPageTest, BatchAndPrecisionCellsSayWhatAnImportedConfigWritesAndLeavesToTheTrainer) {
  struct Case {
    const char* facts;  // merged over config()'s facts
    const char* cells;  // precision and batch cells
  };
  const Case cases[] = {
      {R"({})", "<td>bf16</td><td>2 \xC3\x97 4 \xC3\x97 8 = 64</td>"},
      {R"({"hf_auto": true})",
       "<td>auto (--fp16 or --bf16)</td><td>2 \xC3\x97 4 \xC3\x97 8 = 64 (the config says "
       "\"auto\": the HF Trainer fills them)</td>"},
      {R"({"hf_auto": true, "auto_keys": ["train_micro_batch_size_per_gpu", "bf16.enabled"],
           "batch_keys": ["train_micro_batch_size_per_gpu", "gradient_accumulation_steps"]})",
       "<td>bf16 with --bf16, else fp32 (\"auto\")</td><td>2 \xC3\x97 4 \xC3\x97 8 = 64 (the "
       "config writes only train_micro_batch_size_per_gpu \"auto\", "
       "gradient_accumulation_steps; DeepSpeed derives the rest)</td>"},
      {R"({"hf_auto": true, "precision": "fp32", "auto_keys": ["gradient_clipping",
           "fp16.enabled"]})",
       "<td>fp32; fp16 \"auto\"</td><td>2 \xC3\x97 4 \xC3\x97 8 = 64</td>"},
      {R"({"hf_auto": true, "auto_keys": ["train_batch_size"]})",
       "<td>bf16</td><td>2 \xC3\x97 4 \xC3\x97 8 = 64 (\"auto\": train_batch_size, which the HF "
       "Trainer fills)</td>"},
      {R"({"batch_keys": []})",
       "<td>bf16</td><td>\xE2\x80\x94 (no batch keys: DeepSpeed needs train_batch_size or "
       "train_micro_batch_size_per_gpu)</td>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.facts);
    View v = view();
    v.tiers[1].configs[0].facts.update(nlohmann::ordered_json::parse(c.facts));
    const std::string page = render_page(v);
    const auto row = page.find("<code>large/a.json</code>");
    ASSERT_NE(row, std::string::npos);
    const std::string tr = page.substr(row, page.find("</tr>", row) - row);
    EXPECT_NE(tr.find(c.cells), std::string::npos) << tr;
  }
}

// Beside the batch arithmetic, the launch the companions write (manifest `launch` and
// `companions`): the schedulers with their choice, the launchers, and nodes × GPUs per node.
TEST(ReportPageTest, TheLaunchCellSaysWhatStartsTheConfigOnHowManyNodesAndGpus) {
  struct Case {
    const char* facts;  // merged over config()'s facts
    const char* cell;   // the batch cell and the launch cell
  };
  const Case cases[] = {
      {R"({})", "= 64</td><td class=\"launch\">\xE2\x80\x94</td>"},
      {R"({"launch": {"nodes": 1, "gpus_per_node": 8},
           "companions": {"torchrun": "large/a.torchrun.sh", "hf-args": "large/a.hf-args.json"}})",
       "= 64</td><td class=\"launch\">torchrun: 1 node \xC3\x97 8 GPUs</td>"},
      {R"({"world_size": 64, "train_batch_size": 512,
           "launch": {"nodes": 8, "gpus_per_node": 8, "slurm": "accelerate",
                      "kubernetes": "TrainJob"},
           "companions": {"deepspeed": "a", "accelerate": "b", "slurm": "c", "kubernetes": "d"}})",
       "= 512</td><td class=\"launch\">SLURM (accelerate), Kubernetes (TrainJob), deepspeed, "
       "accelerate: 8 nodes \xC3\x97 8 GPUs</td>"},
      {R"({"world_size": 1, "train_batch_size": 8,
           "launch": {"nodes": 1, "gpus_per_node": 1}, "companions": {"hf-args": "a"}})",
       "= 8</td><td class=\"launch\">1 node \xC3\x97 1 GPU</td>"},
      {R"({"launch": {"nodes": 2, "gpus_per_node": 4, "kubernetes": "<PyTorchJob>"},
           "companions": {"kubernetes": "d"}})",
       "<td class=\"launch\">Kubernetes (&lt;PyTorchJob&gt;): 2 nodes \xC3\x97 4 GPUs</td>"},
      {R"({"launch": {"nodes": "2"}})", "<td class=\"launch\">\xE2\x80\x94</td>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.facts);
    View v = view();
    v.tiers[1].configs[0].facts.update(nlohmann::ordered_json::parse(c.facts));
    const std::string page = render_page(v);
    EXPECT_NE(page.find("<th>micro × accumulation × world = global batch</th><th>launch</th>"),
              std::string::npos);
    const auto row = page.find("<code>large/a.json</code>");
    ASSERT_NE(row, std::string::npos);
    const std::string tr = page.substr(row, page.find("</tr>", row) - row);
    EXPECT_NE(tr.find(c.cell), std::string::npos) << tr;
  }
}

}  // namespace
}  // namespace zf::report
