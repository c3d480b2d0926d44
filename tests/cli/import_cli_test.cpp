// SPDX-License-Identifier: MIT
// `zeroforge import` through the real executable: every real config (tests/data/) comes back
// from `generate` equal as a JSON value, golden families of real folders with their findings,
// exit 1 with the family written when an input has errors, exit 2 with nothing written for
// bad input, and the report of an imported family.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::source_dir;
using test::TempDir;
using Json = nlohmann::ordered_json;

// Every real config the tests hold: tests/data/peer-configs and tests/data/collected-configs
// (their READMEs name each file's source).
std::vector<std::string> real_configs() {
  std::set<std::string> files;
  for (const char* folder : {"tests/data/peer-configs", "tests/data/collected-configs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(source_dir() / folder)) {
      if (entry.path().extension() == ".json") {
        files.insert(entry.path().lexically_relative(source_dir()).generic_string());
      }
    }
  }
  return {files.begin(), files.end()};
}

// A JSON value as DeepSpeed reads it: keys in any order, 1e9 equal to 1000000000
// (nlohmann::json compares an integer and a float as numbers).
nlohmann::json as_value(const fs::path& file) { return nlohmann::json::parse(read_file(file)); }

// The first line where `got` and `want` differ, for a golden failure.
std::string first_difference(const std::string& got, const std::string& want) {
  std::istringstream a(got), b(want);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (la != lb || more_a != more_b) {
      return "line " + std::to_string(line) + ": got\n  " + la + "\nexpected\n  " + lb;
    }
    if (!more_a) return "";
  }
}

TEST(ImportCliTest, EveryRealConfigComesBackFromGenerateEqualAsAJsonValue) {
  TempDir tmp;
  const std::vector<std::string> configs = real_configs();
  ASSERT_GE(configs.size(), 28u) << "23 peer configs and 5 collected";
  std::vector<std::string> args = {"import"};
  args.insert(args.end(), configs.begin(), configs.end());
  args.insert(args.end(), {"-o", (tmp.path() / "imported.json").string()});
  const auto imported = run_cli(args);
  // Some of them have errors (axolotl's compile block, DeepSpeed's autotuning templates
  // without a batch size, transformers' bfloat16 "auto"): exit 1, the family is written.
  EXPECT_EQ(imported.exit_code, 1) << imported.err;
  EXPECT_EQ(imported.err, "");
  ASSERT_TRUE(fs::exists(tmp.path() / "imported.json"));
  const fs::path out = tmp.path() / "out";
  // The validator would refuse the same errors in the regenerated configs.
  const auto generated = run_cli({"generate", (tmp.path() / "imported.json").string(), "-o",
                                  out.string(), "--no-validate", "--quiet"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::set<std::string> written;
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    if (entry.is_regular_file()) {
      written.insert(entry.path().lexically_relative(out).generic_string());
    }
  }
  std::set<std::string> expected = {"manifest.json"};
  for (const auto& config : configs) {
    // Named by its path below the folder the inputs share (tests/data).
    const std::string name = fs::path(config).lexically_relative("tests/data").generic_string();
    expected.insert(name);
    SCOPED_TRACE(config);
    ASSERT_TRUE(fs::exists(out / name));
    EXPECT_EQ(as_value(out / name), as_value(source_dir() / config));
  }
  EXPECT_EQ(written, expected);
}

// tests/golden/import/CASE/: `args` (import's arguments, one a line, run from the source
// directory; OUT is a fresh directory), `expected-family.json`, `expected.out` (stdout, with
// OUT for that directory) and `expected-exit`. ZF_UPDATE_GOLDEN=1 rewrites them (review the
// diff). Each family must also give its inputs back.
TEST(ImportCliTest, MatchesTheGoldenImportOfEachFolder) {
  const fs::path golden = source_dir() / "tests" / "golden" / "import";
  const bool update = std::getenv("ZF_UPDATE_GOLDEN") != nullptr;
  std::size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    const fs::path dir = entry.path();
    SCOPED_TRACE(dir.filename().string());
    ++cases;
    TempDir tmp;
    const std::string out = tmp.path().string();
    std::vector<std::string> args = {"import"}, inputs;
    std::istringstream lines(read_file(dir / "args"));
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      for (auto at = line.find("OUT"); at != std::string::npos; at = line.find("OUT")) {
        line.replace(at, 3, out);
      }
      args.push_back(line);
      if (line.ends_with(".json") && !line.starts_with(out)) inputs.push_back(line);
    }
    const auto result = run_cli(args);
    EXPECT_EQ(result.err, "");
    std::string stdout_text = result.out;
    for (auto at = stdout_text.find(out); at != std::string::npos; at = stdout_text.find(out)) {
      stdout_text.replace(at, out.size(), "OUT");
    }
    const fs::path family = tmp.path() / "family.json";
    ASSERT_TRUE(fs::exists(family)) << result.err;
    if (update) {
      write_file_atomically(dir / "expected.out", stdout_text);
      write_file_atomically(dir / "expected-exit", std::to_string(result.exit_code) + "\n");
      fs::copy_file(family, dir / "expected-family.json", fs::copy_options::overwrite_existing);
    }
    EXPECT_EQ(std::to_string(result.exit_code) + "\n", read_file(dir / "expected-exit"));
    const std::string got = read_file(family), want = read_file(dir / "expected-family.json");
    EXPECT_EQ(got, want) << first_difference(got, want);
    EXPECT_EQ(stdout_text, read_file(dir / "expected.out"))
        << first_difference(stdout_text, read_file(dir / "expected.out"));

    const auto generated = run_cli({"generate", family.string(), "-o",
                                    (tmp.path() / "out").string(), "--no-validate", "--quiet"});
    ASSERT_EQ(generated.exit_code, 0) << generated.err;
    ASSERT_FALSE(inputs.empty());
    for (const auto& input : inputs) {
      SCOPED_TRACE(input);
      std::string name = fs::path(input).filename().string();
      std::error_code ec;
      // The inputs of one golden case share their folder.
      EXPECT_EQ(as_value(tmp.path() / "out" / name), as_value(source_dir() / input));
    }
  }
  EXPECT_GE(cases, 3u);
}

