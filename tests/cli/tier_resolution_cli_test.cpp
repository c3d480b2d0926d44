// SPDX-License-Identifier: MIT
// One tier resolution (docs/tiers.md, "Where tiers are found") through the real executable:
// every command that takes a tier finds a team's tier named like a shipped one (in ./tiers,
// beside the family, or on ZEROFORGE_TIER_PATH), uses it, warns that it shadows the later
// one naming both files, and says which file it read; a name found once gives no warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

// The team's `small`: 8 GPUs of 80 GB, micro batch 2; the shipped small is 1 GPU of 24 GB,
// micro batch 1 (presets/tiers/small.json), so each output shows which one was read.
constexpr const char* kTeamSmall = R"({"gpus_per_node": 8, "nodes": 1, "gpu_memory_gib": 79.15,
  "cpu_memory_gib": 1007.5, "nvme_path": "/team_nvme", "micro_batch_size": 2})";

// A family of one config on the tier under test; the tier name is filled in.
std::string family_text(const std::string& tier) {
  return R"({"name": "team", "template": "deepspeed/config.json.j2", "values": {"stage": 2},
             "tiers": [")" +
         tier + R"("], "output": "{{ tier }}.json"})";
}

// How an entry point shows that it read the team's tier `tier`, from the file it should name.
using Check = std::function<void(const test::CliResult&, const fs::path& cwd,
                                 const std::string& tier, const std::string& file)>;

struct EntryPoint {
  const char* name;
  std::vector<std::string> args;  // TIER stands for the tier name
  bool family;                    // the name comes from family.json, not --tier
  Check check;
};

std::vector<std::string> with_tier(std::vector<std::string> args, const std::string& tier) {
  for (auto& arg : args)
    if (arg == "TIER") arg = tier;
  return args;
}

void expect_team_config(const Json& config) {
  EXPECT_EQ(config.at("train_micro_batch_size_per_gpu"), 2);
  EXPECT_EQ(config.at("train_batch_size"), 16);  // 2 x 1 x the team's 8 GPUs
}

const std::vector<EntryPoint>& entry_points() {
  static const std::vector<EntryPoint> points = {
      {"render",
       {"render", "deepspeed/config.json.j2", "--tier", "TIER"},
       false,
       [](const test::CliResult& r, const fs::path&, const std::string&, const std::string&) {
         expect_team_config(Json::parse(r.out));
       }},
      {"explain TEMPLATE",
       {"explain", "deepspeed/config.json.j2", "--tier", "TIER"},
       false,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         EXPECT_NE(r.out.find("\ntier " + tier + ": " + file + "\n"), std::string::npos) << r.out;
         EXPECT_NE(r.out.find("micro_batch_size = 2"), std::string::npos) << r.out;
       }},
      {"explain TEMPLATE --format json",
       {"explain", "deepspeed/config.json.j2", "--tier", "TIER", "--format", "json"},
       false,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         const Json out = Json::parse(r.out);
         EXPECT_EQ(out.at("tier"), Json({{"name", tier}, {"file", file}}));
         for (const auto& row : out.at("values")) {
           if (row.at("name") == "micro_batch_size") {
             EXPECT_EQ(row.at("source"), file);
           }
         }
       }},
      {"explain FAMILY (a member)",
       {"explain", "family.json"},
       true,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         EXPECT_NE(r.out.find("\ntier " + tier + ": " + file + "\n"), std::string::npos) << r.out;
         EXPECT_NE(r.out.find("micro_batch_size = 2"), std::string::npos) << r.out;
       }},
      {"generate",
       {"generate", "family.json", "-o", "out"},
       true,
       [](const test::CliResult&, const fs::path& cwd, const std::string&, const std::string&) {
         const Json manifest = Json::parse(read_file(cwd / "out" / "manifest.json"));
         expect_team_config(
             Json::parse(read_file(cwd / "out" / manifest.at("configs")[0].at("path"))));
       }},
      {"estimate",
       {"estimate", "--model", "gpt2", "--tier", "TIER"},
       false,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         EXPECT_NE(r.out.find("cluster: 1 node(s) x 8 GPU(s)"), std::string::npos) << r.out;
         EXPECT_NE(r.out.find("\ntier: " + tier + " (" + file + "; NVMe offload to /team_nvme)\n"),
                   std::string::npos)
             << r.out;
       }},
      {"estimate --format json",
       {"estimate", "--model", "gpt2", "--tier", "TIER", "--format", "json"},
       false,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         EXPECT_EQ(Json::parse(r.out).at("tier"), Json({{"name", tier}, {"file", file}}));
       }},
      {"list tiers",
       {"list", "tiers", "--family", "family.json"},
       true,
       [](const test::CliResult& r, const fs::path&, const std::string& tier,
          const std::string& file) {
         // The team's file is listed with its facts; a shipped one of the name is shadowed by it.
         EXPECT_NE(r.out.find("  " + tier + "  1 node(s) x 8 GPU(s) of 79.15 GiB"),
                   std::string::npos)
             << r.out;
         const auto shadowed = r.out.find("  shadowed by " + file + "\n");
         EXPECT_EQ(shadowed != std::string::npos, tier == "small") << r.out;
       }},
  };
  return points;
}

