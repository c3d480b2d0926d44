// SPDX-License-Identifier: MIT
// `zeroforge generate`, `explain` and `list` through the real executable: exit codes, the
// manifest, determinism, `--check` drift (missing, changed, extra), and that nothing is
// written when any config fails.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_runner.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

class GenerateCliTest : public ::testing::Test {
 protected:
  fs::path out() const { return dir.path() / "out"; }
  std::string family(const std::string& name, const std::string& text) const {
    return dir.write(name, text).string();
  }
  TempDir dir;
};

std::size_t count_files(const fs::path& root) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_regular_file()) ++n;
  }
  return n;
}

TEST_F(GenerateCliTest, WritesEveryConfigAndAManifestWithHashes) {
  auto result = run_cli({"generate", "example", "-o", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("wrote 18 configs of family 'example'"), std::string::npos);
  Json manifest = Json::parse(read_file(out() / "manifest.json"));
  EXPECT_EQ(manifest.at("family"), "example");
  EXPECT_EQ(manifest.at("template"), "deepspeed/config.json.j2");
  const Json& configs = manifest.at("configs");
  ASSERT_EQ(configs.size(), 18u);
  EXPECT_EQ(count_files(out()), 19u);
  std::string previous;
  for (const auto& entry : configs) {
    std::string path = entry.at("path");
    EXPECT_LT(previous, path) << "sorted by path";
    previous = path;
    std::string text = read_file(out() / path);
    EXPECT_EQ(entry.at("sha256"), sha256_hex(text)) << path;
    Json config = Json::parse(text);
    EXPECT_EQ(config.at("train_batch_size"), 256) << "the family's global batch on every tier";
    EXPECT_EQ(entry.at("train_batch_size"), 256);
    long long world = entry.at("world_size");
    EXPECT_EQ(config.at("train_batch_size").get<long long>(),
              config.at("train_micro_batch_size_per_gpu").get<long long>() *
                  config.at("gradient_accumulation_steps").get<long long>() * world);
  }
  EXPECT_EQ(configs[0].at("path"), "large/zero1-bf16.json");
  EXPECT_EQ(configs[0].at("world_size"), 64);
  EXPECT_EQ(configs[0].at("variant"), Json({{"stage", 1}, {"precision", "bf16"}}));
}

TEST_F(GenerateCliTest, DeepSpeedVersionIsAnAxisLikeAnyValue) {
  // One family, one config per DeepSpeed release a team runs: each written for its release
  // (aio's threads were thread_count before 0.16.4) and validated by it.
  auto path =
      family("releases.json", R"({"name": "releases", "template": "deepspeed/config.json.j2",
      "values": {"stage": 3, "offload_optimizer": "nvme", "offload_param": "nvme",
                 "nvme_path": "/local_nvme"},
      "axes": {"deepspeed_version": ["0.14.5", "0.16.4"]},
      "tiers": ["small"], "output": "{{ tier }}/ds-{{ deepspeed_version }}.json"})");
  auto result = run_cli({"generate", path, "-o", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json old = parse_json_text(read_file(out() / "small" / "ds-0.14.5.json"), "old");
  Json since = parse_json_text(read_file(out() / "small" / "ds-0.16.4.json"), "since");
  EXPECT_EQ(old.at("aio").at("thread_count"), 1);
  EXPECT_FALSE(old.at("aio").contains("intra_op_parallelism"));
  EXPECT_EQ(since.at("aio").at("intra_op_parallelism"), 1);
  EXPECT_FALSE(since.at("aio").contains("thread_count"));

  // A value the older release lacks: refused before anything is written, at the family file.
  auto trace = family("trace.json", R"({"name": "trace", "template": "deepspeed/config.json.j2",
      "values": {"stage": 3, "zero": {"log_trace_cache_warnings": true}},
      "axes": {"deepspeed_version": ["0.16.2", "0.16.4"]},
      "tiers": ["small"], "output": "{{ tier }}/ds-{{ deepspeed_version }}.json"})");
  auto refused = run_cli({"generate", trace, "-o", (dir.path() / "trace-out").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            trace +
                ": /values/zero/log_trace_cache_warnings: error: variant 'small "
                "deepspeed_version=0.16.2': zero.log_trace_cache_warnings needs "
                "DeepSpeed 0.16.4 or newer; deepspeed_version is 0.16.2 [values.contract]\n"
                "zeroforge: error: family 'trace' not generated; nothing was "
                "written [generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "trace-out" / "small" / "ds-0.16.4.json"));
}

TEST_F(GenerateCliTest, SameInputsGiveByteIdenticalFiles) {
  ASSERT_EQ(run_cli({"generate", "llama-7b", "-o", out().string()}).exit_code, 0);
  fs::path again = dir.path() / "again";
  ASSERT_EQ(run_cli({"generate", "llama-7b", "-o", again.string()}).exit_code, 0);
  for (const auto& entry : fs::recursive_directory_iterator(out())) {
    if (!entry.is_regular_file()) continue;
    auto relative = entry.path().lexically_relative(out());
    EXPECT_EQ(read_file(entry.path()), read_file(again / relative)) << relative;
  }
  EXPECT_EQ(count_files(out()), count_files(again));
}

TEST_F(GenerateCliTest, CheckNamesMissingChangedAndExtraFilesAndWritesNothing) {
  auto clean = run_cli({"generate", "example", "-o", out().string(), "--check"});
  EXPECT_EQ(clean.exit_code, 1) << "nothing generated yet: everything is missing";
  EXPECT_FALSE(fs::exists(out()));
  ASSERT_EQ(run_cli({"generate", "example", "-o", out().string()}).exit_code, 0);
  auto same = run_cli({"generate", "example", "-o", out().string(), "--check"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;

  fs::remove(out() / "small" / "zero1-bf16.json");
  write_file_atomically(out() / "medium" / "zero2-fp16.json", "{}\n");
  write_file_atomically(out() / "notes.txt", "mine\n");
  auto drift = run_cli({"generate", "example", "-o", out().string(), "--check"});
  EXPECT_EQ(drift.exit_code, 1);
  std::string o = out().string();
  EXPECT_EQ(drift.out, o + "/small/zero1-bf16.json: missing\n" + o +
                           "/medium/zero2-fp16.json: changed\n" + o + "/notes.txt: extra\n");
  EXPECT_NE(drift.err.find("(1 missing, 1 changed, 1 extra)"), std::string::npos);
  EXPECT_FALSE(fs::exists(out() / "small" / "zero1-bf16.json")) << "--check writes nothing";
  auto set = run_cli(
      {"generate", "example", "-o", out().string(), "--check", "--set", "steps_per_print=10"});
  EXPECT_EQ(set.exit_code, 1) << "--set applies to every config";
}

TEST_F(GenerateCliTest, RegeneratingRemovesFilesTheFamilyNoLongerProduces) {
  std::string f1 = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [1, 2]}, "output": "zero{{ stage }}.json"})");
  ASSERT_EQ(run_cli({"generate", f1, "-o", out().string()}).exit_code, 0);
  write_file_atomically(out() / "mine.txt", "kept\n");
  std::string f2 = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [2]}, "output": "zero{{ stage }}.json"})");
  ASSERT_EQ(run_cli({"generate", f2, "-o", out().string()}).exit_code, 0);
  EXPECT_FALSE(fs::exists(out() / "zero1.json"));
  EXPECT_TRUE(fs::exists(out() / "zero2.json"));
  EXPECT_TRUE(fs::exists(out() / "mine.txt")) << "only files an earlier generate wrote are removed";
}

