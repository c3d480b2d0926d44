// SPDX-License-Identifier: MIT
// A site profile meets a team's family (issue #40 §1): the profile's lists of named things merge
// with the family's instead of replacing them, an explicit --set or --values beats the profile,
// and where the profile replaces a value the family wrote, generate and explain say so.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;
using Json = nlohmann::ordered_json;

// The team's Kubernetes family (its dataset volume and mount, a toleration) and SLURM values,
// and the site's profile (its scratch volume, its own toleration, a partition of its own).
struct TeamAndSite {
  TempDir dir;
  std::string family;
  std::string profile;

  explicit TeamAndSite(const std::string& site_kubernetes = R"({"namespace": "ml", "image": "i:1",
      "volumes": [{"name": "scratch", "emptyDir": {}}],
      "volume_mounts": [{"name": "scratch", "mountPath": "/scratch"}],
      "tolerations": [{"key": "site", "operator": "Exists", "effect": "NoSchedule"}]})") {
    profile = dir.write("sites/h100/site-profile.json",
                        R"({"slurm": {"partition": "h100", "account": "ml"},
                            "kubernetes": )" +
                            site_kubernetes + "}")
                  .string();
    family = dir.write("teams/llm/family.json", R"({
      "name": "llm", "template": "deepspeed/config.json.j2",
      "values": {"global_batch_size": 64,
                 "launch": {"script": "train.py",
                            "slurm": {"partition": "team-a100", "time": "4:00:00"},
                            "kubernetes": {
                              "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "ds"}}],
                              "volume_mounts": [{"name": "data", "mountPath": "/data"}],
                              "tolerations": [{"key": "team", "operator": "Exists",
                                               "effect": "NoSchedule"}]}}},
      "tiers": ["medium"], "companions": ["kubernetes", "slurm"],
      "plugins": [{"name": "site_fields", "options": {"profile": ")" +
                                                    profile + R"("}}]})")
                 .string();
  }
};

