// SPDX-License-Identifier: MIT
// Tests for engine/cli/printing/diagnostic_printer.cpp: the one printer and the one JSON encoder.
#include "diagnostic_printer.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace zf::cli {
namespace {

const std::string kFile = "platform-team-configs/deepspeed-templates/finetune-config.json.j2";

TEST(DiagnosticPrinterTest, PrintsTheLineThenSourceAndCaretThenNotes) {
  Diagnostic d;
  d.code = "template.undefined";
  d.kind = ErrorKind::Undefined;
  d.message = "undefined variable 'stage'";
  d.where = {kFile, 3, 12};
  d.source_line = "  \"stage\": {{ stage }},";
  d.notes = {"large/zero2.json", "small/zero2.json"};
  std::ostringstream out;
  print_diagnostic(out, d);
  EXPECT_EQ(out.str(), kFile +
                           ":3:12: error: undefined variable 'stage' [template.undefined]\n"
                           "    \"stage\": {{ stage }},\n"
                           "             ^\n"
                           "  large/zero2.json\n"
                           "  small/zero2.json\n");
}

TEST(DiagnosticPrinterTest, PrintErrorPrintsWhatTheDiagnosticPrints) {
  const Error error(ErrorKind::Values, "stage must be an integer 0-3 or null, got 7",
                    "--set stage=7", "/stage");
  std::ostringstream a, b;
  print_error(a, error);
  print_diagnostic(b, to_diagnostic(error));
  EXPECT_EQ(a.str(),
            "--set stage=7: /stage: error: stage must be an integer 0-3 or null, got 7 "
            "[values.invalid]\n");
  EXPECT_EQ(a.str(), b.str());
}

TEST(DiagnosticPrinterTest, JsonCarriesCodeKindAndOnlyTheLocationItHas) {
  Diagnostic d;
  d.code = "plugin.refused";
  d.kind = ErrorKind::Plugin;
  d.message = "does not fit";
  d.where.file = kFile;
  d.json_pointer = "/values/stage";
  d.reporter = "memory";
  EXPECT_EQ(
      diagnostic_to_json(d).dump(),
      R"({"code":"plugin.refused","kind":"plugin","severity":"error","message":"does not fit","file":")" +
          kFile + R"(","pointer":"/values/stage","reporter":"memory"})");
  Diagnostic warning;
  warning.code = "values.unread";
  warning.severity = Severity::Warning;
  warning.message = "x";
  warning.notes = {"n"};
  EXPECT_EQ(
      diagnostics_to_json({warning}).dump(),
      R"([{"code":"values.unread","kind":"values","severity":"warning","message":"x","notes":["n"]}])");
}

}  // namespace
}  // namespace zf::cli