TEST_F(GenerateCliTest, AnUnreadableOldManifestOnlyMeansNothingIsPruned) {
  std::string f = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [1, 2]}, "output": "zero{{ stage }}.json"})");
  fs::create_directories(out());
  write_file_atomically(out() / "old.json", "{}\n");
  write_file_atomically(out() / "manifest.json", R"({"configs": [{"path": "old.json"}, {"path": )");
  auto result = run_cli({"generate", f, "-o", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(out() / "old.json"))
      << "paths before the malformed part are not trusted either";
  EXPECT_EQ(Json::parse(read_file(out() / "manifest.json")).at("configs").size(), 2u);
}

TEST_F(GenerateCliTest, RegeneratingMergesNewDirectoriesIntoExistingOnes) {
  // New directories move into place whole; files in directories DIR already has move one by
  // one, next to what is there.
  std::string f1 = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [1, 2]}, "output": "a/zero{{ stage }}/config.json"})");
  ASSERT_EQ(run_cli({"generate", f1, "-o", out().string()}).exit_code, 0);
  write_file_atomically(out() / "a" / "zero1" / "mine.txt", "kept\n");
  std::string f2 = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [1, 2, 3], "precision": ["bf16", "fp16"]},
    "output": "a/zero{{ stage }}/{{ precision }}/config.json"})");
  auto result = run_cli({"generate", f2, "-o", out().string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json manifest = Json::parse(read_file(out() / "manifest.json"));
  ASSERT_EQ(manifest.at("configs").size(), 6u);
  for (const auto& entry : manifest.at("configs")) {
    std::string path = entry.at("path");
    ASSERT_TRUE(fs::is_regular_file(out() / path)) << path;
    EXPECT_EQ(entry.at("sha256"), sha256_hex(read_file(out() / path))) << path;
  }
  EXPECT_EQ(read_file(out() / "a" / "zero1" / "mine.txt"), "kept\n");
  EXPECT_FALSE(fs::exists(out() / "a" / "zero1" / "config.json"))
      << "the old family's file is pruned";
  EXPECT_EQ(count_files(out()), 8u) << "6 configs, the manifest and mine.txt; no staging left";
  EXPECT_EQ(run_cli({"generate", f2, "-o", out().string(), "--check"}).exit_code, 1)
      << "mine.txt is not the family's: --check names it as extra";
}

TEST_F(GenerateCliTest, AFileWhereTheOutputNeedsADirectoryIsAnErrorAndNothingMoves) {
  std::string f = family("f.json", R"({"name": "f", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [1, 2]}, "output": "a/zero{{ stage }}.json"})");
  fs::create_directories(out());
  write_file_atomically(out() / "a", "a file, not a directory\n");
  auto result = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(
      result.err.find("it is a file where the family writes a directory; nothing was written"),
      std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(out() / "manifest.json"));
  EXPECT_EQ(count_files(out()), 1u) << "nothing staged is left behind";
}

// 640 configs (several of generate's batches): what is written, and what is reported when
// configs fail, is the same for every --jobs.
class GenerateJobsTest : public GenerateCliTest {
 protected:
  void SetUp() override {
    dir.write("t/c.json.j2", R"({"train_micro_batch_size_per_gpu": {{ micro_batch_size }},
 "gradient_accumulation_steps": 1,
 "train_batch_size": {{ 3 if micro_batch_size % broken_every == 0 else micro_batch_size }},
 "zero_optimization": {"stage": {{ stage }}},
 "steps_per_print": {{ 1000 // (micro_batch_size - divisor_zero_at) }}}
)");
    std::string micro;
    for (int m = 1; m <= 80; ++m) micro += (m > 1 ? "," : "") + std::to_string(m);
    family_file = family("f.json", R"({"name": "f", "template": "c.json.j2",
      "values": {"broken_every": 1000, "divisor_zero_at": 0, "world_size": 1},
      "axes": {"stage": [0, 1, 2, 3], "micro_batch_size": [)" +
                                       micro + R"(], "seed": [1, 2]},
      "output": "s{{ stage }}/m{{ micro_batch_size }}-{{ seed }}.json"})");
  }
  test::CliResult generate(const fs::path& to, unsigned jobs,
                           const std::vector<std::string>& extra = {}) {
    // The template has no DeepSpeed contract: validation is asked for.
    std::vector<std::string> args = {"generate",
                                     family_file,
                                     "--template-dir",
                                     (dir.path() / "t").string(),
                                     "-o",
                                     to.string(),
                                     "-j",
                                     std::to_string(jobs),
                                     "--validate",
                                     "deepspeed"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }
  std::string family_file;
};

TEST_F(GenerateJobsTest, EveryThreadCountWritesTheSameFiles) {
  ASSERT_EQ(generate(out(), 1).exit_code, 0);
  for (unsigned jobs : {2u, 3u, 8u}) {
    fs::path other = dir.path() / ("out-j" + std::to_string(jobs));
    auto result = generate(other, jobs);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(count_files(other), 641u);
    for (const auto& entry : fs::recursive_directory_iterator(out())) {
      if (!entry.is_regular_file()) continue;
      auto relative = entry.path().lexically_relative(out());
      ASSERT_EQ(read_file(entry.path()), read_file(other / relative))
          << relative << " with -j " << jobs;
    }
    EXPECT_EQ(generate(other, jobs, {"--check"}).exit_code, 0);
  }
}

TEST_F(GenerateJobsTest, FailuresAreReportedTheSameWayForEveryThreadCount) {
  // Validator errors in many configs: all named, in variant order; a template error in one
  // config: the first one in variant order is reported. Nothing is written either way.
  for (const char* set : {"broken_every=5", "divisor_zero_at=77"}) {
    auto serial = generate(out(), 1, {"--set", set});
    EXPECT_NE(serial.exit_code, 0) << set;
    EXPECT_FALSE(fs::exists(out())) << set;
    for (unsigned jobs : {2u, 3u}) {
      auto parallel = generate(out(), jobs, {"--set", set});
      EXPECT_EQ(parallel.exit_code, serial.exit_code) << set << " with -j " << jobs;
      EXPECT_EQ(parallel.err, serial.err) << set << " with -j " << jobs;
      EXPECT_EQ(parallel.out, serial.out) << set << " with -j " << jobs;
      EXPECT_FALSE(fs::exists(out())) << set << " with -j " << jobs;
    }
  }
  auto findings = generate(out(), 2, {"--set", "broken_every=5"});
  EXPECT_EQ(findings.exit_code, 1);
  EXPECT_NE(findings.err.find("s0/m5-1.json: /train_batch_size: error [batch-mismatch]"),
            std::string::npos)
      << findings.err;
  auto failure = generate(out(), 2, {"--set", "divisor_zero_at=77"});
  EXPECT_EQ(failure.exit_code, 2);
  EXPECT_NE(failure.err.find("while rendering variant 'stage=0 micro_batch_size=77 seed=1'"),
            std::string::npos)
      << failure.err;
}

TEST_F(GenerateJobsTest, AnErrorWhilePreparingLaterConfigsStopsCleanly) {
  // The output pattern fails for the 400th variant, while the threads are making the batch
  // before it: a located error, exit 2, nothing written (and, under the sanitizers, no use of
  // the batch after it is gone).
  std::string micro;
  for (int m = 1; m <= 500; ++m) micro += (m > 1 ? "," : "") + std::to_string(m);
  std::string f = family("late.json", R"({"name": "late", "template": "c.json.j2",
      "values": {"broken_every": 1000, "divisor_zero_at": 0, "world_size": 1},
      "axes": {"stage": [1], "micro_batch_size": [)" +
                                          micro + R"(]},
      "output": "m{{ micro_batch_size }}-{{ 1 // (micro_batch_size - 400) }}.json"})");
  for (unsigned jobs : {1u, 2u}) {
    auto result = run_cli({"generate", f, "--template-dir", (dir.path() / "t").string(), "-o",
                           out().string(), "-j", std::to_string(jobs)});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("integer division or modulo by zero"), std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("while naming the file of variant 'stage=1 micro_batch_size=400'"),
              std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(out())) << jobs;
  }
  // A template error in an earlier config is the one reported.
  auto earlier = run_cli({"generate", f, "--template-dir", (dir.path() / "t").string(), "-o",
                          out().string(), "--set", "divisor_zero_at=300"});
  EXPECT_EQ(earlier.exit_code, 2);
  EXPECT_NE(earlier.err.find("while rendering variant 'stage=1 micro_batch_size=300'"),
            std::string::npos)
      << earlier.err;
}

TEST_F(GenerateJobsTest, RefusedValuesOutrankTemplateErrorsInLaterConfigs) {
  // Variants with micro batch 10 name a bad file (a value problem, reported for each); the config
  // of micro batch 77, later in variant order, fails to render. As if made one by one: the problem
  // is reported and the later template error is not, whatever the thread count; nothing is written.
  std::string f = family("bad-path.json", R"({"name": "bad-path", "template": "c.json.j2",
      "values": {"broken_every": 1000, "divisor_zero_at": 77, "world_size": 1},
      "axes": {"stage": [0, 1], "micro_batch_size": [5, 10, 77]},
      "output": "{{ 'x/../' if micro_batch_size == 10 else '' }}s{{ stage }}/m{{ micro_batch_size }}.json"})");
  std::string serial;
  for (unsigned jobs : {1u, 2u, 3u}) {
    auto result = run_cli({"generate", f, "--template-dir", (dir.path() / "t").string(), "-o",
                           out().string(), "-j", std::to_string(jobs)});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    for (const char* stage : {"0", "1"}) {
      EXPECT_NE(result.err.find("variant 'stage=" + std::string(stage) +
                                " micro_batch_size=10': output path \"x/../s" + stage +
                                "/m10.json\" has an empty, '.' or '..' segment"),
                std::string::npos)
          << result.err;
    }
    EXPECT_EQ(result.err.find("while rendering"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(out())) << jobs;
    if (jobs == 1) serial = result.err;
    EXPECT_EQ(result.err, serial) << jobs;
  }
}

TEST_F(GenerateJobsTest, JobsOutsideOneTo256AreUsageErrors) {
  for (unsigned jobs : {0u, 257u}) {
    auto result = generate(out(), jobs);
    EXPECT_EQ(result.exit_code, 2) << jobs;
    EXPECT_NE(
        result.err.find("--jobs must be a whole number from 1 to 256, got " + std::to_string(jobs)),
        std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(out())) << jobs;
  }
  EXPECT_EQ(generate(out(), 256).exit_code, 0);
}

TEST_F(GenerateCliTest, AVariantBreakingADeepSpeedRuleIsNamedAndNothingIsWritten) {
  std::string f = family("bad.json", R"({"name": "bad", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [2, 3], "offload_param": ["none", "cpu"]}, "tiers": ["medium"],
    "output": "{{ tier }}/{{ variant }}.json"})");
  auto result = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            f +
                ": /axes/offload_param/1: error: variant 'medium stage=2 offload_param=cpu': "
                "offload_param=cpu "
                "takes effect only at ZeRO stage 3, but stage=2 (variant " +
                f +
                " /axes/stage/0); DeepSpeed would silently ignore it: use stage 3 or "
                "offload_param=none [values.contract]\n"
                "zeroforge: error: family 'bad' not generated; nothing was written "
                "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out())) << "the output directory did not exist before";

  // The same family with the rule's exclude generates.
  std::string good = family("good.json", R"({"name": "good", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [2, 3], "offload_param": ["none", "cpu"]}, "tiers": ["medium"],
    "exclude": [{"stage": 2, "offload_param": "cpu"}], "output": "{{ tier }}/{{ variant }}.json"})");
  EXPECT_EQ(run_cli({"generate", good, "-o", out().string()}).exit_code, 0);
  EXPECT_EQ(count_files(out()), 4u);
  // A failing run leaves an existing directory exactly as it was.
  auto again = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(count_files(out()), 4u);
  EXPECT_EQ(run_cli({"generate", good, "-o", out().string(), "--check"}).exit_code, 0);
}

TEST_F(GenerateCliTest, AValueAnEntryTemplatePinsIsRefusedWhereItWasChanged) {
  const std::string pinned =
      "but deepspeed/zero2.json.j2 pins stage=2 (deepspeed/defaults.json /pinned); leave stage "
      "unset or render a template that does not pin it [values.pinned]\n";
  // generate, on every thread count: the axis value that changes it, and the variant.
  std::string f = family("pin.json", R"({"name": "pin", "template": "deepspeed/zero2.json.j2",
    "axes": {"stage": [2, 3]}, "tiers": ["small"], "output": "{{ tier }}/z{{ stage }}.json"})");
  for (const char* jobs : {"1", "2"}) {
    auto result = run_cli({"generate", f, "-o", out().string(), "-j", jobs});
    EXPECT_EQ(result.exit_code, 2) << jobs;
    EXPECT_EQ(result.err, f + ": /axes/stage/1: error: variant 'small stage=3': stage=3, " +
                              pinned +
                              "zeroforge: error: family 'pin' not generated; nothing was written "
                              "[generate.not-generated]\n")
        << jobs;
    EXPECT_FALSE(fs::exists(out())) << jobs;
  }
  // render and explain: the --set that changes it; restating the pinned value is fine.
  fs::path file = dir.path() / "x.json";
  auto render =
      run_cli({"render", "deepspeed/zero2.json.j2", "--set", "stage=3", "-o", file.string()});
  EXPECT_EQ(render.exit_code, 2);
  EXPECT_EQ(render.err, "--set stage=3: /stage: error: stage=3, " + pinned);
  EXPECT_FALSE(fs::exists(file));
  auto explain = run_cli({"explain", "deepspeed/zero2.json.j2", "--set", "stage=3"});
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_NE(explain.err.find("--set stage=3: /stage: error: stage=3, " + pinned), std::string::npos)
      << explain.err;
  EXPECT_EQ(run_cli({"render", "deepspeed/zero2.json.j2", "--set", "stage=2"}).exit_code, 0);
}

