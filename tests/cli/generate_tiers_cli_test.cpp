// SPDX-License-Identifier: MIT
// `generate --tier NAME` (issue #40 §4): only those tiers are made; the other tiers' files and
// manifest entries stay as DIR has them, so that the tree is byte for byte a whole generate's
// while the other tiers are unchanged; `--check --tier` compares only those tiers; a name that
// is no tier of the family, or a manifest that is not this family's, is exit 2 saying why.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

// Every regular file under `root`, relative path to bytes (and `+x` for an executable one).
std::map<std::string, std::string> tree_of(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const bool executable =
        (fs::status(entry.path()).permissions() & fs::perms::owner_exec) != fs::perms::none;
    out[fs::relative(entry.path(), root).generic_string()] =
        read_file(entry.path()) + (executable ? "+x" : "");
  }
  return out;
}

// The names in a tree, for messages.
std::string names_of(const std::map<std::string, std::string>& tree) {
  std::string out;
  for (const auto& [path, bytes] : tree) out += path + "\n";
  return out;
}

constexpr const char* kFamily = R"({"name": "fam", "template": "deepspeed/config.json.j2",
    "values": {"global_batch_size": 256},
    "axes": {"stage": [1, 2, 3], "precision": ["bf16", "fp16"]},
    "tiers": ["small", "medium", "large"],
    "output": "{{ tier }}/zero{{ stage }}-{{ precision }}.json"})";

class GenerateTiersCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override { dir.write("fam.json", kFamily); }
  // `zeroforge generate fam.json -o OUT ARGS...` in the temporary directory.
  test::CliResult generate(const std::string& out, std::vector<std::string> args = {}) {
    std::vector<std::string> all = {"generate", "fam.json", "-o", out};
    all.insert(all.end(), args.begin(), args.end());
    return run_cli(all, dir.path());
  }
  fs::path at(const std::string& relative) const { return dir.path() / relative; }
  Json manifest(const std::string& out) {
    return Json::parse(read_file(at(out) / "manifest.json"));
  }
};

