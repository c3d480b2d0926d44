// SPDX-License-Identifier: MIT
// The family report end to end (`zeroforge report`, `zeroforge generate --report`): every
// config appears and links to its file, the memory figures equal `zeroforge estimate`'s for
// the config's own settings and tier, auto-fit's trail, changes against the old manifest,
// byte-identical reruns, escaping, and the errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <regex>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::source_dir;
using test::TempDir;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The <details> of the config at `path`.
std::string details_of(const std::string& html, const std::string& path) {
  const std::string head = "<summary><code>" + path + "</code>";
  const auto at = html.find(head);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no details for " << path;
    return "";
  }
  return html.substr(at, html.find("</details>", at) - at);
}

// The breakdown rows of a config's details: row class -> bytes.
std::map<std::string, std::int64_t> rows_of(const std::string& details) {
  std::map<std::string, std::int64_t> out;
  static const std::regex row(
      R"re(<tr class="([a-z -]+)"><td>.*?</td><td class="num" data-bytes="(\d+)">)re");
  for (std::sregex_iterator it(details.begin(), details.end(), row), end; it != end; ++it)
    out[(*it)[1]] = std::stoll((*it)[2]);
  return out;
}

std::string device(const Json& config, const char* key) {
  const Json& zero = config.at("zero_optimization");
  return zero.contains(key) ? zero.at(key).at("device").get<std::string>() : "none";
}

// `zeroforge estimate --format json` for what a written config and its tier file say.
Json estimate_for(const Json& config, const Json& tier, const std::string& model,
                  const std::vector<std::string>& extra = {}) {
  const Json& zero = config.at("zero_optimization");
  const std::string precision =
      config.contains("bf16") && config["bf16"].value("enabled", false)   ? "bf16"
      : config.contains("fp16") && config["fp16"].value("enabled", false) ? "fp16"
                                                                          : "fp32";
  std::vector<std::string> args = {
      "estimate",
      "--model",
      model,
      "--stage",
      std::to_string(zero.at("stage").get<int>()),
      "--offload-optimizer",
      device(config, "offload_optimizer"),
      "--offload-param",
      device(config, "offload_param"),
      "--micro-batch-size",
      std::to_string(config.at("train_micro_batch_size_per_gpu").get<int>()),
      "--precision",
      precision,
      "--gpus-per-node",
      tier.at("gpus_per_node").dump(),
      "--nodes",
      tier.at("nodes").dump(),
      "--gpu-memory-gib",
      tier.at("gpu_memory_gib").dump(),
      "--cpu-memory-gib",
      tier.at("cpu_memory_gib").dump(),
      "--format",
      "json"};
  for (const char* bucket : {"reduce_bucket_size", "allgather_bucket_size",
                             "stage3_prefetch_bucket_size", "stage3_max_live_parameters"}) {
    if (!zero.contains(bucket)) continue;
    std::string flag = std::string("--") + bucket;
    std::replace(flag.begin(), flag.end(), '_', '-');
    args.insert(args.end(), {flag, std::to_string(zero.at(bucket).get<std::int64_t>())});
  }
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_cli(args);
  EXPECT_NE(r.exit_code, 2) << r.err;
  return Json::parse(r.out);
}

// Every row of the breakdown equals the estimate's figure for the same part.
void expect_same_figures(const std::map<std::string, std::int64_t>& rows, const Json& e) {
  const bool step = e["optimizer_step"]["is_peak"].get<bool>();
  std::map<std::string, std::int64_t> expected = {
      {"model-states", e["model_states"]["gpu_bytes"]},
      {"working-set", e["stage3_working_set"]["gpu_bytes"]},
      {"buffers", e["comm_buffers"]["gpu_bytes"]},
      {"cuda-context", e["cuda_context"]["gpu_bytes"]},
      {"total gpu-total", e["total"]["gpu_bytes"]},
      {"gpu-capacity", e["capacity"]["gpu_bytes"]},
      {"cpu-total", e["total"]["cpu_bytes"]},
      {"cpu-capacity", e["capacity"]["cpu_bytes"]}};
  if (step) {
    expected["optimizer-step"] = e["optimizer_step"]["gpu_bytes"];
    expected["kept-activations"] = e["optimizer_step"]["unreused_activation_bytes"];
  } else {
    expected["activations"] = e["activations"]["gpu_bytes"];
    expected["headroom"] = e["headroom"]["gpu_bytes"];
  }
  // A config fits in the usable memory: the card's less the safety margin.
  const std::int64_t total = e["total"]["gpu_bytes"], usable = e["capacity"]["gpu_usable_bytes"];
  EXPECT_LT(usable, e["capacity"]["gpu_bytes"].get<std::int64_t>()) << "the default margin";
  expected["gpu-usable"] = usable;
  if (total <= usable) {
    expected["free"] = usable - total;
  } else {
    expected["short"] = total - usable;
  }
  for (const auto& [row, bytes] : expected) {
    SCOPED_TRACE(row);
    ASSERT_TRUE(rows.count(row));
    EXPECT_EQ(rows.at(row), bytes);
  }
}

