// SPDX-License-Identifier: MIT
// A team's own repository through the real executable: tiers of its own (named after their
// files, found on the tier search path), template directories a family names, and the set-up
// walked end to end without any --template-dir.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using test::run_cli;
using test::TempDir;

// A tier of the team's own cluster, as a person writes it by hand (docs/tiers.md).
constexpr const char* kA100x8 = R"({
  "gpus_per_node": 8,
  "nodes": 1,
  "gpu_memory_gib": 79.15,
  "cpu_memory_gib": 1007.5,
  "nvme_path": "/local_nvme",
  "micro_batch_size": 2
})";

class TeamRepositoryCliTest : public ::testing::Test {
 protected:
  // A directory name long enough that a path held in a small-string buffer would show.
  fs::path repo() const { return dir.path() / "vision-team-training-configurations"; }
  fs::path write(const std::string& relative, const std::string& text) const {
    return dir.write("vision-team-training-configurations/" + relative, text);
  }
  TempDir dir;
};

TEST_F(TeamRepositoryCliTest, ATierGivenAsAPathIsNamedAfterItsFileStem) {
  write("tiers/a100x8.json", kA100x8);
  const fs::path family = write("families/vision/family.json", R"({
    "name": "vision",
    "template": "deepspeed/config.json.j2",
    "values": {"offload_optimizer": "none"},
    "axes": {"stage": [2, 3]},
    "exclude": [{"tier": "../../tiers/a100x8.json", "stage": 2}],
    "tiers": ["../../tiers/a100x8.json"],
    "output": "{{ tier }}/zero{{ stage }}.json"
  })");
  const fs::path out = dir.path() / "out";
  auto result = run_cli({"generate", family.string(), "-o", out.string(), "--report",
                         (dir.path() / "report.html").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_TRUE(fs::is_regular_file(out / "a100x8" / "zero3.json"));
  Json manifest = Json::parse(read_file(out / "manifest.json"));
  ASSERT_EQ(manifest.at("configs").size(), 1u);
  EXPECT_EQ(manifest.at("configs")[0].at("tier"), "a100x8");
  EXPECT_EQ(manifest.at("configs")[0].at("path"), "a100x8/zero3.json");
  const std::string report = read_file(dir.path() / "report.html");
  EXPECT_NE(report.find("Tier a100x8"), std::string::npos);
  EXPECT_EQ(report.find("Tier ../"), std::string::npos);
}

}  // namespace
}  // namespace zf