// A tier file is named relative to the family file, as generate reads it; the members run on
// it, and a member whose batch keys ask for fewer ranks than it has GPUs gets world_size.
TEST(ImportCliTest, ATierFileIsNamedRelativeToTheFamily) {
  TempDir tmp;
  tmp.write("site/tiers/h100x4.json", R"({"gpus_per_node": 4, "nodes": 1})");
  const auto a = tmp.write("team/deepspeed-configs/zero2-bs64.json",
                           R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8,
                               "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 2}})");
  const auto b = tmp.write("team/deepspeed-configs/zero3-bs32.json",
                           R"({"train_batch_size": 32, "train_micro_batch_size_per_gpu": 8,
                               "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 3}})");
  const fs::path family = tmp.path() / "families" / "team.json";
  const auto imported = run_cli({"import", a.string(), b.string(), "-o", family.string(), "--tier",
                                 (tmp.path() / "site/tiers/h100x4.json").string()});
  ASSERT_EQ(imported.exit_code, 0) << imported.out << imported.err;
  const Json written = parse_json_text(read_file(family), family.string());
  EXPECT_EQ(written.at("tiers"), Json::array({"../site/tiers/h100x4.json"}));
  EXPECT_EQ(written.at("include").at(1).at("world_size"), 2);
  const fs::path out = tmp.path() / "out";
  const auto generated = run_cli({"generate", family.string(), "-o", out.string(), "--quiet"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(as_value(out / "zero2-bs64.json"), as_value(a));
  EXPECT_EQ(as_value(out / "zero3-bs32.json"), as_value(b));
  EXPECT_NE(imported.out.find(b.string() +
                              ": /train_batch_size: note [import-world-size]: train_batch_size 32 "
                              "= 8 x 2 x world 2: the member runs 2 ranks of tier "),
            std::string::npos)
      << imported.out;
}

// A config written for an older release (aio.thread_count: DeepSpeed 0.16.4 renamed it) is
// judged by that release and comes back from values alone once the family pins it; judged by
// the newest release, thread_count is a key it does not read, carried as written in extra.
TEST(ImportCliTest, TheReleaseAskedForJudgesTheInputsAndIsPinnedInTheFamily) {
  TempDir tmp;
  const auto config = tmp.write("team/deepspeed-configs/zero3-nvme-deepspeed-0.14.json",
                                R"({"train_micro_batch_size_per_gpu": 1,
      "zero_optimization": {"stage": 3,
        "offload_param": {"device": "nvme", "nvme_path": "/local_nvme", "pin_memory": true}},
      "aio": {"block_size": 1048576, "queue_depth": 8, "thread_count": 2,
              "single_submit": false, "overlap_events": true}})");
  const fs::path family = tmp.path() / "families" / "team.json";
  const auto pinned = run_cli({"import", config.string(), "-o", family.string(),
                               "--deepspeed-version", "0.14.5", "--format", "json"});
  ASSERT_EQ(pinned.exit_code, 0) << pinned.out << pinned.err;
  const Json written = parse_json_text(read_file(family), family.string());
  EXPECT_EQ(written.at("values").at("deepspeed_version"), "0.14.5");
  EXPECT_EQ(written.dump().find("\"extra\""), std::string::npos) << written.dump(2);
  EXPECT_EQ(pinned.out.find("thread_count"), std::string::npos) << pinned.out;
  const fs::path out = tmp.path() / "out";
  const auto generated = run_cli({"generate", family.string(), "-o", out.string(), "--quiet"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(as_value(out / "zero3-nvme-deepspeed-0.14.json"), as_value(config));

  const auto newest = run_cli({"import", config.string(), "-o", family.string()});
  EXPECT_NE(newest.out.find("/aio/thread_count"), std::string::npos) << newest.out;
  EXPECT_FALSE(parse_json_text(read_file(family), family.string())
                   .at("values")
                   .contains("deepspeed_version"));
}

class ImportCliErrorsTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) const {
    return dir.write("configs/for/the/pretraining/team/" + name, text).string();
  }
  // Nothing but the configs: no family, no temporary file.
  void expect_nothing_written() const {
    std::set<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
      if (entry.is_regular_file()) found.insert(entry.path().filename().string());
    }
    EXPECT_EQ(found, written_);
  }
  void SetUp() override {
    good_ = write("zero2.json", R"({"train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 2}})");
    written_ = {"zero2.json"};
  }
  TempDir dir;
  std::string good_;
  std::set<std::string> written_;
};

