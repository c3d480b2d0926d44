// SPDX-License-Identifier: MIT
// `zeroforge migrate` through the real executable: -o DIR keeps the inputs' tree and writes an
// unchanged file byte for byte, --check's exit codes, a refusal is exit 2 with nothing written,
// --drop-unknown, --in-place, --format json, a family (-o FILE, --check, --in-place), and the
// usage errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;
using Json = nlohmann::ordered_json;

constexpr const char* kOld = R"({"train_batch_size": 8, "aio": {"thread_count": 4}})";
constexpr const char* kCurrent = "{ \"train_batch_size\": 8,\n  \"gradient_clipping\": 1.0 }\n";
constexpr const char* kTensorParallel =
    R"({"train_batch_size": 8, "gradient_clipping": 1.0, "tensor_parallel": {"autotp_size": 2}})";

TEST(MigrateCliTest, WritesTheTreeWithNotesAndUnchangedFilesByteForByte) {
  TempDir tmp;
  const auto old = tmp.write("configs/a/old.json", kOld);
  const auto current = tmp.write("configs/b/current.json", kCurrent);
  const fs::path out = tmp.path() / "out";
  const auto r =
      run_cli({"migrate", old.string(), current.string(), "--to", "0.19.6", "-o", out.string()},
              tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(old.string() + ": /aio/thread_count: note [migrate.renamed]: "
                                      "/aio/thread_count 4 -> /aio/intra_op_parallelism 4: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find(old.string() + ": DeepSpeed 0.16.3 (inferred) -> 0.19.6: 2 rewrites, written to " +
                 (out / "a/old.json").string()),
      std::string::npos)
      << r.out;
  EXPECT_EQ(read_file(out / "b/current.json"), kCurrent);
  const Json migrated = Json::parse(read_file(out / "a/old.json"));
  EXPECT_EQ(migrated.at("aio").dump(), R"({"intra_op_parallelism":4})");
  EXPECT_EQ(migrated.at("gradient_clipping"), 0.0);
  const auto validated =
      run_cli({"validate", (out / "a/old.json").string(), "--deepspeed-version", "0.19.6"});
  EXPECT_EQ(validated.exit_code, 0) << validated.out;
}

