// SPDX-License-Identifier: MIT
// Tests for engine/src/diagnostic.cpp: codes, conversion from zf::Error, the one-line text.
#include "zeroforge/diagnostic.hpp"

#include <gtest/gtest.h>

#include <set>

namespace zf {
namespace {

TEST(DiagnosticTest, TheOneLineTextHasErrorsShape) {
  struct Case {
    const char* name;
    Diagnostic diagnostic;
    std::string expected;
  };
  const std::string file = "platform-team-configs/deepspeed-templates/finetune-config.json.j2";
  const Case cases[] = {
      {"file, line and column",
       {.message = "bad", .where = {file, 12, 7}},
       file + ":12:7: error: bad"},
      {"file and line", {.message = "bad", .where = {file, 12, 0}}, file + ":12: error: bad"},
      {"file and pointer",
       {.severity = Severity::Warning, .message = "odd", .where = {file}, .json_pointer = "/a/b"},
       file + ": /a/b: warning: odd"},
      {"reporter",
       {.message = "no fit", .where = {file}, .reporter = "memory"},
       file + ": error [memory]: no fit"},
      {"nowhere", {.severity = Severity::Note, .message = "fyi"}, "zeroforge: note: fyi"},
      {"pointer only", {.message = "bad", .json_pointer = "/x"}, "zeroforge: /x: error: bad"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(to_string(c.diagnostic), c.expected);
  }
}

TEST(DiagnosticTest, AnErrorKeepsItsTextLocationAndSourceLine) {
  const std::string file = "platform-team-configs/deepspeed-templates/finetune-config.json.j2";
  const Error located = Error(ErrorKind::Undefined, "undefined variable 'stage'")
                            .located({file, 3, 9}, "  \"stage\": {{ stage }},");
  const Diagnostic d = to_diagnostic(located);
  EXPECT_EQ(d.code, "template.undefined");
  EXPECT_EQ(d.kind, ErrorKind::Undefined);
  EXPECT_EQ(d.source_line, "  \"stage\": {{ stage }},");
  EXPECT_EQ(to_string(d), std::string(located.what()));

  const Error at_pointer(ErrorKind::Values, "expected an integer", file, "/axes/stage/2");
  EXPECT_EQ(to_string(to_diagnostic(at_pointer, "values.contract")), at_pointer.what());
  EXPECT_EQ(to_diagnostic(at_pointer, "values.contract").code, "values.contract");
  // Without a location the CLI's "zeroforge: " stands in front.
  EXPECT_EQ(to_string(to_diagnostic(Error(ErrorKind::Usage, "render: missing TEMPLATE"))),
            "zeroforge: error: render: missing TEMPLATE");
}

TEST(DiagnosticTest, EveryErrorKindHasItsOwnCodeAndKindName) {
  std::set<std::string_view> codes, names;
  for (ErrorKind kind :
       {ErrorKind::Syntax, ErrorKind::Undefined, ErrorKind::Render, ErrorKind::Template,
        ErrorKind::Json, ErrorKind::Values, ErrorKind::Io, ErrorKind::Plugin, ErrorKind::Usage}) {
    EXPECT_TRUE(codes.insert(error_code(kind)).second) << error_code(kind);
    EXPECT_TRUE(names.insert(kind_name(kind)).second) << kind_name(kind);
  }
  EXPECT_EQ(error_code(ErrorKind::Json), "output.json");
  EXPECT_EQ(kind_name(ErrorKind::Io), "io");
}

TEST(DiagnosticTest, HasErrorsIgnoresWarningsAndNotes) {
  std::vector<Diagnostic> diagnostics = {{.severity = Severity::Warning},
                                         {.severity = Severity::Note}};
  EXPECT_FALSE(has_errors(diagnostics));
  diagnostics.push_back({.severity = Severity::Error});
  EXPECT_TRUE(has_errors(diagnostics));
}

}  // namespace
}  // namespace zf