TEST_F(GenerateCliTest, BadFamiliesAreErrorsNamingFileAndPointer) {
  struct Case {
    const char* name;
    const char* text;
    const char* args;
    const char* expected;  // after "<file>: "
  };
  const Case cases[] = {
      {"missing template", R"({"name": "a", "template": "deepspeed/nope.json.j2"})", "",
       "/template: error: template 'deepspeed/nope.json.j2' not found on the template search path "
       "(searched: "},
      {"missing tier",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "tiers": ["huge"]})", "",
       "/tiers/0: error: tier 'huge' not found"},
      {"empty axis",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": []}})", "",
       "/axes/stage: error: empty axis 'stage': the product would have no variants "
       "[family.invalid]\n"},
      {"stage 4",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [3, 4]}})", "",
       "/axes/stage/1: error: variant 'stage=4': stage must be an integer 0-3 or null, got 4 "
       "[values.contract]\n"},
      {"precision fp8",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "values": {"precision": "fp8"}})",
       "",
       "/values/precision: error: variant 'a': precision must be one of fp32|fp16|bf16, got "
       "\"fp8\" [values.contract]\n"},
      {"micro batch 0",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "include": [{"micro_batch_size": 0}]})",
       "",
       "/include/0/micro_batch_size: error: variant 'micro_batch_size=0': micro_batch_size must be "
       "an integer > 0, "
       "got 0 [values.contract]\n"},
      {"same output path",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [1, 2]}, "output": "x.json"})",
       "",
       "/output: error: variant 'stage=2': writes \"x.json\", the same output path as variant "
       "'stage=1': make the "
       "output pattern tell them apart [output.shared-path]\n"},
      {"escaping output path",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "output": "../x.json"})", "",
       "/output: error: variant 'a': output path \"../x.json\" has an empty, '.' or '..' "
       "segment [output.path]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string f = family("case.json", c.text);
    auto result = run_cli({"generate", f, "-o", out().string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err.substr(0, f.size() + 2 + std::strlen(c.expected)), f + ": " + c.expected);
    EXPECT_FALSE(fs::exists(out()));
  }
  auto set = run_cli({"generate", "example", "-o", out().string(), "--set", "stage=7"});
  EXPECT_EQ(set.exit_code, 2);
  EXPECT_EQ(
      set.err.rfind(
          "--set stage=7: /stage: error: variant 'small stage=1 precision=bf16' (and 17 more): "
          "stage must be an integer 0-3 or null, got 7 [values.contract]\n",
          0),
      0u)
      << set.err;
  EXPECT_EQ(run_cli({"generate", "no-such-family", "-o", out().string()}).exit_code, 2);
  EXPECT_EQ(run_cli({"generate", "example"}).exit_code, 2) << "-o is required";
}

