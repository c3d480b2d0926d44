// SPDX-License-Identifier: MIT
// Tests for engine/cli/explain_command.cpp as an adapter over the pipeline: --format json
// carries each problem's code and kind, stderr still says it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace zf {
namespace {

using test::run_cli;

TEST(ExplainCliTest, JsonCarriesEachProblemsCodeAndKindAndStderrStillSaysIt) {
  auto r = run_cli({"explain", "deepspeed/config.json.j2", "--set", "stage=7", "--set",
                    "precision=fp8", "--format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  const auto out = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(out.at("diagnostics").size(), 2u);
  EXPECT_EQ(out["diagnostics"][0].dump(),
            R"({"code":"values.contract","kind":"values","severity":"error","message":"stage must )"
            R"(be an integer 0-3 or null, got 7","file":"--set stage=7","pointer":"/stage"})");
  EXPECT_EQ(out["diagnostics"][1]["pointer"], "/precision");
  EXPECT_EQ(r.err,
            "--set stage=7: /stage: error: stage must be an integer 0-3 or null, got 7 "
            "[values.contract]\n"
            "--set precision=fp8: /precision: error: precision must be one of fp32|fp16|bf16, "
            "got \"fp8\" [values.contract]\n");
}

}  // namespace
}  // namespace zf