class TierResolutionCliTest : public ::testing::Test {
 protected:
  fs::path cwd() const { return dir.path() / "team-repository"; }
  fs::path builtin(const std::string& name) const {
    return test::source_dir() / "presets" / "tiers" / (name + ".json");
  }
  // The shipped data as the data directory, so that the shipped tiers' files are known here.
  std::vector<std::string> env(const std::string& tier_path = "") const {
    std::vector<std::string> out = {"ZEROFORGE_DATA_DIR=" + test::source_dir().string(),
                                    "ZEROFORGE_TIER_PATH=" + tier_path};
    return out;
  }
  // The warning every entry point prints for `name` found at `file` (`origin`), shadowing
  // `later`; `where` is the family's location for a family's tier.
  static std::string warning(const std::string& where, const std::string& name,
                             const std::string& file, const std::string& origin,
                             const std::string& later) {
    return (where.empty() ? "zeroforge" : where) + ": warning: tier '" + name + "' is " + file +
           " (" + origin + "), which shadows " + later +
           " later on the tier search path; rename one of them, or give the tier's path to "
           "choose a file ('zeroforge list tiers' shows the search path) [tier.shadowed]\n";
  }
  void run_all(const std::string& tier, const std::string& team_file,
               const std::function<std::string(const EntryPoint&)>& expected_err,
               const std::vector<std::string>& environment) {
    dir.write("team-repository/family.json", family_text(tier));
    for (const EntryPoint& point : entry_points()) {
      SCOPED_TRACE(point.name);
      fs::remove_all(cwd() / "out");
      const test::CliResult result = run_cli(with_tier(point.args, tier), cwd(), environment);
      ASSERT_EQ(result.exit_code, 0) << result.err;
      EXPECT_EQ(result.err, expected_err(point));
      point.check(result, cwd(), tier, team_file);
    }
  }
  TempDir dir;
};

TEST_F(TierResolutionCliTest, ATeamTierInTheWorkingDirectoryShadowsTheShippedOneEverywhere) {
  dir.write("team-repository/tiers/small.json", kTeamSmall);
  const std::string shipped = builtin("small").string();
  run_all(
      "small", "tiers/small.json",
      [&](const EntryPoint& point) {
        // A family's tiers/ is ./tiers here (the family is in the working directory): one
        // directory, found as the family's, the warning at the family's tier.
        if (point.family && std::string(point.name) != "list tiers")
          return warning("family.json: /tiers/0", "small", "tiers/small.json", "beside the family",
                         shipped);
        if (std::string(point.name) == "list tiers")
          return warning("", "small", "tiers/small.json", "beside the family", shipped);
        return warning("", "small", "tiers/small.json", "working directory", shipped);
      },
      env());
}