TEST(SiteProfilePrecedenceCliTest, TheProfilesListsMergeWithTheFamilysByName) {
  TeamAndSite setup;
  const fs::path out = setup.dir.path() / "out";
  auto run = run_cli({"generate", setup.family, "-o", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string job = read_file(out / "medium/config.k8s.yaml");
  // The team's dataset and the site's scratch space are both mounted, the team's first.
  const auto data = job.find(R"({"mountPath": "/data", "name": "data"})");
  const auto scratch = job.find(R"({"mountPath": "/scratch", "name": "scratch"})");
  EXPECT_NE(data, std::string::npos) << job;
  EXPECT_NE(scratch, std::string::npos) << job;
  EXPECT_LT(data, scratch);
  EXPECT_NE(job.find(R"("claimName": "ds")"), std::string::npos) << job;
  EXPECT_NE(job.find(R"("key": "team")"), std::string::npos) << job;
  EXPECT_NE(job.find(R"("key": "site")"), std::string::npos) << job;
}

TEST(SiteProfilePrecedenceCliTest, AnEntryOfTheSameNameReplacesTheFamilysAndIsNoted) {
  TeamAndSite setup(R"({"volumes": [{"name": "data", "nfs": {"server": "nas", "path": "/ds"}}],
                        "image": "i:1"})");
  const fs::path out = setup.dir.path() / "out";
  auto run = run_cli({"generate", setup.family, "-o", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string job = read_file(out / "medium/config.k8s.yaml");
  EXPECT_EQ(job.find("claimName"), std::string::npos) << job;
  EXPECT_NE(job.find(R"("server": "nas")"), std::string::npos) << job;
  // Both values and both places: the family's file and pointer, and the plugin.
  EXPECT_NE(run.err.find(setup.family +
                         ": /values/launch/kubernetes/volumes: note: plugin site_fields replaces "
                         "this value, [{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":"
                         "\"ds\"}}], with [{\"name\":\"data\",\"nfs\":{\"server\":\"nas\",\"path\":"
                         "\"/ds\"}}]"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(setup.family +
                         ": /values/launch/slurm/partition: note: plugin site_fields replaces "
                         "this value, \"team-a100\", with \"h100\""),
            std::string::npos)
      << run.err;
  const std::string batch = read_file(out / "medium/config.sbatch");
  EXPECT_NE(batch.find("#SBATCH --partition=h100\n"), std::string::npos) << batch;
  EXPECT_NE(batch.find("#SBATCH --time=4:00:00\n"), std::string::npos) << batch;
  // Said once for the run, though two companions and the config share the value.
  EXPECT_EQ(run.err.find("/values/launch/slurm/partition"),
            run.err.rfind("/values/launch/slurm/partition"));
}

TEST(SiteProfilePrecedenceCliTest, SetAndValuesFilesBeatTheProfile) {
  TeamAndSite setup;
  const fs::path out = setup.dir.path() / "out";
  const fs::path values =
      setup.dir.write("ci/values.json", R"({"launch": {"kubernetes": {"namespace": "ci"}}})");
  auto run = run_cli({"generate", setup.family, "-o", out.string(), "--set",
                      "launch.slurm.partition=h100-long", "--values", values.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string batch = read_file(out / "medium/config.sbatch");
  EXPECT_NE(batch.find("#SBATCH --partition=h100-long\n"), std::string::npos) << batch;
  EXPECT_NE(batch.find("#SBATCH --account=ml\n"), std::string::npos) << batch;
  const std::string job = read_file(out / "medium/config.k8s.yaml");
  EXPECT_NE(job.find("namespace: \"ci\""), std::string::npos) << job;
  // Nothing of the family's was replaced: the user's value won.
  EXPECT_EQ(run.err.find("launch/slurm/partition"), std::string::npos) << run.err;
  // A --set list is the user's whole list: the profile's entries do not join it.
  fs::remove_all(out);
  auto whole = run_cli({"generate", setup.family, "-o", out.string(), "--set",
                        R"(launch.kubernetes.tolerations=[])"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(read_file(out / "medium/config.k8s.yaml").find("tolerations"), std::string::npos);
}

TEST(SiteProfilePrecedenceCliTest, AProfileReplacesAListWithReplace) {
  TeamAndSite setup(R"({"image": "i:1",
      "tolerations": {"$replace": [{"key": "site", "operator": "Exists", "effect": "NoSchedule"}]}})");
  const fs::path out = setup.dir.path() / "out";
  auto run = run_cli({"generate", setup.family, "-o", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string job = read_file(out / "medium/config.k8s.yaml");
  EXPECT_EQ(job.find(R"("key": "team")"), std::string::npos) << job;
  EXPECT_NE(job.find(R"("key": "site")"), std::string::npos) << job;
  EXPECT_NE(run.err.find(setup.family +
                         ": /values/launch/kubernetes/tolerations: note: plugin site_fields "
                         "replaces this value"),
            std::string::npos)
      << run.err;
}

TEST(SiteProfilePrecedenceCliTest, TheNoteStaysInFormatJsonUnderQuietAndInExplain) {
  TeamAndSite setup;
  const fs::path out = setup.dir.path() / "out";
  auto run = run_cli({"generate", setup.family, "-o", out.string(), "--quiet", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  Json summary = Json::parse(run.out);
  ASSERT_EQ(summary.at("messages").size(), 1u) << summary.dump(2);
  const Json& note = summary.at("messages").at(0);
  EXPECT_EQ(note.at("code"), "values.plugin-replaced");
  EXPECT_EQ(note.at("severity"), "note");
  EXPECT_EQ(note.at("file"), setup.family);
  EXPECT_EQ(note.at("pointer"), "/values/launch/slurm/partition");

  auto explain = run_cli({"explain", setup.family, "--format", "json"});
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  Json explained = Json::parse(explain.out);
  ASSERT_EQ(explained.at("diagnostics").size(), 1u) << explained.dump(2);
  EXPECT_EQ(explained.at("diagnostics").at(0).at("code"), "values.plugin-replaced");
  // What the companions read is read: listed for them, not as "set but not read".
  EXPECT_TRUE(explained.at("unused").empty()) << explained.at("unused").dump();
  bool partition = false;
  for (const Json& row : explained.at("for_companions"))
    partition = partition || row.at("name") == "launch.slurm.partition";
  EXPECT_TRUE(partition) << explained.at("for_companions").dump();
}

// A site profile a family names is relative to the family file (issue #40 §3), so CI run from
// the repository root finds it; --plugin-opt stays relative to the working directory.
TEST(SiteProfilePrecedenceCliTest, AProfileAFamilyNamesIsRelativeToTheFamilyFile) {
  TempDir dir;
  dir.write("teams/llm/site.json", R"({"steps_per_print": 7})");
  dir.write("teams/llm/family.json", R"({"name": "llm", "template": "deepspeed/config.json.j2",
      "output": "ds.json", "plugins": [{"name": "site_fields", "options": {"profile": "site.json"}}]})");
  auto root = run_cli({"generate", "teams/llm/family.json", "-o", "a"}, dir.path());
  ASSERT_EQ(root.exit_code, 0) << root.err;
  auto there = run_cli({"generate", "../teams/llm/family.json", "-o", "../b"},
                       dir.write("ci/.keep", "").parent_path());
  ASSERT_EQ(there.exit_code, 0) << there.err;
  const std::string config = read_file(dir.path() / "a" / "ds.json");
  EXPECT_NE(config.find("\"steps_per_print\": 7"), std::string::npos) << config;
  EXPECT_EQ(read_file(dir.path() / "b" / "ds.json"), config);
  // The manifest names the file it read, as found.
  EXPECT_NE(read_file(dir.path() / "a" / "manifest.json").find("teams/llm/site.json"),
            std::string::npos);
  // --plugin-opt is the working directory's: from the root, teams/llm/site.json.
  dir.write("ci/site.json", R"({"steps_per_print": 9})");
  auto option = run_cli({"generate", "../teams/llm/family.json", "-o", "../c", "--plugin-opt",
                         "site_fields.profile=site.json"},
                        dir.path() / "ci");
  ASSERT_EQ(option.exit_code, 0) << option.err;
  EXPECT_NE(read_file(dir.path() / "c" / "ds.json").find("\"steps_per_print\": 9"),
            std::string::npos);
}

}  // namespace
}  // namespace zf