// Each kind of problem generate reports has its own code (docs/cli.md, "Diagnostic codes"):
// on stderr the same text as ever, in --format json the code, kind, place and variant. The
// family lives under a long folder (a path past std::string's small buffer).
TEST_F(GenerateCliTest, EachValuesProblemHasItsCodeOnStderrAndInJson) {
  const std::string f = "platform-team-deepspeed-configurations/families-under-review/family.json";
  const std::string closing =
      "zeroforge: error: family 'a' not generated; nothing was written [generate.not-generated]\n";
  struct Case {
    const char* code;
    const char* family;
    std::string err;      // after "<family file>: "
    const char* pointer;  // in the family file
    const char* variant;
  };
  const Case cases[] = {
      {"values.contract",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [3, 4]}})",
       "/axes/stage/1: error: variant 'stage=4': stage must be an integer 0-3 or null, got 4 "
       "[values.contract]\n",
       "/axes/stage/1", "stage=4"},
      {"values.pinned",
       R"({"name": "a", "template": "deepspeed/zero2.json.j2", "axes": {"stage": [2, 3]},
           "tiers": ["small"], "output": "{{ tier }}/z{{ stage }}.json"})",
       "/axes/stage/1: error: variant 'small stage=3': stage=3, but deepspeed/zero2.json.j2 pins "
       "stage=2 (deepspeed/defaults.json /pinned); leave stage unset or render a template that "
       "does not pin it [values.pinned]\n",
       "/axes/stage/1", "small stage=3"},
      {"output.path",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "output": "../x.json"})",
       "/output: error: variant 'a': output path \"../x.json\" has an empty, '.' or '..' "
       "segment [output.path]\n",
       "/output", "a"},
      {"output.shared-path",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "axes": {"stage": [1, 2]},
           "output": "x.json"})",
       "/output: error: variant 'stage=2': writes \"x.json\", the same output path as variant "
       "'stage=1': make the output pattern tell them apart [output.shared-path]\n",
       "/output", "stage=2"},
      {"companion.values",
       R"({"name": "a", "template": "deepspeed/config.json.j2",
           "values": {"global_batch_size": 512,
                      "launch": {"slurm": {"partition": "gpu;rm -rf /"}}},
           "tiers": ["medium"], "companions": ["slurm"]})",
       "/values/launch/slurm/partition: error: variant 'medium': launch.slurm.partition: "
       "\"gpu;rm -rf /\" is not a SLURM name (letters, digits, '_', '-' and '.', not starting "
       "with '-') [companion.values]\n",
       "/values/launch/slurm/partition", "medium"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    dir.write(f, c.family);
    auto text = run_cli({"generate", f, "-o", "out"}, dir.path());
    EXPECT_EQ(text.exit_code, 2);
    EXPECT_EQ(text.err, f + ": " + c.err + closing);
    auto json = run_cli({"generate", f, "-o", "out", "--format", "json"}, dir.path());
    EXPECT_EQ(json.exit_code, 2);
    EXPECT_EQ(json.err, text.err) << "people still read the errors on stderr";
    const Json errors = Json::parse(json.out).at("errors");
    ASSERT_EQ(errors.size(), 1u) << json.out;
    EXPECT_EQ(errors[0].at("code"), c.code);
    EXPECT_EQ(errors[0].at("kind"), "values");
    EXPECT_EQ(errors[0].at("severity"), "error");
    EXPECT_EQ(errors[0].at("file"), f);
    EXPECT_EQ(errors[0].at("pointer"), c.pointer);
    EXPECT_EQ(errors[0].at("variant"), c.variant);
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }
}