TEST_F(TierResolutionCliTest, ATierOnZeroforgeTierPathShadowsTheShippedOneEverywhere) {
  fs::create_directories(cwd());
  const fs::path site = dir.write("site-tiers/small.json", kTeamSmall);
  const std::string shipped = builtin("small").string();
  run_all(
      "small", site.string(),
      [&](const EntryPoint& point) {
        const std::string where =
            point.family && std::string(point.name) != "list tiers" ? "family.json: /tiers/0" : "";
        return warning(where, "small", site.string(), "ZEROFORGE_TIER_PATH", shipped);
      },
      env(site.parent_path().string()));
}

TEST_F(TierResolutionCliTest, ATeamTierShadowsOneOnZeroforgeTierPathAndBothShippedOnes) {
  // medium is in ./tiers, on ZEROFORGE_TIER_PATH and shipped: one warning names both others.
  dir.write("team-repository/tiers/medium.json", kTeamSmall);
  const fs::path site = dir.write("site-tiers/medium.json", R"({"gpus_per_node": 4})");
  const std::string later = site.string() + ", " + builtin("medium").string();
  auto result = run_cli({"render", "deepspeed/config.json.j2", "--tier", "medium"}, cwd(),
                        env(site.parent_path().string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  expect_team_config(Json::parse(result.out));
  EXPECT_EQ(result.err, warning("", "medium", "tiers/medium.json", "working directory", later));
}

TEST_F(TierResolutionCliTest, AUniqueNameGivesNoWarning) {
  dir.write("team-repository/tiers/a100x8.json", kTeamSmall);
  run_all(
      "a100x8", "tiers/a100x8.json", [](const EntryPoint&) { return std::string(); }, env());
}

TEST_F(TierResolutionCliTest, APathIsTheFileItNamesAndNeverWarns) {
  // A path chooses among shadowing tiers: relative to the working directory on the command
  // line, to the family file in a family.
  dir.write("team-repository/tiers/small.json", kTeamSmall);
  auto render =
      run_cli({"render", "deepspeed/config.json.j2", "--tier", "tiers/small.json"}, cwd(), env());
  ASSERT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(render.err, "");
  expect_team_config(Json::parse(render.out));
  auto shipped = run_cli(
      {"explain", "deepspeed/config.json.j2", "--tier", builtin("small").string()}, cwd(), env());
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  EXPECT_EQ(shipped.err, "");
  EXPECT_NE(shipped.out.find("\ntier small: " + builtin("small").string() + "\n"),
            std::string::npos)
      << shipped.out;
}

TEST_F(TierResolutionCliTest, AMissingNameNamesEveryDirectorySearchedInOrder) {
  const fs::path site = dir.path() / "site-tiers";
  fs::create_directories(cwd());
  const std::string searched =
      "./tiers, " + site.string() + ", " + (test::source_dir() / "presets" / "tiers").string();
  const std::string message =
      "tier 'h100' not found on the tier search path (searched: " + searched +
      "); put h100.json in ./tiers or a ZEROFORGE_TIER_PATH directory, "
      "or give its path ('zeroforge list tiers' shows the tiers found)";
  for (const char* command : {"render", "explain"}) {
    SCOPED_TRACE(command);
    auto result =
        run_cli({command, "deepspeed/config.json.j2", "--tier", "h100"}, cwd(), env(site.string()));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "zeroforge: error: " + message + " [tier.not-found]\n");
  }
  // estimate is the memory plugin's command: it words its own usage errors, which the CLI prints
  // as usage errors.
  auto estimate =
      run_cli({"estimate", "--model", "gpt2", "--tier", "h100"}, cwd(), env(site.string()));
  EXPECT_EQ(estimate.exit_code, 2);
  EXPECT_EQ(estimate.err.substr(0, estimate.err.find('\n') + 1),
            "zeroforge estimate: error: --tier: " + message + " [usage.invalid]\n");
}

}  // namespace
}  // namespace zf