TEST_F(ImportCliErrorsTest, AMissingFileExitsTwoAndWritesNothing) {
  const std::string missing = (dir.path() / "configs/for/the/pretraining/team/zero3.json").string();
  const std::string family = (dir.path() / "family.json").string();
  const auto result = run_cli({"import", good_, missing, "-o", family});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "zeroforge: error: cannot read '" + missing +
                            "': No such file or directory [io.failed]\n");
  expect_nothing_written();
}

TEST_F(ImportCliErrorsTest, BadJsonExitsTwoAtItsLineAndColumn) {
  const std::string bad =
      write("zero3.json", "{\n  \"zero_optimization\": {\n    \"stage\": 3\n  \n}\n");
  written_.insert("zero3.json");
  const auto result = run_cli({"import", good_, bad, "-o", (dir.path() / "f.json").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.substr(0, result.err.find('\n')),
            bad + ":6:1: error: expected ',' or '}' in object, found end of input [json.syntax]");
  expect_nothing_written();
}

// {"x": {"x": ... 1}}: the value 1 at depth `depth` (the top-level object is at 0).
std::string nested(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "{\"x\": ";
  text += "1";
  text += std::string(static_cast<std::size_t>(depth), '}');
  return text;
}

std::string x_pointer(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += "/x";
  return out;
}

TEST_F(ImportCliErrorsTest, AFamilyDeeperThanTheReaderGoesIsRefusedAtTheInput) {
  // 509 levels come back (a member's extra puts them 3 deeper: 512, the reader's limit); 511
  // levels read as an input but not once nested in a family: exit 2, the file and the pointer
  // of its deepest value, nothing written.
  const std::string fits = write("deep509.json", nested(509));
  const std::string family = (dir.path() / "deep.json").string();
  const auto ok = run_cli({"import", good_, fits, "-o", family});
  ASSERT_EQ(ok.exit_code, 1) << ok.err;  // the validator's error on the key "x"
  const std::string out = (dir.path() / "regenerated").string();
  EXPECT_EQ(run_cli({"generate", family, "-o", out, "--no-validate", "--quiet"}).exit_code, 0);
  EXPECT_EQ(parse_json_text(read_file(out + "/deep509.json"), "out"),
            parse_json_text(nested(509), "in"));
  fs::remove_all(out);
  fs::remove(family);

  const std::string deep = write("deep511.json", nested(511));
  written_.insert({"deep509.json", "deep511.json"});
  const auto refused = run_cli({"import", good_, deep, "-o", family});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err, deep + ": " + x_pointer(511) +
                             ": error: nests 511 levels deep; in the family it would nest 514 "
                             "levels deep (at /include/1/extra" +
                             x_pointer(511) +
                             "), deeper than the 512 levels zeroforge reads JSON to, so "
                             "generate could not read the family: flatten the value, or import "
                             "this config without it [import.limit]\n");
  expect_nothing_written();
  const auto json = run_cli({"import", deep, "-o", family, "--format", "json"});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.out.find("\"code\": \"import.limit\""), std::string::npos) << json.out;
  expect_nothing_written();
}

