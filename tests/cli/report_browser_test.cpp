// SPDX-License-Identifier: MIT
// The family report in a real browser: headless Chromium loads the example family's report
// (estimated with a model) from file://, its DOM holds one chart per tier with the table
// beside it, and it draws a screenshot. The test set-up installs Chromium (`./setup.sh --test`,
// run by check.sh); without a `chromium` (or `chromium-browser`) on PATH the tests skip, but
// in CI (CI=true) they fail: a browser test that never runs guards nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

std::optional<fs::path> find_chromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) &&
          (fs::status(candidate, ec).permissions() & fs::perms::owner_exec) != fs::perms::none)
        return candidate;
    }
  }
  return std::nullopt;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  // Runs headless Chromium on the report with `mode` (--dump-dom > dom.html, or
  // --screenshot=...); its own profile in the temp dir, at most two minutes.
  int chromium(const std::string& mode, const std::string& redirect) const {
    const std::string command =
        "timeout 120 '" + browser->string() +
        "' --headless --disable-gpu --no-sandbox --no-first-run --disable-dev-shm-usage "
        "--hide-scrollbars --user-data-dir='" +
        (dir.path() / "profile").string() + "' " + mode + " 'file://" +
        (dir.path() / "report.html").string() + "' " + redirect + " 2>'" +
        (dir.path() / "chromium.err").string() + "'";
    return std::system(command.c_str());
  }
  std::string errors() const { return read_file(dir.path() / "chromium.err"); }

  void SetUp() override {
    browser = find_chromium();
    if (!browser) {
      const char* ci = std::getenv("CI");
      if (ci != nullptr && std::string(ci) == "true") {
        FAIL() << "chromium is not on PATH, and in CI (CI=true) the browser tests must run: "
                  "./setup.sh --test installs it";
      }
      GTEST_SKIP() << "chromium is not on PATH (./setup.sh --test, or apt-get install chromium)";
    }
    auto r = run_cli({"report", "example", "--model", "llama-2-7b", "--plugin-opt",
                      "memory.estimate.activation_checkpointing=full", "--dir",
                      (dir.path() / "out").string(), "-o", (dir.path() / "report.html").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::optional<fs::path> browser;
  TempDir dir;
};

TEST_F(ReportBrowserTest, TheLoadedPageHasOneChartPerTierWithItsTable) {
  ASSERT_EQ(chromium("--dump-dom", ">'" + (dir.path() / "dom.html").string() + "'"), 0) << errors();
  const std::string dom = read_file(dir.path() / "dom.html");
  // The browser's own serialisation of what it parsed, not the file.
  ASSERT_NE(dom.find("<html lang=\"en\"><head>"), std::string::npos) << dom.substr(0, 400);
  EXPECT_EQ(count(dom, "<svg class=\"tier-chart\" role=\"img\""), 3u);
  EXPECT_EQ(count(dom, "<table class=\"chart-table\""), 3u);
  EXPECT_EQ(count(dom, "<section class=\"tier\""), 3u);
  for (const char* tier : {"small", "medium", "large"}) {
    SCOPED_TRACE(tier);
    const auto section = dom.find(std::string(">Tier ") + tier + "</h2>");
    ASSERT_NE(section, std::string::npos);
    const auto next = dom.find("</section>", section);
    EXPECT_EQ(count(dom.substr(section, next - section), "class=\"tier-chart\""), 1u);
    // Six configs per tier: a GPU and a host bar frame each.
    EXPECT_EQ(count(dom.substr(section, next - section), "<rect class=\"frame\""), 12u);
  }
  EXPECT_EQ(count(dom, "<pattern id=\"p-"), 9u);
  // Each tier's configs table has the launch column beside the batch, a cell in every row (the
  // example writes no companions: a dash).
  EXPECT_EQ(count(dom, "<th>micro × accumulation × world = global batch</th><th>launch</th>"), 3u);
  EXPECT_EQ(count(dom, "<td class=\"launch\">—</td>"), 18u);
}

// auto_fit.objective "fastest" (llama-2-7b-fastest): the loaded page has a throughput chart
// and its table in every tier beside the memory chart, each with the chosen candidate first.
TEST_F(ReportBrowserTest, AFastestFamilysPageHasOneThroughputChartPerTier) {
  auto r = run_cli({"report", "llama-2-7b-fastest", "--dir", (dir.path() / "fastest").string(),
                    "-o", (dir.path() / "report.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(chromium("--dump-dom", ">'" + (dir.path() / "dom.html").string() + "'"), 0) << errors();
  const std::string dom = read_file(dir.path() / "dom.html");
  ASSERT_NE(dom.find("<html lang=\"en\"><head>"), std::string::npos) << dom.substr(0, 400);
  for (const char* tier : {"small", "medium", "large"}) {
    SCOPED_TRACE(tier);
    const auto section = dom.find(std::string(">Tier ") + tier + "</h2>");
    ASSERT_NE(section, std::string::npos);
    const std::string body = dom.substr(section, dom.find("</section>", section) - section);
    EXPECT_EQ(count(body, "<svg class=\"rank-chart\" role=\"img\""), 1u);
    EXPECT_EQ(count(body, "<table class=\"rank-table\""), 1u);
    EXPECT_EQ(count(body, "<g class=\"candidate chosen\">"), 1u);
    EXPECT_GE(count(body, "fill=\"url(#s-compute)\""), 1u);
  }
  EXPECT_EQ(count(dom, "<pattern id=\"s-"), 4u);
}

TEST_F(ReportBrowserTest, ItDrawsAScreenshot) {
  const fs::path shot = dir.path() / "report.png";
  ASSERT_EQ(chromium("--screenshot='" + shot.string() + "' --window-size=1280,2200", ""), 0)
      << errors();
  const std::string png = read_file(shot);
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A blank 1280 x 2200 page is about 13 KB as PNG; text and three charts are far more.
  EXPECT_GT(png.size(), 60000u) << "the screenshot looks empty";
}

}  // namespace
}  // namespace zf