// generate's notes, diagnostics in the library now (generate.check-staging,
// generate.check-no-manifest, generate.stale-staging), print the lines they always did, with
// --format json too. The output directory sits under a long folder (a path past
// std::string's small buffer).
TEST_F(GenerateCliTest, NotesKeepTheirText) {
  const std::string folder = (dir.path() / "platform-team-deepspeed-configurations").string();
  const std::string out = folder + "/generated-for-review";
  const std::string staging = folder + "/.generated-for-review.zeroforge-staging-999999";
  for (const char* format : {"text", "json"}) {
    SCOPED_TRACE(format);
    fs::remove_all(out);
    fs::create_directories(staging + "/tree");
    auto check = run_cli({"generate", "example", "-o", out, "--check", "--format", format});
    EXPECT_EQ(check.exit_code, 1);
    EXPECT_TRUE(check.err.starts_with(
        "zeroforge: note: " + staging +
        " is the staging of a killed run; the next generate removes it [generate.check-staging]\n"
        "zeroforge: note: " +
        out +
        " has no manifest.json; files the family does not write are not listed "
        "[generate.check-no-manifest]\n"))
        << check.err;
    auto generated = run_cli({"generate", "example", "-o", out, "--format", format});
    EXPECT_EQ(generated.exit_code, 0);
    EXPECT_EQ(generated.err, "zeroforge: note: removed 1 staging directory of " + out +
                                 " left by killed runs [generate.stale-staging]\n");
    EXPECT_FALSE(fs::exists(staging));
  }
}