TEST_F(GenerateTiersCliTest, ASubsetIntoAWholeSetLeavesTheTreeByteForByteAWholeGenerates) {
  ASSERT_EQ(generate("whole").exit_code, 0);
  ASSERT_EQ(generate("out").exit_code, 0);
  // A hand edit of a medium config, so that the run has something to rewrite there.
  dir.write("out/medium/zero2-bf16.json", "{}\n");
  struct Case {
    const char* name;
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {"one tier", {"--tier", "medium"}},
      {"two tiers, repeated", {"--tier", "large", "--tier", "small", "--tier", "large"}},
      {"one thread", {"--tier", "medium", "-j", "1"}},
      {"four threads", {"--tier", "small", "-j", "4"}},
      {"every tier named", {"--tier", "small", "--tier", "medium", "--tier", "large"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = generate("out", c.args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto whole = tree_of(at("whole")), out = tree_of(at("out"));
    EXPECT_EQ(out.size(), whole.size()) << names_of(out);
    for (const auto& [path, bytes] : whole) {
      auto it = out.find(path);
      ASSERT_NE(it, out.end()) << path;
      EXPECT_EQ(it->second, bytes) << path;
    }
  }
}

TEST_F(GenerateTiersCliTest, TheOtherTiersFilesAndEntriesStayAsTheyWere) {
  ASSERT_EQ(generate("out").exit_code, 0);
  const auto before = tree_of(at("out"));
  const Json old = manifest("out");
  // Only medium takes the new value; small's hand edit is not this run's business.
  dir.write("out/small/zero1-bf16.json", "{\"edited\": true}\n");
  auto result = generate("out", {"--tier", "medium", "--set", "gradient_clipping=0.5"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "zeroforge: wrote 6 configs of family 'fam' (tier medium; 12 configs of the other "
            "tiers kept) to out (index: out/manifest.json)\n");
  const auto after = tree_of(at("out"));
  EXPECT_EQ(after.size(), before.size()) << names_of(after);
  for (const auto& [path, bytes] : before) {
    SCOPED_TRACE(path);
    if (path == "manifest.json") continue;
    if (path == "small/zero1-bf16.json") {
      EXPECT_EQ(after.at(path), "{\"edited\": true}\n");
    } else if (path.starts_with("medium/")) {
      EXPECT_EQ(Json::parse(after.at(path)).at("gradient_clipping"), 0.5);
    } else {
      EXPECT_EQ(after.at(path), bytes);
    }
  }
  const Json now = manifest("out");
  ASSERT_EQ(now.at("configs").size(), old.at("configs").size());
  for (std::size_t i = 0; i < now.at("configs").size(); ++i) {
    const Json& entry = now.at("configs").at(i);
    SCOPED_TRACE(entry.at("path").get<std::string>());
    EXPECT_EQ(entry.at("path"), old.at("configs").at(i).at("path"));  // the same order
    if (entry.at("tier") == "medium") {
      EXPECT_NE(entry.at("sha256"), old.at("configs").at(i).at("sha256"));
    } else {
      EXPECT_EQ(entry, old.at("configs").at(i));
    }
  }
}

TEST_F(GenerateTiersCliTest, IntoAnEmptyDirectoryOnlyThoseTiersAreWrittenAndListed) {
  auto result = generate("out", {"--tier", "large", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const Json summary = Json::parse(result.out);
  EXPECT_EQ(summary.at("configs"), 6);
  EXPECT_EQ(summary.at("tiers"), Json::array({"large"}));
  EXPECT_EQ(summary.at("kept"), 0);
  EXPECT_EQ(summary.at("written").size(), 6u);
  std::vector<std::string> listed;
  const Json written = manifest("out");
  for (const auto& entry : written.at("configs")) {
    EXPECT_EQ(entry.at("tier"), "large");
    listed.push_back(entry.at("path"));
  }
  EXPECT_EQ(listed.size(), 6u);
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  EXPECT_FALSE(fs::exists(at("out/small")));
  EXPECT_FALSE(fs::exists(at("out/medium")));
  // The rest then arrives as a whole generate would have written it.
  ASSERT_EQ(generate("out", {"--tier", "small", "--tier", "medium"}).exit_code, 0);
  ASSERT_EQ(generate("whole").exit_code, 0);
  EXPECT_EQ(tree_of(at("out")), tree_of(at("whole")));
}

TEST_F(GenerateTiersCliTest, TheSummaryNamesTheTiersMadeAndTheKeptOnes) {
  ASSERT_EQ(generate("out").exit_code, 0);
  dir.write("out/medium/zero3-fp16.json", "{}\n");
  auto json = generate("out", {"--tier", "medium", "--tier", "small", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json summary = Json::parse(json.out);
  EXPECT_EQ(summary.at("tiers"), Json::array({"small", "medium"}));  // family order
  EXPECT_EQ(summary.at("configs"), 12);
  EXPECT_EQ(summary.at("kept"), 6);
  EXPECT_EQ(summary.at("written"), Json::array({"medium/zero3-fp16.json"}));
  EXPECT_EQ(summary.at("unchanged").size(), 11u);  // listed per tier made only
  EXPECT_EQ(summary.at("removed"), Json::array());
  auto whole = generate("out", {"--format", "json"});
  EXPECT_EQ(Json::parse(whole.out).at("tiers"), Json::array({"small", "medium", "large"}));
  EXPECT_EQ(Json::parse(whole.out).at("kept"), 0);
  auto quiet = generate("out", {"--tier", "medium", "--quiet"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  EXPECT_EQ(quiet.err, "");
}

TEST_F(GenerateTiersCliTest, ANameThatIsNoTierOfTheFamilyIsExitTwo) {
  dir.write("flat.json", R"({"name": "flat", "template": "deepspeed/config.json.j2",
      "output": "ds.json"})");
  dir.write("site/tiers/h100.json", R"({"gpus_per_node": 8, "gpu_memory_gib": 80})");
  struct Case {
    const char* name;
    std::string family;
    std::vector<std::string> tiers;
    std::string message;
  };
  const Case cases[] = {
      {"a typo, with the nearest name",
       "fam.json",
       {"mediun"},
       "zeroforge: error: generate: --tier 'mediun' is not a tier of family 'fam' (fam.json) "
       "(its tiers: small, medium, large); did you mean 'medium'? [generate.unknown-tier]\n"},
      {"nothing near",
       "fam.json",
       {"xl"},
       "zeroforge: error: generate: --tier 'xl' is not a tier of family 'fam' (fam.json) (its "
       "tiers: small, medium, large) [generate.unknown-tier]\n"},
      {"the second of two",
       "fam.json",
       {"small", "larg"},
       "zeroforge: error: generate: --tier 'larg' is not a tier of family 'fam' (fam.json) (its "
       "tiers: small, medium, large); did you mean 'large'? [generate.unknown-tier]\n"},
      {"a family without tiers",
       "flat.json",
       {"small"},
       "zeroforge: error: generate: --tier 'small': family 'flat' (flat.json) has no tiers; "
       "leave out --tier [generate.unknown-tier]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"generate", c.family, "-o", "out"};
    for (const auto& tier : c.tiers) args.insert(args.end(), {"--tier", tier});
    auto result = run_cli(args, dir.path());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, c.message);
    EXPECT_FALSE(fs::exists(at("out")));
    args.insert(args.end(), {"--format", "json"});
    auto json = run_cli(args, dir.path());
    EXPECT_EQ(json.exit_code, 2);
    EXPECT_EQ(Json::parse(json.out).at("errors").at(0).at("code"), "generate.unknown-tier");
  }
}

TEST_F(GenerateTiersCliTest, ATierIsChosenByItsNameOrAsTheFamilyWroteIt) {
  dir.write("team/tiers/h100.json", R"({"gpus_per_node": 8, "gpu_memory_gib": 80})");
  dir.write("team/fam.json", R"({"name": "team", "template": "deepspeed/config.json.j2",
      "tiers": ["small", "tiers/h100.json"], "output": "{{ tier }}.json"})");
  for (const char* name : {"h100", "tiers/h100.json"}) {
    SCOPED_TRACE(name);
    fs::remove_all(at("out"));
    auto result = run_cli({"generate", "team/fam.json", "-o", "out", "--tier", name}, dir.path());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(at("out/h100.json")));
    EXPECT_FALSE(fs::exists(at("out/small.json")));
  }
}

TEST_F(GenerateTiersCliTest, CheckComparesOnlyThoseTiersFiles) {
  ASSERT_EQ(generate("out").exit_code, 0);
  dir.write("out/small/zero1-bf16.json", "{}\n");  // another tier's drift
  struct Case {
    const char* name;
    std::vector<std::string> args;
    int exit_code;
    std::string out;
  };
  const Case cases[] = {
      {"the drifted tier is not checked",
       {"--tier", "medium"},
       0,
       "zeroforge: out is up to date (6 configs of family 'fam', tier medium)\n"},
      {"it is checked", {"--tier", "small"}, 1, "out/small/zero1-bf16.json: changed\n"},
      {"so is it with another",
       {"--tier", "large", "--tier", "small"},
       1,
       "out/small/zero1-bf16.json: changed\n"},
      {"a whole check sees it too", {}, 1, "out/small/zero1-bf16.json: changed\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = c.args;
    args.push_back("--check");
    auto result = generate("out", args);
    EXPECT_EQ(result.exit_code, c.exit_code) << result.err;
    EXPECT_EQ(result.out, c.out);
  }
  auto json = generate("out", {"--check", "--tier", "small", "--format", "json"});
  const Json summary = Json::parse(json.out);
  EXPECT_EQ(summary.at("changed"), Json::array({"small/zero1-bf16.json"}));
  EXPECT_EQ(summary.at("missing"), Json::array());
  EXPECT_EQ(summary.at("extra"), Json::array());
  EXPECT_EQ(summary.at("kept"), 12);
  // A medium file deleted, and a stray file no manifest lists: the first is medium's drift,
  // the second a whole check's business.
  fs::remove(at("out/medium/zero2-fp16.json"));
  dir.write("out/medium/notes.txt", "mine\n");
  auto medium = generate("out", {"--check", "--tier", "medium"});
  EXPECT_EQ(medium.exit_code, 1);
  EXPECT_EQ(medium.out, "out/medium/zero2-fp16.json: missing\n");
  EXPECT_NE(medium.err.find("differs from family 'fam', tier medium (1 missing, 0 changed, 0 "
                            "extra)"),
            std::string::npos)
      << medium.err;
  auto whole = generate("out", {"--check"});
  EXPECT_NE(whole.out.find("out/medium/notes.txt: extra"), std::string::npos) << whole.out;
}

TEST_F(GenerateTiersCliTest, ConfigsATierNoLongerMakesAreRemovedAndCheckedForThatTierOnly) {
  ASSERT_EQ(generate("out").exit_code, 0);
  // The family drops stage 3: only the tier made loses its stage-3 configs.
  std::string fewer = kFamily;
  fewer.replace(fewer.find("[1, 2, 3]"), 9, "[1, 2]");
  dir.write("fam.json", fewer);
  auto check = generate("out", {"--check", "--tier", "medium"});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out,
            "out/manifest.json: changed\nout/medium/zero3-bf16.json: extra\n"
            "out/medium/zero3-fp16.json: extra\n");
  auto result = generate("out", {"--tier", "medium", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Json::parse(result.out).at("removed"),
            Json::array({"medium/zero3-bf16.json", "medium/zero3-fp16.json"}));
  EXPECT_FALSE(fs::exists(at("out/medium/zero3-bf16.json")));
  EXPECT_TRUE(fs::exists(at("out/small/zero3-bf16.json")));
  std::size_t small = 0, medium = 0;
  const Json now = manifest("out");
  for (const auto& entry : now.at("configs")) {
    small += entry.at("tier") == "small";
    medium += entry.at("tier") == "medium";
  }
  EXPECT_EQ(small, 6u);
  EXPECT_EQ(medium, 4u);
  EXPECT_EQ(generate("out", {"--check", "--tier", "medium"}).exit_code, 0);
}

TEST_F(GenerateTiersCliTest, CompanionsOfTheOtherTiersAreKeptWithTheirEntries) {
  ASSERT_EQ(generate("whole", {"--companions", "deepspeed,hf-args"}).exit_code, 0);
  ASSERT_EQ(generate("out", {"--companions", "deepspeed,hf-args"}).exit_code, 0);
  dir.write("out/large/zero1-bf16.hf-args.json", "edited\n");
  auto result = generate("out", {"--companions", "deepspeed,hf-args", "--tier", "large"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(tree_of(at("out")), tree_of(at("whole")));
  dir.write("out/small/zero1-bf16.hf-args.json", "edited\n");
  auto check = generate("out", {"--companions", "deepspeed,hf-args", "--tier", "large", "--check"});
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

// A build system reruns the command for its own files: a hand edit of another tier's file,
// which a run for these tiers would leave as it is, is no output of it.
TEST_F(GenerateTiersCliTest, TheDepfileNamesTheFilesOfTheTiersMadeOnly) {
  ASSERT_EQ(generate("out").exit_code, 0);
  auto result = generate("out", {"--tier", "medium", "--depfile", "gen.d"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string depfile = read_file(at("gen.d"));
  for (const char* path : {"/out/medium/zero1-bf16.json:", "/out/medium/zero3-fp16.json:"})
    EXPECT_NE(depfile.find(path), std::string::npos) << path << " in\n" << depfile;
  for (const char* path : {"/out/small/", "/out/large/"})
    EXPECT_EQ(depfile.find(path), std::string::npos) << path << " in\n" << depfile;
}

TEST_F(GenerateTiersCliTest, AManifestThatIsNotThisFamilysIsRefusedAndNothingChanges) {
  ASSERT_EQ(generate("out").exit_code, 0);
  const std::string good = read_file(at("out/manifest.json"));
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  const std::string version = Json::parse(good).at("zeroforge_version").get<std::string>();
  struct Case {
    const char* name;
    std::string manifest;
    std::string error;
  };
  const Case cases[] = {
      {"another family's", replaced("\"family\": \"fam\"", "\"family\": \"other\""),
       "out/manifest.json: /family: error: this is the manifest of another family: family "
       "'fam' (fam.json) writes \"fam\", not \"other\"; generate the whole family (without "
       "--tier) to replace it [generate.tier-manifest]"},
      {"another template's",
       replaced("\"template\": \"deepspeed/config.json.j2\"", "\"template\": \"mine.json.j2\""),
       "out/manifest.json: /template: error: this manifest's configs were rendered from another "
       "template: family 'fam' (fam.json) renders \"deepspeed/config.json.j2\", not "
       "\"mine.json.j2\"; generate the whole family (without --tier) to replace it "
       "[generate.tier-manifest]"},
      {"another version's",
       replaced("\"zeroforge_version\": \"" + version + "\"", "\"zeroforge_version\": \"0.0.1\""),
       "out/manifest.json: /zeroforge_version: error: this manifest was written by another "
       "zeroforge version, whose configs of the other tiers may differ from what this one "
       "writes: this is \"" +
           version +
           "\", not \"0.0.1\"; generate the whole family (without --tier) to replace it "
           "[generate.tier-manifest]"},
      {"a tier the family lost", replaced("\"tier\": \"large\"", "\"tier\": \"xl\""),
       "out/manifest.json: /configs/0/tier: error: lists a config of tier \"xl\", which family "
       "'fam' (fam.json) does not have (its tiers: small, medium, large); generate the whole "
       "family (without --tier) to remove its configs [generate.tier-manifest]"},
      {"an entry without a path", replaced("\"path\": \"large/zero1-bf16.json\",", ""),
       "out/manifest.json: /configs/0/path: error: an entry without a relative path inside the "
       "directory; generate the whole family (without --tier) to replace it "
       "[generate.tier-manifest]"},
      {"not JSON", good.substr(0, 40),
       "out/manifest.json: error: is not JSON (at byte 41), so the other tiers' entries cannot "
       "be kept; generate the whole family (without --tier) to replace it "
       "[generate.tier-manifest]"},
      {"not a manifest", "[1, 2]\n",
       "out/manifest.json: error: is not a zeroforge manifest (an object with \"configs\"); "
       "generate the whole family (without --tier) to replace it [generate.tier-manifest]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    dir.write("out/manifest.json", c.manifest);
    const auto before = tree_of(at("out"));
    for (bool check : {false, true}) {
      std::vector<std::string> args = {"--tier", "medium"};
      if (check) args.push_back("--check");
      auto result = generate("out", args);
      EXPECT_EQ(result.exit_code, 2);
      EXPECT_EQ(result.err, c.error + "\n");
      EXPECT_EQ(tree_of(at("out")), before);
    }
    auto json = generate("out", {"--tier", "medium", "--format", "json"});
    EXPECT_EQ(Json::parse(json.out).at("errors").at(0).at("code"), "generate.tier-manifest");
    // A whole generate replaces it.
    EXPECT_EQ(generate("out").exit_code, 0);
    EXPECT_EQ(read_file(at("out/manifest.json")), good);
  }
}

}  // namespace
}  // namespace zf