TEST(MigrateCliTest, CheckExitsOneWhenSomethingWouldChangeAndWritesNothing) {
  TempDir tmp;
  const auto old = tmp.write("old.json", kOld);
  const auto current = tmp.write("current.json", kCurrent);
  auto r = run_cli({"migrate", old.string(), "--to", "0.19.6", "--check"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("0.16.3 (inferred) -> 0.19.6: 2 rewrites to make"), std::string::npos);
  EXPECT_EQ(read_file(old), kOld);
  r = run_cli({"migrate", current.string(), "--to", "0.19.6", "--check"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            current.string() + ": DeepSpeed 0.19.6 (inferred) -> 0.19.6: nothing to change\n");
}

TEST(MigrateCliTest, ARefusalIsExitTwoLocatedWithNothingWritten) {
  TempDir tmp;
  const auto tp = tmp.write("tp.json", kTensorParallel);
  const auto old = tmp.write("old.json", kOld);
  const fs::path out = tmp.path() / "out";
  auto r = run_cli({"migrate", old.string(), tp.string(), "--to", "0.16.2", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, tp.string() +
                       ": /tensor_parallel: error: DeepSpeed 0.16.2 does not know "
                       "\"tensor_parallel\" at the top level; it is a key of DeepSpeed 0.16.4 or "
                       "newer: no equivalent; remove it, or pass --drop-unknown to drop it "
                       "[migrate.unknown-key]\n"
                       "zeroforge: error: 1 refusal; nothing was written [migrate.not-migrated]\n");
  EXPECT_FALSE(fs::exists(out)) << "nothing written, not even the config that migrates";
  r = run_cli({"migrate", old.string(), tp.string(), "--to", "0.16.2", "-o", out.string(),
               "--format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  const Json report = Json::parse(r.out);
  EXPECT_EQ(report.at("exit_code"), 2);
  ASSERT_EQ(report.at("errors").size(), 1u);
  EXPECT_EQ(report.at("errors").at(0).at("code"), "migrate.unknown-key");
  EXPECT_EQ(report.at("errors").at(0).at("pointer"), "/tensor_parallel");
  EXPECT_EQ(report.at("errors").at(0).at("file"), tp.string());
  EXPECT_TRUE(report.at("migrations").at(0).at("output").is_null());
  EXPECT_FALSE(fs::exists(out));

  r = run_cli({"migrate", tp.string(), "--to", "0.16.2", "--drop-unknown", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("/tensor_parallel: note [migrate.dropped]: /tensor_parallel "
                       "{\"autotp_size\":2} -> (removed): "),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(Json::parse(read_file(out / "tp.json")).contains("tensor_parallel"));
}

TEST(MigrateCliTest, InPlaceAndFormatJson) {
  TempDir tmp;
  const auto old = tmp.write("old.json", kOld);
  const auto current = tmp.write("current.json", kCurrent);
  const auto r = run_cli({"migrate", old.string(), current.string(), "--to", "0.19.6", "--in-place",
                          "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json report = Json::parse(r.out);
  EXPECT_EQ(report.at("exit_code"), 0);
  ASSERT_EQ(report.at("migrations").size(), 2u);
  const Json& first = report.at("migrations").at(0);
  EXPECT_EQ(first.at("from"), "0.16.3");
  EXPECT_EQ(first.at("from_inferred"), true);
  EXPECT_EQ(first.at("changed"), true);
  EXPECT_EQ(first.at("notes").at(0).at("code"), "migrate.renamed");
  EXPECT_EQ(first.at("notes").at(0).at("new").at("pointer"), "/aio/intra_op_parallelism");
  EXPECT_EQ(report.at("migrations").at(1).at("changed"), false);
  EXPECT_TRUE(report.at("errors").empty());
  EXPECT_TRUE(Json::parse(read_file(old)).at("aio").contains("intra_op_parallelism"));
  EXPECT_EQ(read_file(current), kCurrent);
}

TEST(MigrateCliTest, AFamilyMovesItsPinAndItsExtra) {
  TempDir tmp;
  const std::string family_text = R"({
  "name": "f145",
  "template": "deepspeed/config.json.j2",
  "output": "z3.json",
  "values": {"deepspeed_version": "0.14.5", "stage": 3,
             "extra": {"aio": {"thread_count": 2}, "bf16": {"loss_scale": 0}}}
})";
  const auto family = tmp.write("fam.json", family_text);
  auto r = run_cli({"migrate", family.string(), "--to", "0.19.6", "--check"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(read_file(family), family_text);
  const fs::path out = tmp.path() / "new.json";
  r = run_cli({"migrate", family.string(), "--to", "0.19.6", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(family.string() + ": /values/deepspeed_version: note [migrate.version]: "
                                         "/values/deepspeed_version \"0.14.5\" -> "
                                         "/values/deepspeed_version \"0.19.6\": "),
            std::string::npos)
      << r.out;
  const Json migrated = Json::parse(read_file(out));
  EXPECT_EQ(migrated.at("values").at("extra").dump(),
            R"({"aio":{"intra_op_parallelism":2},"bf16":{}})");
  // No temporary copy is left beside it.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(tmp.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 2u);
  const auto generated = run_cli({"generate", out.string(), "-o", (tmp.path() / "gen").string()});
  EXPECT_EQ(generated.exit_code, 0) << generated.err;
  // Back again, in place: the older spelling.
  r = run_cli({"migrate", out.string(), "--to", "0.14.5", "--in-place"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(read_file(out)).at("values").at("extra").at("aio").dump(),
            R"({"thread_count":2})");
}

TEST(MigrateCliTest, AFamilyIsRefusedWhereItsExtraOrItsValuesHaveNoEquivalent) {
  TempDir tmp;
  // A key of extra the target lacks: refused at its pointer in the family file.
  const auto extra =
      tmp.write("extra.json",
                R"({"name": "e", "template": "deepspeed/config.json.j2", "output": "z3.json",
          "values": {"stage": 3, "extra": {"tensor_parallel": {"autotp_size": 2}}}})");
  auto r = run_cli(
      {"migrate", extra.string(), "--to", "0.16.2", "-o", (tmp.path() / "out.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, extra.string() +
                       ": /values/extra/tensor_parallel: error: DeepSpeed 0.16.2 does not know "
                       "\"tensor_parallel\" at the top level; it is a key of DeepSpeed 0.16.4 or "
                       "newer: no equivalent; remove it, or pass --drop-unknown to drop it "
                       "[migrate.unknown-key]\n"
                       "zeroforge: error: 1 refusal; nothing was written [migrate.not-migrated]\n");
  // A value the template cannot write for the target: found by rendering every member there.
  const auto value = tmp.write(
      "value.json", R"({"name": "v", "template": "deepspeed/config.json.j2", "output": "z3.json",
                        "values": {"stage": 3, "zero": {"log_trace_cache_warnings": true}}})");
  r = run_cli(
      {"migrate", value.string(), "--to", "0.16.2", "-o", (tmp.path() / "out.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, value.string() +
                       ": /values/zero/log_trace_cache_warnings: error: variant 'v': "
                       "zero.log_trace_cache_warnings needs DeepSpeed 0.16.4 or newer; "
                       "deepspeed_version is 0.16.2 [values.contract]\n"
                       "zeroforge: error: 1 refusal; nothing was written [migrate.not-migrated]\n");
  EXPECT_FALSE(fs::exists(tmp.path() / "out.json"));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(tmp.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 2u) << "no temporary copy left behind";
}

TEST(MigrateCliTest, UsageErrors) {
  TempDir tmp;
  const auto old = tmp.write("old.json", kOld);
  const auto family = tmp.write(
      "fam.json", R"({"name": "f", "template": "deepspeed/config.json.j2", "output": "a.json"})");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"migrate", old.string(), "--check"},
       "zeroforge: error: migrate: missing --to VERSION [usage.invalid]\n"},
      {{"migrate", "--to", "0.19.6", "--check"},
       "zeroforge: error: migrate: missing CONFIG.json or FAMILY.json [usage.invalid]\n"},
      {{"migrate", old.string(), "--to", "0.19.6"},
       "zeroforge: error: migrate: say where the result goes: -o, --in-place or --check "
       "[usage.invalid]\n"},
      {{"migrate", old.string(), "--to", "0.19.6", "--check", "--in-place"},
       "zeroforge: error: migrate: -o, --in-place and --check exclude each other "
       "[usage.invalid]\n"},
      {{"migrate", old.string(), "--to", "0.16", "--check"},
       "zeroforge: error: migrate: --to: \"0.16\" is not a DeepSpeed version (X.Y.Z, e.g. "
       "0.19.6); zeroforge knows 0.12.0-0.12.6, 0.13.0-0.13.5, 0.14.0-0.14.5, 0.15.0-0.15.4, "
       "0.16.0-0.16.9, 0.17.0-0.17.6, 0.18.0-0.18.9, 0.19.0-0.19.6 [usage.invalid]\n"},
      {{"migrate", old.string(), family.string(), "--to", "0.19.6", "--check"},
       "zeroforge: error: migrate: a family file is migrated alone, not with other inputs "
       "[usage.invalid]\n"},
      {{"migrate", old.string(), "--to", "0.19.6", "-o", tmp.path().string()},
       "zeroforge: error: migrate: -o " + tmp.path().string() + " would replace the input " +
           old.string() + "; pass --in-place to rewrite inputs [usage.invalid]\n"},
      {{"migrate", (tmp.path() / "missing.json").string(), "--to", "0.19.6", "--check"},
       "zeroforge: error: cannot read '" + (tmp.path() / "missing.json").string() +
           "': No such file or directory [io.failed]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.back());
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(read_file(old), kOld);
}

}  // namespace
}  // namespace zf
