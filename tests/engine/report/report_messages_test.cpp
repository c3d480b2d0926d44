// SPDX-License-Identifier: MIT
// zf::report_family's notes and warnings (zeroforge/report.hpp): each a diagnostic with its own
// code and severity (docs/cli.md, "Diagnostic codes"), with the text the CLI prints, kept in
// the result without an on_message and handed to one with it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/report.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFamily = R"({
  "name": "small",
  "template": "deepspeed/zero3.json.j2",
  "values": {"offload_optimizer": "none", "offload_param": "none"},
  "tiers": ["medium"],
  "output": "{{ tier }}/zero3.json"
})";

// A report inside an output directory whose old manifest is broken: a note that check counts
// the report as an extra file, and a warning that no changes are marked. The directory sits
// under a long folder (a path past std::string's small buffer).
TEST(ReportMessagesTest, EachNoteHasItsCodeAndSeverity) {
  test::TempDir dir;
  const std::string nested = "platform-team-deepspeed-configurations-under-review/generated";
  dir.write(nested + "/manifest.json", "{\"configs\": [");
  const fs::path out = dir.path() / nested;
  ReportRequest r;
  r.generate.family = dir.write("family.json", kFamily).string();
  r.generate.output_dir = out;
  r.generate.data_dir = test::source_dir();
  r.generate.builtin_plugin_dir = fs::path(ZF_BINARY_DIR) / "lib" / "zeroforge" / "plugins";
  r.generate.jobs = 1;
  r.file = out / "report.html";

  struct Expected {
    const char* code;
    Severity severity;
    ErrorKind kind;
    std::string line;
  };
  const std::vector<Expected> expected = {
      {"report.inside-output", Severity::Note, ErrorKind::Io,
       "zeroforge: note: the report " + r.file.string() + " is inside " + out.string() +
           ", where generate --check counts it as an extra file; write it beside the directory "
           "to avoid that"},
      {"report.baseline", Severity::Warning, ErrorKind::Json,
       "zeroforge: warning: " + (out / "manifest.json").string() +
           ":1:14: error: expected a JSON value, found end of input (no changes are marked)"},
  };
  auto check = [&](const std::vector<Diagnostic>& got) {
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      SCOPED_TRACE(expected[i].code);
      EXPECT_EQ(got[i].code, expected[i].code);
      EXPECT_EQ(got[i].severity, expected[i].severity);
      EXPECT_EQ(got[i].kind, expected[i].kind);
      EXPECT_EQ(to_string(got[i]), expected[i].line);
    }
  };

  GenerateResult kept = report_family(r);
  ASSERT_EQ(kept.outcome, Outcome::Done);
  check(kept.messages);
  EXPECT_TRUE(fs::exists(r.file));

  std::vector<Diagnostic> seen;
  r.generate.on_message = [&](const Diagnostic& d) { seen.push_back(d); };
  GenerateResult passed = report_family(r);
  ASSERT_EQ(passed.outcome, Outcome::Done);
  EXPECT_TRUE(passed.messages.empty()) << "they went to on_message";
  check(seen);
}

// The note after the template error that stopped a report in one variant: its own code
// (generate says `generate.variant`, ending "nothing was written"), the failure's kind, the
// variant and family named. Family paths past std::string's small buffer.
TEST(ReportMessagesTest, TheVariantNoteHasItsCode) {
  struct Case {
    std::string doing;
    std::string variant;
    ErrorKind kind;
    std::string family;
  };
  const std::vector<Case> cases = {
      {"rendering", "medium/zero3-bf16", ErrorKind::Undefined,
       "/srv/platform-team/deepspeed-configurations/families/llama-7b-finetune.json"},
      {"naming the file of", "large stage=3", ErrorKind::Render,
       "team-repository/presets/families/mixtral-8x7b-pretraining.json"},
      {"rendering the companions of", "small", ErrorKind::Syntax,
       "/home/someone/experiments/deepspeed-families/gpt-neox-20b.json"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.doing);
    GenerateResult result;
    result.outcome = Outcome::Failed;
    result.family_file = c.family;
    Diagnostic error;
    error.kind = c.kind;
    result.failure = VariantFailure{error, c.variant, c.doing};
    const Diagnostic note = report_variant_note(result);
    EXPECT_EQ(note.code, "report.variant");
    EXPECT_EQ(note.severity, Severity::Note);
    EXPECT_EQ(note.kind, c.kind);
    EXPECT_EQ(to_string(note), "zeroforge: note: while " + c.doing + " variant '" + c.variant +
                                   "' of " + c.family + "; no report was written");
  }
}

// The error closing a report that made its configs but was stopped: its own code (generate
// says `generate.not-generated`, ending "nothing was written"), the reason, the family named.
TEST(ReportMessagesTest, TheClosingErrorHasItsCodeAndReason) {
  struct Case {
    int problems, refusals;
    std::string why;
  };
  const std::vector<Case> cases = {
      {1, 1, "its values are wrong"},
      {0, 3, "3 config(s) cannot be made as asked"},
      {0, 0, "the validator found errors in its configs (--no-validate reports them anyway)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    GenerateResult result;
    result.outcome = c.problems > 0 ? Outcome::Failed : Outcome::Refused;
    result.family_name = "llama-7b-finetune-platform-team";
    result.problems.resize(static_cast<std::size_t>(c.problems));
    result.refusals.resize(static_cast<std::size_t>(c.refusals));
    const Diagnostic error = not_reported_error(result);
    EXPECT_EQ(error.code, "report.not-reported");
    EXPECT_EQ(error.severity, Severity::Error);
    EXPECT_EQ(error.kind, ErrorKind::Values);
    EXPECT_EQ(to_string(error),
              "zeroforge: error: family 'llama-7b-finetune-platform-team' not "
              "reported: " +
                  c.why + "; no report was written");
  }
}

}  // namespace
}  // namespace zf
