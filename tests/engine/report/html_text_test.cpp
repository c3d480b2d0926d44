// SPDX-License-Identifier: MIT
// The report's text forms (engine/src/report/html_text.cpp): escaping, URL paths, links
// relative to the report, and the number forms.
#include "report/html_text.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zf::report {
namespace {

namespace fs = std::filesystem;

TEST(HtmlTextTest, EscapesEveryCharacterThatIsMarkupInTextOrAttributes) {
  struct Case {
    std::string input, expected;
  };
  const std::vector<Case> cases = {
      {"plain text", "plain text"},
      {"<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"},
      {"a & b", "a &amp; b"},
      {"\"quoted\"", "&quot;quoted&quot;"},
      {"&amp;", "&amp;amp;"},
      {"\xC3\xA9t\xC3\xA9", "\xC3\xA9t\xC3\xA9"},  // UTF-8 passes through
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(escape(c.input), c.expected);
  }
}

TEST(HtmlTextTest, PercentEncodesWhatAUrlPathCannotHold) {
  struct Case {
    std::string input, expected;
  };
  const std::vector<Case> cases = {
      {"small/zero1-bf16.json", "small/zero1-bf16.json"},
      {"a b#1?.json", "a%20b%231%3F.json"},
      {"100%/x.json", "100%25/x.json"},
      {"\xC3\xA9.json", "%C3%A9.json"},
      {"../out/a_b~c.json", "../out/a_b~c.json"},
      {"<x>\".json", "%3Cx%3E%22.json"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(url_path(c.input), c.expected);
  }
}

TEST(HtmlTextTest, LinksFromTheReportsDirectoryToTheOutputDirectory) {
  struct Case {
    fs::path report, dir;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"report.html", "out", "out"},
      {"out/report.html", "out", ""},
      {"out/report.html", "out/", ""},
      {"report.html", ".", ""},
      {"reports/r.html", "out", "../out"},
      {"a/b/r.html", "a/c/d", "../c/d"},
      {"/srv/reports/r.html", "/srv/configs/7b/", "../configs/7b"},
      {"./x/../r.html", "out/./7b", "out/7b"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.report.string() + " -> " + c.dir.string());
    EXPECT_EQ(relative_dir(c.report, c.dir), c.expected);
  }
}

TEST(HtmlTextTest, NumbersHaveOneFormWhateverTheLocale) {
  EXPECT_EQ(gib(0), "0.00");
  EXPECT_EQ(gib(std::int64_t{1} << 30), "1.00");
  EXPECT_EQ(gib(std::int64_t{3} << 29), "1.50");
  EXPECT_EQ(gib(25748328940), "23.98");  // llround(23.98 * 2^30), the small tier's GPU
  EXPECT_EQ(percent(1, 3), "33.3");
  EXPECT_EQ(percent(3, 2), "150.0");
  EXPECT_EQ(percent(5, 0), "") << "no capacity, no percentage";
  EXPECT_EQ(margin_text(0.05), "5%");
  EXPECT_EQ(margin_text(0.025), "2.5%");
  EXPECT_EQ(margin_text(0.1234), "12.34%");
  EXPECT_EQ(margin_text(0), "0%");
  EXPECT_EQ(svg_number(12.0), "12");
  EXPECT_EQ(svg_number(12.25), "12.3");
  EXPECT_EQ(svg_number(0.04), "0");
  EXPECT_EQ(svg_number(215.0 * 100 / 150), "143.3");
}

}  // namespace
}  // namespace zf::report