class ReportCliTest : public ::testing::Test {
 protected:
  std::string path(const std::string& relative) const { return (dir.path() / relative).string(); }
  std::string read(const std::string& relative) const { return read_file(dir.path() / relative); }
  Json tier(const std::string& name) const {
    return Json::parse(read_file(source_dir() / "presets" / "tiers" / (name + ".json")));
  }
  // A family over the DeepSpeed template: stages x precisions on the medium tier.
  std::string family(const Json& stages, const Json& extra = Json::object()) const {
    Json f = {{"name", "ab"},
              {"template", "deepspeed/config.json.j2"},
              {"axes", {{"stage", stages}, {"precision", {"bf16", "fp16"}}}},
              {"tiers", {"medium"}},
              {"output", "{{ tier }}/zero{{ stage }}-{{ precision }}.json"}};
    for (const auto& [key, value] : extra.items()) f[key] = value;
    return dir.write("ab.json", f.dump(2)).string();
  }
  TempDir dir;
};

TEST_F(ReportCliTest, EveryConfigOfTheExampleAppearsWithItsFactsAndWhyThereIsNoChart) {
  ASSERT_EQ(run_cli({"generate", "example", "-o", path("out")}).exit_code, 0);
  auto r = run_cli({"report", "example", "--dir", path("out"), "-o", path("report.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "zeroforge: wrote the report of family 'example' (18 configs) to " +
                       path("report.html") + "\n");
  EXPECT_EQ(r.err, "");
  const std::string html = read("report.html");
  const Json manifest = Json::parse(read("out/manifest.json"));
  ASSERT_EQ(manifest["configs"].size(), 18u);
  for (const auto& entry : manifest["configs"]) {
    const std::string p = entry["path"];
    SCOPED_TRACE(p);
    EXPECT_EQ(count(html, "<a href=\"out/" + p + "\"><code>" + p + "</code></a>"), 1u);
    EXPECT_TRUE(fs::exists(dir.path() / "out" / p)) << "the link resolves";
    // The row states the config's own batch arithmetic, as the manifest records it.
    const std::string batch = std::to_string(entry["micro_batch_size"].get<int>()) + " × " +
                              std::to_string(entry["gradient_accumulation"].get<int>()) + " × " +
                              std::to_string(entry["world_size"].get<int>()) + " = " +
                              std::to_string(entry["train_batch_size"].get<int>());
    const auto row = html.find("<code>" + p + "</code></a></td>");
    ASSERT_NE(row, std::string::npos);
    EXPECT_NE(html.substr(row, html.find("</tr>", row) - row).find(batch), std::string::npos);
    EXPECT_EQ(count(html, "<summary><code>" + p +
                              "</code> <span class=\"mark unchanged\">unchanged</span>"),
              1u);
  }
  // Tiers in the family's order, none charted: the example names no model.
  const auto small = html.find("<h2 id=\"tier-0-heading\">Tier small</h2>");
  const auto medium = html.find("<h2 id=\"tier-1-heading\">Tier medium</h2>");
  const auto large = html.find("<h2 id=\"tier-2-heading\">Tier large</h2>");
  EXPECT_TRUE(small < medium && medium < large && large != std::string::npos);
  EXPECT_EQ(count(html, "class=\"tier-chart\""), 0u);
  EXPECT_EQ(count(html,
                  "<p class=\"no-chart\">No memory chart for this tier: nothing names a model for "
                  "this config (no auto_fit.model in its values, no --model), so there is nothing "
                  "to estimate its memory from. <code>zeroforge report FAMILY --model NAME</code>"),
            3u);
  EXPECT_NE(html.find("Against the manifest that was in the output directory: 0 new, 0 changed, "
                      "18 unchanged, 0 removed."),
            std::string::npos);
}

TEST_F(ReportCliTest, WithAModelTheFiguresAreEstimatesOfEachConfigAsItStands) {
  ASSERT_EQ(run_cli({"generate", "example", "-o", path("out")}).exit_code, 0);
  auto r = run_cli({"report", "example", "--model", "llama-2-7b", "--plugin-opt",
                    "memory.estimate.activation_checkpointing=full", "--dir", path("out"), "-o",
                    path("report.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("report.html");
  EXPECT_EQ(count(html, "<svg class=\"tier-chart\" role=\"img\""), 3u) << "one chart per tier";
  EXPECT_NE(html.find("18 unchanged"), std::string::npos) << "the configs did not change";
  const Json manifest = Json::parse(read("out/manifest.json"));
  for (const auto& entry : manifest["configs"]) {
    const std::string p = entry["path"];
    SCOPED_TRACE(p);
    const Json config = Json::parse(read("out/" + p));
    const Json e = estimate_for(config, tier(entry["tier"]), "llama-2-7b",
                                {"--activation-checkpointing", "full"});
    expect_same_figures(rows_of(details_of(html, p)), e);
  }
}

TEST_F(ReportCliTest, AutoFitsTrailSaysWhichRungsDidNotFitAndByHowMuch) {
  ASSERT_EQ(run_cli({"generate", "llama-2-7b-autofit", "-o", path("out")}).exit_code, 0);
  auto r = run_cli({"report", "llama-2-7b-autofit", "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  EXPECT_EQ(count(html, "<svg class=\"tier-chart\" role=\"img\""), 3u);
  const Json family =
      Json::parse(read_file(source_dir() / "presets/families/llama-2-7b-autofit.json"));
  const std::string model = family["values"]["auto_fit"]["model"];
  const std::string checkpointing = family["values"]["auto_fit"]["activation_checkpointing"];
  std::size_t rungs = 0;
  const Json manifest = Json::parse(read("out/manifest.json"));
  for (const auto& entry : manifest["configs"]) {
    const std::string p = entry["path"];
    SCOPED_TRACE(p);
    const Json config = Json::parse(read("out/" + p));
    const Json t = tier(entry["tier"]);
    const std::string details = details_of(html, p);
    expect_same_figures(
        rows_of(details),
        estimate_for(config, t, model, {"--activation-checkpointing", checkpointing}));
    // Each rung tried before: its need equals estimate's at that rung and micro batch.
    static const std::regex rung(
        R"re(<tr><td>ZeRO-(\d), optimizer on (GPU|CPU|NVMe), parameters on (GPU|CPU|NVMe)</td><td class="num">(\d+)</td><td class="num" data-bytes="(\d+)">[^<]*</td><td class="num" data-bytes="(\d+)">[^<]*</td><td class="num" data-bytes="(\d+)">[^<]*</td><td class="num" data-bytes="(\d+)">)re");
    for (std::sregex_iterator it(details.begin(), details.end(), rung), end; it != end; ++it) {
      auto where = [](const std::string& w) {
        return w == "GPU" ? std::string("none") : w == "CPU" ? std::string("cpu") : "nvme";
      };
      Json tried = config;
      tried["zero_optimization"]["stage"] = std::stoi((*it)[1]);
      tried["zero_optimization"].erase("offload_optimizer");
      tried["zero_optimization"].erase("offload_param");
      if ((*it)[2] != "GPU")
        tried["zero_optimization"]["offload_optimizer"]["device"] = where((*it)[2]);
      if ((*it)[3] != "GPU")
        tried["zero_optimization"]["offload_param"]["device"] = where((*it)[3]);
      tried["train_micro_batch_size_per_gpu"] = std::stoi((*it)[4]);
      const Json e = estimate_for(tried, t, model, {"--activation-checkpointing", checkpointing});
      const std::int64_t need = e["total"]["gpu_bytes"], usable = e["capacity"]["gpu_usable_bytes"];
      EXPECT_EQ(std::stoll((*it)[5]), need);
      EXPECT_EQ(std::stoll((*it)[6]), usable);
      EXPECT_EQ(std::stoll((*it)[7]), std::max<std::int64_t>(0, need - usable));
      EXPECT_EQ(std::stoll((*it)[8]), e["total"]["cpu_bytes"].get<std::int64_t>());
      EXPECT_FALSE(e["fits"].get<bool>()) << "a rung tried before did not fit";
      ++rungs;
    }
  }
  EXPECT_GT(rungs, 0u) << "the small tier escalates (docs/estimator.md)";
}

TEST_F(ReportCliTest, SameInputsGiveTheSameBytesWhereverTheyAreWritten) {
  TempDir other;
  for (const TempDir* d : {&dir, &other}) {
    ASSERT_EQ(run_cli({"generate", "example", "-o", (d->path() / "out").string()}).exit_code, 0);
    auto r = run_cli({"report", "example", "--model", "gpt2-xl", "--dir",
                      (d->path() / "out").string(), "-o", (d->path() / "r.html").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(read_file(dir.path() / "r.html"), read_file(other.path() / "r.html"));
  // And for any number of threads.
  for (const char* jobs : {"1", "3"}) {
    auto r = run_cli({"report", "example", "-j", jobs, "--dir", path("out"), "-o", path(jobs)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(read("1"), read("3"));
  EXPECT_EQ(read("1").find(dir.path().string()), std::string::npos) << "no absolute path";
}

TEST_F(ReportCliTest, MarksWhatChangedAgainstTheManifestInTheOutputDirectory) {
  ASSERT_EQ(run_cli({"generate", family({1, 2}), "-o", path("out")}).exit_code, 0);
  // Stage 1 goes, stage 3 comes, and fp16's loss scale changes (fp16 configs only).
  auto r = run_cli({"report", family({2, 3}), "--set", "fp16.initial_scale_power=12", "--dir",
                    path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  EXPECT_NE(html.find("Against the manifest that was in the output directory: 2 new, 1 changed, "
                      "1 unchanged, 2 removed."),
            std::string::npos);
  auto mark_of = [&](const std::string& p) {
    const auto row = html.find("<code>" + p + "</code></a></td><td>");
    EXPECT_NE(row, std::string::npos) << p;
    const std::string rest = html.substr(row);
    return rest.substr(rest.find("class=\"mark ") + 12,
                       rest.find("\">") - rest.find("class=\"mark ") - 12);
  };
  EXPECT_EQ(mark_of("medium/zero2-bf16.json"), "unchanged");
  EXPECT_EQ(mark_of("medium/zero2-fp16.json"), "changed");
  EXPECT_EQ(mark_of("medium/zero3-bf16.json"), "new");
  EXPECT_EQ(mark_of("medium/zero3-fp16.json"), "new");
  for (const char* gone : {"medium/zero1-bf16.json", "medium/zero1-fp16.json"}) {
    EXPECT_NE(html.find("<span class=\"mark removed\">removed</span> <code>" + std::string(gone)),
              std::string::npos);
  }
  EXPECT_TRUE(fs::exists(dir.path() / "out/medium/zero1-bf16.json")) << "report writes nothing";
}

TEST_F(ReportCliTest, GenerateWritesTheReportBesideTheConfigsWithWorkingLinks) {
  const std::string fam = family({1, 2});
  auto first = run_cli({"generate", fam, "-o", path("out"), "--report", path("reports/r.html")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "zeroforge: wrote 4 configs of family 'ab' to " + path("out") +
                           " (index: " + path("out/manifest.json") +
                           ")\nzeroforge: wrote the report to " + path("reports/r.html") + "\n");
  std::string html = read("reports/r.html");
  EXPECT_NE(html.find("The output directory held no manifest"), std::string::npos);
  EXPECT_NE(html.find("They were written to the output directory with this report."),
            std::string::npos);
  static const std::regex link(R"re(<a href="([^"#][^"]*)"><code>)re");
  std::size_t links = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), link), end; it != end; ++it) {
    SCOPED_TRACE((*it)[1]);
    EXPECT_TRUE(std::string((*it)[1]).starts_with("../out/"));
    EXPECT_TRUE(fs::exists(dir.path() / "reports" / std::string((*it)[1])));
    ++links;
  }
  EXPECT_EQ(links, 4u);

  auto second = run_cli({"generate", fam, "-o", path("out"), "--report", path("reports/r.html"),
                         "--set", "fp16.initial_scale_power=12", "-q"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "");
  html = read("reports/r.html");
  EXPECT_NE(html.find("0 new, 2 changed, 2 unchanged, 0 removed."), std::string::npos);
}

TEST_F(ReportCliTest, AReportInsideTheOutputDirectoryIsNotedBecauseCheckCountsItAsExtra) {
  const std::string fam = family({1});
  const std::string note = "zeroforge: note: the report " + path("out/r.html") + " is inside " +
                           path("out") +
                           ", where generate --check counts it as an extra file; write it beside "
                           "the directory to avoid that [report.inside-output]\n";
  auto generated = run_cli({"generate", fam, "-o", path("out"), "--report", path("out/r.html")});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(generated.err, note);
  auto check = run_cli({"generate", fam, "-o", path("out"), "--check"});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out, path("out") + "/r.html: extra\n");
  auto reported = run_cli({"report", fam, "-o", path("out/r.html")});  // --dir: FILE's directory
  ASSERT_EQ(reported.exit_code, 0) << reported.err;
  EXPECT_EQ(reported.err, note);
  EXPECT_NE(read("out/r.html").find("<a href=\"medium/zero1-bf16.json\">"), std::string::npos);
  auto beside = run_cli({"report", fam, "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(beside.exit_code, 0) << beside.err;
  EXPECT_EQ(beside.err, "");
}

TEST_F(ReportCliTest, EscapesWhatFamiliesSay) {
  const std::string evil = "<script>alert('x')</script>";
  const std::string fam = family({1}, {{"description", evil}, {"axes", {{"note", {evil}}}}});
  auto r = run_cli({"report", fam, "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(count(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), 2u)
      << "the description, and the variant in the configs table";
}

// A report makes the configs in memory only: a family's companions are rendered (their
// errors are the family's) and written nowhere.
TEST_F(ReportCliTest, AFamilyWithCompanionsReportsAndWritesNothing) {
  const std::string fam = family({3}, {{"companions", {"deepspeed", "accelerate"}}});
  auto r = run_cli({"report", fam, "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read("r.html").find("medium/zero3-bf16.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(path("out")));
}

// Each row's launch, beside its batch arithmetic: the schedulers the family's companions write
// for (with their launcher and API), the launchers, and the tier's nodes × GPUs per node.
TEST_F(ReportCliTest, EachConfigsLaunchIsShownBesideItsBatch) {
  const std::string fam =
      family({1, 3}, {{"tiers", {"small", "medium", "large"}},
                      {"companions", {"torchrun", "slurm", "kubernetes"}},
                      {"values", {{"launch", {{"kubernetes", {{"api", "TrainJob"}}}}}}}});
  auto r = run_cli({"report", fam, "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  std::size_t rows = 0;
  for (const char* name : {"small", "medium", "large"}) {
    const Json t = tier(name);
    const int nodes = t.value("nodes", 1), gpus = t.value("gpus_per_node", 1);
    const std::string cell =
        "<td class=\"launch\">SLURM (torchrun), Kubernetes (TrainJob), torchrun: " +
        std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") + " \u00d7 " +
        std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") + "</td>";
    for (const char* config : {"zero1-bf16", "zero3-fp16"}) {
      const std::string p = std::string(name) + "/" + config + ".json";
      SCOPED_TRACE(p);
      const auto row = html.find("<code>" + p + "</code></a></td>");
      ASSERT_NE(row, std::string::npos);
      const std::string tr = html.substr(row, html.find("</tr>", row) - row);
      const auto batch = tr.find(" = ");
      const auto launch = tr.find(cell);
      EXPECT_NE(launch, std::string::npos) << tr;
      EXPECT_LT(batch, launch) << "beside the batch arithmetic";
      ++rows;
    }
  }
  EXPECT_EQ(rows, 6u);
}

TEST_F(ReportCliTest, ValidatorWarningsAppearWithTheirConfig) {
  dir.write("t/ds.json.j2",
            R"({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 8,)"
            R"( "gradient_accumulation_steps": 1, "memory_efficient_linear": true})");
  const std::string fam =
      dir.write("f.json", R"({"name": "w", "template": "ds.json.j2", "output": "ds.json"})")
          .string();
  auto r = run_cli({"report", fam, "--template-dir", path("t"), "--validate", "deepspeed", "--dir",
                    path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  // A warning and a note, both on stderr as generate prints them and in the page.
  EXPECT_NE(r.err.find(path("out/ds.json") + ": /memory_efficient_linear: warning [ignored-key]: "),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"#config-0-0\">2 findings</a>"), std::string::npos);
  EXPECT_NE(html.find("<li><strong>warning</strong> [ignored-key] "
                      "<code>/memory_efficient_linear</code>: DeepSpeed does not read "
                      "&quot;memory_efficient_linear&quot; at the top level"),
            std::string::npos);
  EXPECT_NE(
      html.find("<li><strong>note</strong> [batch-world-size] <code>/train_batch_size</code>"),
      std::string::npos);
}

TEST_F(ReportCliTest, Errors) {
  dir.write("file", "");
  dir.write(
      "t/bad.json.j2",
      R"({"train_batch_size": 3, "train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": true}})");
  const std::string bad =
      dir.write("bad.json", R"({"name": "bad", "template": "bad.json.j2", "output": "bad.json"})")
          .string();
  const std::string fifo = path("models-from-the-team-share/a-named-pipe.json");
  fs::create_directories(fs::path(fifo).parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    const char* name;
    std::vector<std::string> args;
    int exit_code;
    std::string err;
    bool exact = true;  // else: the end of stderr after the validator's or plugin's lines
  };
  const std::vector<Case> cases = {
      {"no family", {"report"}, 2, "zeroforge: error: report: missing FAMILY [usage.invalid]\n"},
      {"check and report",
       {"generate", "example", "-o", path("out"), "--check", "--report", path("r.html")},
       2,
       "zeroforge: error: generate: --report goes with a generate, not with --check "
       "[usage.invalid]\n"},
      {"unwritable -o",
       {"report", "example", "--dir", path("out"), "-o", path("file/r.html")},
       2,
       "zeroforge: error: cannot write '" + path("file/r.html") + "': cannot create directory '" +
           path("file") + "': Not a directory [io.failed]\n"},
      {"unknown model",
       {"report", "example", "--dir", path("out"), "-o", path("r.html"), "--model", "llama-9b"},
       2,
       "error: plugin 'memory': values hook failed: option estimate.model: unknown model preset "
       "'llama-9b' (known: gpt2, ",
       false},
      {"model from a FIFO no one writes to (it waited forever)",
       {"report", "example", "--dir", path("out"), "-o", path("r.html"), "--model", fifo},
       2,
       "error: plugin 'memory': values hook failed: option estimate.model: model preset: "
       "cannot read '" +
           fifo +
           "': is a FIFO (a named pipe) and nothing was written to it; give a file, or write to "
           "the pipe while zeroforge reads it",
       false},
      {"validator errors",
       {"report", bad, "--template-dir", path("t"), "--validate", "deepspeed", "--dir", path("out"),
        "-o", path("r.html")},
       1,
       "zeroforge: error: family 'bad' not reported: the validator found errors in its configs "
       "(--no-validate reports them anyway); no report was written [report.not-reported]\n",
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    if (c.exact) {
      EXPECT_EQ(r.err, c.err);
    } else {
      EXPECT_NE(r.err.find(c.err), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "r.html"));
    EXPECT_FALSE(fs::exists(dir.path() / "out")) << "a report writes no configs";
  }
}

// tests/plugins/fixtures/third_party_estimator.cpp: not the memory plugin, not called
// `memory`, publishing only the SDK's memory estimate record.
const std::string kThirdParty = std::string(ZF_TEST_PLUGIN_DIR) + "/third_party_estimator.so";
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

TEST_F(ReportCliTest, ChartsAThirdPartyEstimatorsRecord) {
  auto r = run_cli({"report", family({1, 3}), "--plugin", kThirdParty, "--dir", path("out"), "-o",
                    path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read("r.html");
  EXPECT_EQ(count(html, "<svg class=\"tier-chart\" role=\"img\""), 1u) << "the medium tier's";
  const Json medium = tier("medium");
  const std::int64_t micro = medium["micro_batch_size"];
  const auto capacity =
      static_cast<std::int64_t>(medium["gpu_memory_gib"].get<double>() * static_cast<double>(kGiB));
  for (const char* p : {"medium/zero1-bf16.json", "medium/zero1-fp16.json",
                        "medium/zero3-bf16.json", "medium/zero3-fp16.json"}) {
    SCOPED_TRACE(p);
    const std::string details = details_of(html, p);
    EXPECT_NE(details.find("<p>Estimated by the acme_memory_estimator plugin for "
                           "<code>acme-13b</code>.</p>"),
              std::string::npos)
        << details;
    const std::map<std::string, std::int64_t> expected = {
        {"model-states", 10 * kGiB},
        {"activations", 2 * kGiB * micro},
        {"cuda-context", kGiB},
        {"total gpu-total", (11 + 2 * micro) * kGiB},
        {"gpu-capacity", capacity},
        {"free", capacity - (11 + 2 * micro) * kGiB},
        {"cpu-total", 0}};
    EXPECT_EQ(rows_of(details), expected);
  }
  EXPECT_NE(html.find("Memory figures are estimates by the plugins that published them (each "
                      "config's notes name its plugin), not measurements."),
            std::string::npos);
  EXPECT_EQ(html.find("memory plugin"), std::string::npos) << "the memory plugin made nothing";
}

// What the report refuses in a record, end to end: exit 2, the record's pointer and the plugin,
// nothing written. The fixture's option `record` is a merge patch over its record.
TEST_F(ReportCliTest, RefusesAnEstimateRecordOutsideTheSchema) {
  const std::int64_t micro = tier("medium")["micro_batch_size"];
  const std::string at = "manifest.json: /configs/0/plugins/acme_memory_estimator/memory_estimate";
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"parts that do not add up",
       {"--plugin-opt", "acme_memory_estimator.record.gpu.total_bytes=1"},
       at + "/gpu/total_bytes: error: the family report cannot read it: the parts add up to " +
           std::to_string((11 + 2 * micro) * kGiB) +
           ", not 1 (a plugin named 'acme_memory_estimator' wrote it) [plugin.failed]\n"},
      {"a newer schema",
       {"--plugin-opt", "acme_memory_estimator.record.schema_version=3"},
       at + "/schema_version: error: the family report cannot read it: schema version 3 is not "
            "one this zeroforge reads (1 to 2); build the plugin against this zeroforge's "
            "zeroforge/memory_estimate.hpp (a plugin named 'acme_memory_estimator' wrote it) "
            "[plugin.failed]\n"},
      {"no cluster",
       {"--plugin-opt", "acme_memory_estimator.record.cluster=null"},
       at + "/cluster: error: the family report cannot read it: missing (a plugin named "
            "'acme_memory_estimator' wrote it) [plugin.failed]\n"},
      {"two estimators for one config",
       {"--model", "llama-2-7b"},
       "manifest.json: /configs/0/plugins/memory/memory_estimate: error: the "
       "family report cannot read it: a second memory estimate for this config: plugin "
       "'acme_memory_estimator' published one at "
       "/configs/0/plugins/acme_memory_estimator/memory_estimate; load one estimator (a plugin "
       "named 'memory' wrote it) [plugin.failed]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"report", family({1}), "--plugin", kThirdParty,
                                     "--dir",  path("out"), "-o",       path("r.html")};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, c.err);
    EXPECT_FALSE(fs::exists(dir.path() / "r.html"));
    EXPECT_FALSE(fs::exists(dir.path() / "out")) << "a report writes no configs";
  }
}

TEST_F(ReportCliTest, ABrokenOldManifestIsAWarningAndNothingIsMarked) {
  dir.write("out/manifest.json", "{\"configs\": [");
  auto r = run_cli({"report", family({1}), "--dir", path("out"), "-o", path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "zeroforge: warning: " + path("out/manifest.json") +
                       ":1:14: error: expected a JSON value, found end of input (no changes are "
                       "marked) [report.baseline]\n");
  EXPECT_NE(read("r.html").find("could not be read"), std::string::npos);
  EXPECT_EQ(read("r.html").find("class=\"mark "), std::string::npos);
}

}  // namespace
}  // namespace zf