// Problems found before any config is made stop the run with their own codes (the library's
// CodedError); the CLI prints them as it always did, with --format json on stdout too, and
// writes nothing.
TEST_F(GenerateCliTest, ProblemsThatStopTheRunKeepTheirText) {
  const std::string folder = "platform-team-deepspeed-configurations/families-under-review/";
  const std::string f = folder + "family.json";
  dir.write(folder + "tiers/a100-site-tier-with-a-typo.json",
            R"({"gpus_per_node": 8, "gpu_mem_gib": 80})");
  dir.write("tpl/plain-site-notes.txt.j2", "x");
  struct Case {
    const char* code;
    const char* family;
    std::string err;
  };
  const Case cases[] = {
      {"tier.not-found",
       R"({"name": "a", "template": "deepspeed/config.json.j2",
           "tiers": ["tiers/no-such-site-tier-of-the-team.json"]})",
       f + ": /tiers/0: error: tier 'tiers/no-such-site-tier-of-the-team.json' not found (no " +
           folder + "tiers/no-such-site-tier-of-the-team.json) [tier.not-found]\n"},
      {"tier.unknown-key",
       R"({"name": "a", "template": "deepspeed/config.json.j2",
           "tiers": ["tiers/a100-site-tier-with-a-typo.json"]})",
       folder + "tiers/a100-site-tier-with-a-typo.json: /gpu_mem_gib: error: unknown key "
                "'gpu_mem_gib' in a tier; did you mean 'gpu_memory_gib'? (a tier holds the cluster "
                "facts and values of docs/tiers.md, and values its template reads) "
                "[tier.unknown-key]\n"},
      {"companion.no-contract",
       R"({"name": "a", "template": "plain-site-notes.txt.j2", "companions": ["hf-args"]})",
       f + ": /companions: error: companions need a template under the DeepSpeed values "
           "contract (their batch, precision and world size come from it), and "
           "'plain-site-notes.txt.j2' has none [companion.no-contract]\n"},
      {"family.invalid",
       R"({"name": "a", "template": "deepspeed/config.json.j2", "tier": "a100-site-tier"})",
       f + ": /tier: error: unknown field 'tier' (expected name, description, template, "
           "template_dirs, contract, output, values, values_files, axes, include, exclude, "
           "tiers, plugins, companions); did you mean 'tiers'? [family.invalid]\n"},
      {"family.template-dir",
       R"({"name": "a", "template": "deepspeed/config.json.j2",
           "template_dirs": ["site-templates-the-team-never-checked-in"]})",
       f +
           ": /template_dirs/0: error: template directory "
           "'site-templates-the-team-never-checked-in' is not a directory (" +
           folder +
           "site-templates-the-team-never-checked-in; template_dirs are relative to the family "
           "file) [family.template-dir]\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    dir.write(f, c.family);
    for (const char* format : {"text", "json"}) {
      auto result = run_cli(
          {"generate", f, "-o", "out", "--template-dir", "tpl", "--format", format}, dir.path());
      EXPECT_EQ(result.exit_code, 2) << format;
      EXPECT_EQ(result.err, c.err) << format;
      if (std::string(format) == "text") {
        EXPECT_EQ(result.out, "");
        continue;
      }
      // --format json: the same error on stdout, with its code (docs/cli.md).
      const auto out = parse_json_text(result.out, "stdout");
      EXPECT_EQ(out.value("exit_code", 0), 2) << result.out;
      ASSERT_EQ(out.value("errors", nlohmann::ordered_json::array()).size(), 1u) << result.out;
      EXPECT_EQ(out["errors"][0].value("code", ""), c.code);
      EXPECT_NE(
          c.err.find(": error: " + out["errors"][0].value("message", "") + " [" + c.code + "]\n"),
          std::string::npos)
          << result.out;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
  }
}