TEST_F(ImportCliErrorsTest, AFamilyLargerThanGenerateReadsIsRefusedNamingItsLargestMember) {
  // Two inputs of 0.6 MiB under a 1 MiB limit: each is read, the family of both is not.
  std::string big = "{\"train_micro_batch_size_per_gpu\": 2, \"notes\": [";
  for (int i = 0; i < 60000; ++i) big += (i ? ", " : "") + std::to_string(1000000 + i);
  const std::string a = write("a.json", big + "]}");
  const std::string b = write("b.json", big + ", 7]}");
  written_.insert({"a.json", "b.json"});
  const std::string family = (dir.path() / "big.json").string();
  const auto refused = run_cli({"import", a, b, "-o", family}, {}, {"ZEROFORGE_MAX_INPUT_MIB=1"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err.substr(0, refused.err.find(" MiB, larger")),
            b + ": error: the family would be 2.1");
  EXPECT_NE(refused.err.find("larger than the 1 MiB limit on a file zeroforge reads "
                             "(ZEROFORGE_MAX_INPUT_MIB), so generate could not read it"),
            std::string::npos)
      << refused.err;
  expect_nothing_written();
  // Under the default limit the same inputs import.
  EXPECT_EQ(run_cli({"import", a, b, "-o", family}).exit_code, 0);
}

TEST_F(ImportCliErrorsTest, AnUnwritableOutputExitsTwoAndWritesNothing) {
  // -o below a regular file, and -o naming a folder (tests run as root, so a read-only folder
  // would not stop them).
  const fs::path folder = dir.path() / "families";
  fs::create_directory(folder);
  for (const fs::path& family :
       {dir.path() / "configs/for/the/pretraining/team/zero2.json" / "family.json", folder}) {
    SCOPED_TRACE(family.string());
    const auto result = run_cli({"import", good_, "-o", family.string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "") << "no findings before the family is written";
    EXPECT_TRUE(result.err.starts_with("zeroforge: error: cannot write '" + family.string()))
        << result.err;
    expect_nothing_written();
    EXPECT_TRUE(fs::is_empty(folder));
  }
}

TEST_F(ImportCliErrorsTest, UsageErrorsExitTwo) {
  const std::string family = (dir.path() / "family.json").string();
  const struct {
    std::vector<std::string> args;
    std::string err;
  } cases[] = {
      {{"import", "-o", family}, "zeroforge: error: import: missing CONFIG.json [usage.invalid]\n"},
      {{"import", good_}, "zeroforge: error: import: missing -o FAMILY.json [usage.invalid]\n"},
      // The family would replace the config it is made from.
      {{"import", good_, "-o", good_},
       "zeroforge: error: import: -o " + good_ + " is the input " + good_ +
           "; write the family to another file [usage.invalid]\n"},
      {{"import", good_, "-o", family, "--format", "yaml"},
       "zeroforge: error: import: --format must be text or json, not 'yaml' [usage.invalid]\n"},
      {{"import", good_, "-o", family, "--deepspeed-version", "0.11.2"},
       "zeroforge: error: import: --deepspeed-version: unknown DeepSpeed version \"0.11.2\"; "
       "zeroforge knows 0.12.0-0.12.6, 0.13.0-0.13.5, 0.14.0-0.14.5, 0.15.0-0.15.4, "
       "0.16.0-0.16.9, 0.17.0-0.17.6, 0.18.0-0.18.9, 0.19.0-0.19.6 [usage.invalid]\n"},
      {{"import", good_, "-o", family, "--world-size", "0"},
       "zeroforge: error: import: --world-size must be a whole number from 1 to 1000000000, "
       "got 0 [usage.invalid]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.err);
    const auto result = run_cli(c.args);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, c.err);
    expect_nothing_written();
  }
  EXPECT_EQ(read_file(good_), R"({"train_micro_batch_size_per_gpu": 2,
        "zero_optimization": {"stage": 2}})");
}

TEST_F(ImportCliErrorsTest, AnInputWithErrorsExitsOneAndTheFamilyIsStillWritten) {
  const std::string bad_batch = write("zero3-bs30.json", R"({"train_batch_size": 30,
      "train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 3}})");
  const std::string family = (dir.path() / "family.json").string();
  const auto result = run_cli({"import", good_, bad_batch, "-o", family, "--format", "json"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const Json findings = parse_json_text(result.out, "stdout");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["file"], bad_batch);
  EXPECT_EQ(findings[0]["pointer"], "/train_batch_size");
  EXPECT_EQ(findings[0]["rule"], "batch-mismatch");
  EXPECT_EQ(findings[0]["severity"], "error");
  ASSERT_TRUE(fs::exists(family));
  // With the world size the team runs at, the same config is right.
  const auto at_eight = run_cli({"import", bad_batch, "-o", family, "--world-size", "8"});
  EXPECT_EQ(at_eight.exit_code, 1) << "30 is not 4 x 8 either";
  const std::string ok = write("zero3-bs32.json", R"({"train_batch_size": 32,
      "train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 3}})");
  const auto thirty_two = run_cli({"import", ok, "-o", family, "--world-size", "8"});
  EXPECT_EQ(thirty_two.exit_code, 0) << thirty_two.out;
}

// The report of an imported family: each member's stage, offload and batch arithmetic side
// by side, one row per input named by its path.
TEST(ImportCliTest, TheReportOfAnImportedFamilyShowsEachMemberSideBySide) {
  TempDir tmp;
  const fs::path family = tmp.path() / "llama-factory.json";
  std::vector<std::string> args = {"import"};
  for (const char* name : {"ds_z0_config", "ds_z2_config", "ds_z2_offload_config", "ds_z3_config",
                           "ds_z3_offload_config"}) {
    args.push_back("tests/data/peer-configs/llama-factory/" + std::string(name) + ".json");
  }
  args.insert(args.end(), {"-o", family.string()});
  const auto imported = run_cli(args);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const auto report = run_cli({"report", family.string(), "-o", "-", "--quiet"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string& html = report.out;
  struct Row {
    const char* path;
    const char* cells;  // stage, offload_optimizer, offload_param, precision, batch
  };
  const Row rows[] = {
      {"ds_z0_config.json",
       "<td>0</td><td>GPU</td><td>GPU</td><td>auto (--fp16 or --bf16)</td><td>1 \xC3\x97 1 "
       "\xC3\x97 1 = 1 (the config says \"auto\": the HF Trainer fills them)</td>"},
      {"ds_z2_offload_config.json",
       "<td>2</td><td>CPU</td><td>GPU</td><td>auto (--fp16 or --bf16)</td>"},
      {"ds_z3_offload_config.json",
       "<td>3</td><td>CPU</td><td>CPU</td><td>auto (--fp16 or --bf16)</td>"},
  };
  // What a reviewer should look at first, on top of the page.
  EXPECT_NE(html.find("To review: ds_z2_config.json differs from ds_z0_config.json only at "
                      "/zero_optimization/stage (2 vs 0). ds_z2_offload_config.json differs from "
                      "ds_z2_config.json only at /zero_optimization/offload_optimizer"),
            std::string::npos);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.path);
    const auto at = html.find("<code>" + std::string(row.path) + "</code>");
    ASSERT_NE(at, std::string::npos);
    const std::string tr = html.substr(at, html.find("</tr>", at) - at);
    EXPECT_NE(tr.find(row.cells), std::string::npos) << tr;
  }
}

}  // namespace
}  // namespace zf