// Every command that layers values refuses a bad --values file, --set or family with exit 2
// and the place. The paths and assignments are longer than std::string's small buffer (15
// bytes): a Layer built in place around a throwing load freed its label twice (issue 22),
// and the short names the suites used hid it. Run under the ASan build too.
TEST_F(GenerateCliTest, ValuesSetAndFamilyFailuresAreExit2OnEveryCommandWithLongPaths) {
  const std::string folder = "experiments-of-the-platform-team-for-llama-finetuning/values-files";
  const std::string missing =
      (dir.path() / folder / "no-such-values-file-of-a-rather-long-name.json").string();
  const std::string broken =
      dir.write(folder + "/broken-values-file-of-a-rather-long-name.json", "{\"a\": 1,,}").string();
  const std::string big = "n_of_a_rather_long_name_for_a_value=18446744073709551616";
  const std::string no_value = "a_rather_long_name_for_a_value_without_any_assignment";
  struct Failure {
    std::vector<std::string> args;
    std::string first_line;
  };
  const Failure failures[] = {
      {{"--values", missing},
       "zeroforge: error: cannot read '" + missing + "': No such file or directory [io.failed]"},
      {{"--values", broken},
       broken + ":1:9: error: expected a string key, found ',' [json.syntax]"},
      {{"--set", big},
       "zeroforge: error: '--set " + big +
           "': integer 18446744073709551616 is out of range: integers are 64-bit "
           "(-9223372036854775808 to 9223372036854775807) [usage.invalid]"},
      {{"--set", no_value},
       "zeroforge: error: '--set " + no_value + "': expected KEY=VALUE [usage.invalid]"},
  };
  const std::string report = (dir.path() / folder / "report-of-the-llama-finetuning.html").string();
  const std::vector<std::vector<std::string>> commands = {
      {"generate", "example", "-o", out().string()},
      {"generate", "example", "-o", out().string(), "--check"},
      {"report", "example", "-o", report},
      {"explain", "example"},
      {"render", "deepspeed/config.json.j2", "--tier", "medium"},
  };
  auto first_line = [](const std::string& text) { return text.substr(0, text.find('\n')); };
  for (const auto& command : commands) {
    for (const auto& failure : failures) {
      std::vector<std::string> args = command;
      args.insert(args.end(), failure.args.begin(), failure.args.end());
      SCOPED_TRACE(command[0] + " " + command[1] + " " + failure.args[0] + " " + failure.args[1]);
      auto result = run_cli(args);
      EXPECT_EQ(result.exit_code, 2) << result.err;
      EXPECT_EQ(first_line(result.err), failure.first_line);
      EXPECT_FALSE(fs::exists(out()));
      EXPECT_FALSE(fs::exists(report));
    }
  }
  // The family file itself, and the tier file it names, at long paths.
  const std::string missing_tier =
      dir.write(folder + "/family-naming-a-missing-tier-file.json",
                R"({"name": "x", "template": "deepspeed/config.json.j2",
                                                 "tiers": ["tiers/no-such-tier-of-a-long-name.json"]})")
          .string();
  const std::string bad_template =
      dir.write(folder + "/family-with-a-template-that-is-a-number.json",
                R"({"name": "x", "template": 3})")
          .string();
  const std::string no_family =
      (dir.path() / folder / "no-such-family-of-a-long-name.json").string();
  const Failure families[] = {
      {{missing_tier},
       missing_tier +
           ": /tiers/0: error: tier 'tiers/no-such-tier-of-a-long-name.json' not found (no " +
           (dir.path() / folder / "tiers/no-such-tier-of-a-long-name.json").string() +
           ") [tier.not-found]"},
      {{bad_template},
       bad_template +
           ": /template: error: template must be a non-empty string, got 3 [family.invalid]"},
      {{no_family}, "zeroforge: error: family file '" + no_family + "' not found [usage.invalid]"},
  };
  for (const auto& family : families) {
    for (const auto& command : commands) {
      if (command[0] == "render") continue;
      std::vector<std::string> args = command;
      args[1] = family.args[0];
      SCOPED_TRACE(command[0] + " " + args[1]);
      auto result = run_cli(args);
      EXPECT_EQ(result.exit_code, 2) << result.err;
      EXPECT_EQ(first_line(result.err), family.first_line);
      EXPECT_FALSE(fs::exists(out()));
      EXPECT_FALSE(fs::exists(report));
    }
  }
}

// A family's output pattern is a template too: a chain of 40,000 filters is one level of its
// tree and renders; 40,000 `not`s nest, and are refused at the place they pass the limit, with
// the family file and /output named (issue 22: both overflowed the stack).
TEST_F(GenerateCliTest, AnOutputPatternIsATemplateWithTheSameNestingLimit) {
  auto pattern_family = [&](const std::string& name, const std::string& output) {
    Json text = {{"name", "chains"},
                 {"template", "deepspeed/config.json.j2"},
                 {"axes", {{"stage", {1, 2}}}},
                 {"output", output}};
    return family(name, text.dump());
  };
  std::string filters, nots;
  for (int i = 0; i < 40000; ++i) {
    filters += " | string";
    nots += "not ";
  }
  const std::string chained = pattern_family("chained-filters-in-the-output-pattern.json",
                                             "{{ stage" + filters + " }}/config.json");
  auto ok = run_cli({"generate", chained, "-o", out().string()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err.substr(0, 500);
  EXPECT_TRUE(fs::exists(out() / "1/config.json"));
  EXPECT_TRUE(fs::exists(out() / "2/config.json"));
  fs::remove_all(out());
  const std::string nested =
      pattern_family("nested-nots-in-the-output-pattern.json", "{{ " + nots + "stage }}.json");
  auto refused = run_cli({"generate", nested, "-o", out().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err.substr(0, refused.err.find('\n')),
            nested +
                " /output:1:1020: error: statements and expressions nest deeper than 256 levels "
                "(EnvironmentOptions::max_nesting raises the limit) [template.syntax]");
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(GenerateCliTest, RenderRefusesTheSameCombinationsBeforeRendering) {
  fs::path file = dir.path() / "x.json";
  auto result = run_cli({"render", "deepspeed/config.json.j2", "--tier", "medium", "--set",
                         "offload_param=cpu", "-o", file.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "--set offload_param=cpu: /offload_param: error: offload_param=cpu takes effect only "
            "at ZeRO stage 3, "
            "but stage=2; DeepSpeed would silently ignore it: use stage 3 or offload_param=none "
            "[values.contract]\n");
  EXPECT_FALSE(fs::exists(file));
  auto ok = run_cli(
      {"render", "deepspeed/zero3.json.j2", "--tier", "medium", "--set", "offload_param=nvme"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"nvme_path\": \"/local_nvme\""), std::string::npos)
      << "the medium tier's NVMe path";
}

TEST_F(GenerateCliTest, ExplainNamesTheLayerOfEachValue) {
  auto result = run_cli({"explain", "llama-7b", "--config", "medium/zero3-offload-optimizer.json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto line_of = [&](const std::string& name) {
    auto at = result.out.find("\n  " + name + " = ");
    if (at == std::string::npos) return std::string();
    return result.out.substr(at + 1, result.out.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line_of("stage").find("variant: presets/families/llama-7b.json /axes/stage/1"),
            std::string::npos);
  EXPECT_NE(line_of("micro_batch_size").find("tier: presets/tiers/medium.json"), std::string::npos);
  EXPECT_NE(line_of("global_batch_size").find("family: presets/families/llama-7b.json"),
            std::string::npos);
  EXPECT_NE(line_of("hf_auto").find("template default: deepspeed/defaults.json"),
            std::string::npos);
  EXPECT_NE(result.out.find("train_batch_size = 512 (4 x 16 x 8)"), std::string::npos);
  EXPECT_NE(result.out.find("for plugins (tier facts and auto_fit; no template reads them):\n"
                            "  gpu_memory_gib = 79.64"),
            std::string::npos);
  EXPECT_EQ(result.out.find("set but not read by the template"), std::string::npos)
      << "a tier's facts are not typos";

  auto typo = run_cli({"render", "deepspeed/config.json.j2", "--set", "frobnicate=1", "--set",
                       "auto_fit.model=gpt2", "--set", "stage=3"});
  EXPECT_EQ(typo.exit_code, 0) << typo.err;
  EXPECT_EQ(typo.err,
            "--set frobnicate=1: warning: frobnicate is set but deepspeed/config.json.j2 never "
            "reads it (a typo? `zeroforge explain deepspeed/config.json.j2` lists what it reads) "
            "[values.unread]\n");

  auto set =
      run_cli({"explain", "deepspeed/config.json.j2", "--tier", "small", "--set", "stage=3"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("stage = 3"), std::string::npos);
  EXPECT_NE(set.out.find("stage = 3"), std::string::npos);
  EXPECT_NE(set.out.find("  --set stage=3\n"), std::string::npos);
  EXPECT_EQ(set.out.find("--set: --set"), std::string::npos) << "the layer is named once";
  // A family whose members share a path is refused, as generate refuses it.
  const std::string dup =
      family("dup.json", R"({"name": "dup", "template": "deepspeed/config.json.j2",
    "axes": {"stage": [2, 3]}, "tiers": ["medium"], "output": "{{ tier }}/same.json"})");
  auto shared = run_cli({"explain", dup, "--config", "medium/same.json"});
  EXPECT_EQ(shared.exit_code, 2);
  EXPECT_EQ(shared.err,
            dup +
                ": /output: error: variant 'medium stage=3': writes "
                "\"medium/same.json\", the same output path as variant 'medium "
                "stage=2': make the output pattern tell them apart [output.shared-path]\n");
  auto listed = run_cli({"explain", dup, "--config", "nope.json"});
  EXPECT_EQ(listed.err,
            "zeroforge: error: explain: no config 'nope.json' in family 'dup'; its "
            "configs: [explain.no-such-config]\n  medium/same.json\n");

  auto choose = run_cli({"explain", "llama-7b"});
  EXPECT_EQ(choose.exit_code, 2);
  EXPECT_NE(choose.err.find("choose one with --config PATH"), std::string::npos);
}

TEST_F(GenerateCliTest, ListsTemplatesPresetsAndTiers) {
  auto templates = run_cli({"list", "templates"});
  EXPECT_EQ(templates.exit_code, 0);
  EXPECT_NE(templates.out.find("deepspeed/config.json.j2\n"), std::string::npos);
  EXPECT_NE(templates.out.find("deepspeed/zero3-offload.json.j2\n"), std::string::npos);
  EXPECT_EQ(templates.out.find("partials/"), std::string::npos);
  auto presets = run_cli({"list", "presets"});
  EXPECT_EQ(presets.exit_code, 0);
  for (auto name : {"example", "llama-7b", "single-gpu-offload", "a100x8-zero3", "long-sequence"}) {
    EXPECT_NE(presets.out.find(std::string(name) + "  ("), std::string::npos) << name;
  }
  auto tiers = run_cli({"list", "tiers"});
  EXPECT_EQ(tiers.exit_code, 0);
  EXPECT_NE(tiers.out.find("  large   8 node(s) x 8 GPU(s) of 79.64 GiB"), std::string::npos)
      << tiers.out;
  EXPECT_EQ(run_cli({"list", "things"}).exit_code, 2);
}

TEST_F(GenerateCliTest, EveryShippedFamilyGeneratesCleanly) {
  for (const auto& entry : fs::directory_iterator(test::source_dir() / "presets" / "families")) {
    std::string name = entry.path().stem().string();
    SCOPED_TRACE(name);
    auto result = run_cli({"generate", name, "-o", (dir.path() / name).string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err.find("error"), std::string::npos) << result.err;
  }
}

// A config the validator finds errors in stops the whole run: the finding, then the line that
// says nothing was written, with its code, and exit 1 (a finding, not bad input).
TEST_F(GenerateCliTest, ValidatorErrorsWriteNothingAndSaySoWithTheCode) {
  const std::string f = family("family.json", R"({"name": "f",
    "template": "deepspeed/config.json.j2", "output": "z.json",
    "values": {"stage": 2, "extra": {"flops_profiler": {"enabled": "yes"}}}})");
  auto r = run_cli({"generate", f, "-o", out().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, out().string() +
                       "/z.json: /flops_profiler/enabled: error [type]: expected true or false, "
                       "found \"yes\"\n"
                       "zeroforge: error: the validator found errors in generated configs; "
                       "nothing was written (--no-validate writes them anyway) "
                       "[generate.not-generated]\n");
  EXPECT_FALSE(fs::exists(out()));
}

}  // namespace
}  // namespace zf
