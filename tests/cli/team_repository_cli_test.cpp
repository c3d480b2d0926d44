// SPDX-License-Identifier: MIT
// A team's own repository through the real executable: tiers of its own (named after their
// files, found on the tier search path), template directories a family names, and the set-up
// walked end to end without any --template-dir.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

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

// The team's tiers: one of its own, one that shadows the built-in `medium`; a site directory on
// ZEROFORGE_TIER_PATH with a tier of its own and one the team's shadows.
class TierSearchPathTest : public TeamRepositoryCliTest {
 protected:
  void SetUp() override {
    write("tiers/a100x8.json", kA100x8);
    write("tiers/medium.json", R"({"gpus_per_node": 8, "nodes": 1, "gpu_memory_gib": 79.64,
                                   "cpu_memory_gib": 1024, "micro_batch_size": 3})");
    dir.write("site-tiers-of-the-cluster/h100x32.json",
              R"({"gpus_per_node": 8, "nodes": 4, "gpu_memory_gib": 79.1,
                  "cpu_memory_gib": 2015.6, "micro_batch_size": 8})");
    dir.write("site-tiers-of-the-cluster/a100x8.json", R"({"gpus_per_node": 8, "nodes": 1})");
    write("family.json", R"({
      "name": "team",
      "template": "deepspeed/config.json.j2",
      "values": {"stage": 3},
      "tiers": ["a100x8", "medium", "h100x32", "small"],
      "output": "{{ tier }}.json"
    })");
  }
  // The site directory on the tier path, and the shipped data as the data directory (so the
  // built-in tiers' directory is known here).
  std::vector<std::string> env() const {
    return {"ZEROFORGE_TIER_PATH=" + site().string() + ":",
            "ZEROFORGE_DATA_DIR=" + test::source_dir().string()};
  }
  fs::path site() const { return dir.path() / "site-tiers-of-the-cluster"; }
  // The warning of a name the team's tiers/ has and a later directory too (tier.shadowed);
  // `where` is the family's tier, or nothing for list tiers.
  std::string shadowed(const std::string& where, const std::string& name,
                       const fs::path& later) const {
    return (where.empty() ? std::string("zeroforge") : where) + ": warning: tier '" + name +
           "' is " + (repo() / "tiers" / (name + ".json")).string() +
           " (beside the family), which shadows " + later.string() +
           " later on the tier search path; rename one of them, or give the tier's path to "
           "choose a file ('zeroforge list tiers' shows the search path) [tier.shadowed]\n";
  }
  std::string shadowed_a100x8(bool listed = false) const {
    return shadowed(listed ? "" : (repo() / "family.json").string() + ": /tiers/0", "a100x8",
                    site() / "a100x8.json");
  }
  std::string shadowed_medium(bool listed = false) const {
    return shadowed(listed ? "" : (repo() / "family.json").string() + ": /tiers/1", "medium",
                    test::source_dir() / "presets" / "tiers" / "medium.json");
  }
};

TEST_F(TierSearchPathTest, NamesAreFoundBesideTheFamilyThenOnTheTierPathThenBuiltIn) {
  const fs::path out = dir.path() / "out";
  const fs::path depfile = dir.path() / "configs.d";
  auto result = run_cli({"generate", (repo() / "family.json").string(), "-o", out.string(),
                         "--depfile", depfile.string()},
                        {}, env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json manifest = Json::parse(read_file(out / "manifest.json"));
  std::map<std::string, int> micro;
  for (const auto& entry : manifest.at("configs"))
    micro[entry.at("tier").get<std::string>()] = entry.at("micro_batch_size").get<int>();
  EXPECT_EQ(micro, (std::map<std::string, int>{
                       {"a100x8", 2}, {"h100x32", 8}, {"medium", 3}, {"small", 1}}));
  const std::string deps = read_file(depfile);
  for (const fs::path& tier :
       {repo() / "tiers" / "a100x8.json", repo() / "tiers" / "medium.json", site() / "h100x32.json",
        test::source_dir() / "presets" / "tiers" / "small.json"}) {
    EXPECT_NE(deps.find(fs::weakly_canonical(tier).string()), std::string::npos) << tier << " in\n"
                                                                                 << deps;
  }
  EXPECT_EQ(deps.find(site() / "a100x8.json"), std::string::npos) << "shadowed: not read";
}

TEST_F(TierSearchPathTest, ListTiersShowsWhereEachComesFromAndWhatIsShadowed) {
  auto result =
      run_cli({"list", "tiers", "--family", (repo() / "family.json").string()}, {}, env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string builtin = (test::source_dir() / "presets" / "tiers").string();
  EXPECT_EQ(result.out,
            (repo() / "tiers").string() +
                " (beside the family):\n"
                "  a100x8  1 node(s) x 8 GPU(s) of 79.15 GiB, 1007.5 GiB host memory, NVMe at "
                "/local_nvme; micro batch 2\n"
                "  medium  1 node(s) x 8 GPU(s) of 79.64 GiB, 1024 GiB host memory; micro batch "
                "3\n"
                "ZEROFORGE_TIER_PATH " +
                site().string() +
                ":\n"
                "  a100x8   shadowed by " +
                (repo() / "tiers" / "a100x8.json").string() +
                "\n"
                "  h100x32  4 node(s) x 8 GPU(s) of 79.1 GiB, 2015.6 GiB host memory; micro "
                "batch 8\n"
                "built-in " +
                builtin +
                ":\n"
                "  large   8 node(s) x 8 GPU(s) of 79.64 GiB, 1024 GiB host memory, NVMe at "
                "/local_nvme; micro batch 4\n"
                "  medium  shadowed by " +
                (repo() / "tiers" / "medium.json").string() +
                "\n"
                "  small   1 node(s) x 1 GPU(s) of 23.98 GiB, 128 GiB host memory; micro batch "
                "1\n");
  // Without a family: the tier path and the built-in tiers; render finds them the same way.
  auto plain = run_cli({"list", "tiers"}, {}, env());
  EXPECT_EQ(plain.out.find("beside the family"), std::string::npos);
  EXPECT_NE(plain.out.find("  h100x32  4 node(s)"), std::string::npos) << plain.out;
  auto render = run_cli({"render", "deepspeed/config.json.j2", "--tier", "h100x32"}, {}, env());
  ASSERT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(Json::parse(render.out).at("train_micro_batch_size_per_gpu"), 8);
}

TEST_F(TierSearchPathTest, AMissingTierNamesEveryDirectorySearched) {
  write("family.json", R"({"name": "team", "template": "deepspeed/config.json.j2",
                           "tiers": ["a100x8", "a100x16"]})");
  auto result =
      run_cli({"generate", (repo() / "family.json").string(), "-o", (dir.path() / "out").string()},
              {}, env());
  EXPECT_EQ(result.exit_code, 2);
  // The team's a100x8 shadows the site's: that warning, then the error.
  EXPECT_EQ(result.err, shadowed_a100x8() + (repo() / "family.json").string() +
                            ": /tiers/1: error: tier 'a100x16' not found on the tier search path "
                            "(searched: " +
                            (repo() / "tiers").string() + ", ./tiers, " + site().string() + ", " +
                            (test::source_dir() / "presets" / "tiers").string() +
                            "); put a100x16.json in tiers/ beside the family, ./tiers or a "
                            "ZEROFORGE_TIER_PATH directory, or give its path ('zeroforge list "
                            "tiers' shows the tiers found) [tier.not-found]\n");
  auto render = run_cli({"render", "deepspeed/config.json.j2", "--tier", "a100x16"}, {}, env());
  EXPECT_EQ(render.exit_code, 2);
  EXPECT_EQ(render.err,
            "zeroforge: error: tier 'a100x16' not found on the tier search path (searched: "
            "./tiers, " +
                site().string() + ", " + (test::source_dir() / "presets" / "tiers").string() +
                "); put a100x16.json in ./tiers or a ZEROFORGE_TIER_PATH directory, or give its "
                "path ('zeroforge list tiers' shows the tiers found) [tier.not-found]\n");
}

TEST_F(TierSearchPathTest, AMisspeltKeyInATierIsAnErrorWhereverTheTierIsUsed) {
  const fs::path tier = write("tiers/a100x8.json", R"({"gpus_per_node": 8, "nodes": 1,
    "gpu_mem_gib": 79.15, "cpu_memory_gib": 1007.5, "micro_bach_size": 2})");
  const std::string gpu_error =
      tier.string() +
      ": /gpu_mem_gib: error: unknown key 'gpu_mem_gib' in a tier; did you mean "
      "'gpu_memory_gib'? (a tier holds the cluster facts and values of docs/tiers.md, and "
      "values its template reads) [tier.unknown-key]\n";
  const std::string micro_error =
      tier.string() +
      ": /micro_bach_size: error: unknown key 'micro_bach_size' in a tier; did you mean "
      "'micro_batch_size'? (a tier holds the cluster facts and values of docs/tiers.md, and "
      "values its template reads) [tier.unknown-key]\n";
  auto generate =
      run_cli({"generate", (repo() / "family.json").string(), "-o", (dir.path() / "out").string()},
              {}, env());
  EXPECT_EQ(generate.exit_code, 2);
  EXPECT_EQ(generate.err, shadowed_a100x8() + shadowed_medium() + gpu_error);
  EXPECT_FALSE(fs::exists(dir.path() / "out"));

  auto render = run_cli({"render", "deepspeed/config.json.j2", "--tier", tier.string()}, {}, env());
  EXPECT_EQ(render.exit_code, 2);
  EXPECT_EQ(render.err, gpu_error + micro_error);

  auto list = run_cli({"list", "tiers", "--family", (repo() / "family.json").string()}, {}, env());
  EXPECT_EQ(list.exit_code, 0);
  std::string warnings = gpu_error + micro_error;
  for (std::size_t at; (at = warnings.find(": error: ")) != std::string::npos;)
    warnings.replace(at, 9, ": warning: ");
  EXPECT_EQ(list.err, warnings + shadowed_a100x8(true) + shadowed_medium(true));
}

TEST_F(TeamRepositoryCliTest, ATierKeyTheTemplateReadsIsTheTeamsOwnValue) {
  write("templates/team/config.json.j2", R"({%- extends "deepspeed/config.json.j2" -%}
{%- block extra %}
  "comms_logger": {"enabled": {{ comms_logging | default(false) | tojson }}},
{%- endblock %})");
  write("tiers/a100x8.json", R"({"gpus_per_node": 8, "gpu_memory_gib": 79.15,
                                 "comms_logging": true})");
  const fs::path family = write("family.json", R"({"name": "team",
    "template": "team/config.json.j2", "template_dirs": ["templates"], "tiers": ["a100x8"],
    "output": "{{ tier }}.json"})");
  const fs::path out = dir.path() / "out";
  auto result = run_cli({"generate", family.string(), "-o", out.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Json::parse(read_file(out / "a100x8.json")).at("comms_logger").at("enabled"), true);
  // list tiers --family knows the family's template: no warning for its value.
  auto list = run_cli({"list", "tiers", "--family", family.string()});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.err, "");
  // The shipped template reads no comms_logging: there the key is an error.
  write("family.json", R"({"name": "team", "template": "deepspeed/config.json.j2",
                           "tiers": ["a100x8"]})");
  auto shipped = run_cli({"generate", family.string(), "-o", out.string()});
  EXPECT_EQ(shipped.exit_code, 2);
  EXPECT_NE(shipped.err.find(": /comms_logging: error: unknown key 'comms_logging' in a tier"),
            std::string::npos)
      << shipped.err;
  auto shipped_list = run_cli({"list", "tiers", "--family", family.string()});
  EXPECT_EQ(shipped_list.exit_code, 0);
  EXPECT_NE(shipped_list.err.find(": /comms_logging: warning: unknown key 'comms_logging'"),
            std::string::npos)
      << shipped_list.err;
}

// A team copies the shipped `precision` block to change one key: from then on the values that
// block read are ignored, which render and generate say (docs/values.md, "Overriding a block").
TEST_F(TeamRepositoryCliTest, ValuesAnOverriddenBlockLeavesUnreadAreWarnedAbout) {
  const std::string copied = R"({%- extends "deepspeed/config.json.j2" -%}
{%- block precision %}
  "fp16": {"enabled": true, "loss_scale": 0, "initial_scale_power": 16,
           "loss_scale_window": 1000, "hysteresis": 2, "min_loss_scale": 1},
{%- endblock %})";
  write("templates/team/config.json.j2", copied);
  const std::string templates = (repo() / "templates").string();
  auto warning = [](const std::string& where, const std::string& name) {
    return where + ": warning: " + name +
           " is set, but only block 'precision' of deepspeed/config.json.j2 reads it, and "
           "team/config.json.j2 overrides that block without super(): the config ignores it (to "
           "change one key, set its value rather than override the block; docs/values.md) "
           "[values.overridden-block]\n";
  };
  auto render = run_cli({"render", "team/config.json.j2", "--template-dir", templates, "--tier",
                         "medium", "--set", "fp16.loss_scale_window=2000"});
  ASSERT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(Json::parse(render.out).at("fp16").at("loss_scale_window"), 1000);
  EXPECT_EQ(render.err, warning("--set fp16.loss_scale_window=2000", "fp16"));

  const fs::path family = write("family.json", R"({"name": "team",
    "template": "team/config.json.j2", "template_dirs": ["templates"],
    "values": {"fp16": {"loss_scale_window": 2000}}, "tiers": ["medium"]})");
  auto generate = run_cli({"generate", family.string(), "-o", (dir.path() / "out").string()});
  ASSERT_EQ(generate.exit_code, 0) << generate.err;
  EXPECT_EQ(generate.err.substr(0, generate.err.find('\n') + 1),
            warning(family.string() + ": /values/fp16", "fp16"));

  // The same change through super() keeps the parent's block: nothing is ignored.
  write("templates/team/config.json.j2", R"({%- extends "deepspeed/config.json.j2" -%}
{%- block precision %}{{ super() }}{%- endblock %})");
  auto kept =
      run_cli({"render", "team/config.json.j2", "--template-dir", templates, "--tier", "medium",
               "--set", "precision=fp16", "--set", "fp16.loss_scale_window=2000"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(Json::parse(kept.out).at("fp16").at("loss_scale_window"), 2000);
  EXPECT_EQ(kept.err, "");
}

// A template of the team's, extending the shipped one: one block changed.
constexpr const char* kTeamTemplate = R"({#- team/config.json.j2: the team's monitoring -#}
{%- extends "deepspeed/config.json.j2" -%}
{%- block monitoring %}
  "comms_logger": {"enabled": true, "verbose": false},
{{ super() }}
{%- endblock %}
)";

TEST_F(TeamRepositoryCliTest, AFamilyNamesItsTemplateDirectories) {
  write("templates/team/config.json.j2", kTeamTemplate);
  write("families/family.json", R"({"name": "team", "template": "team/config.json.j2",
                                    "template_dirs": ["../templates"], "tiers": ["medium"],
                                    "output": "{{ tier }}/team.json"})");
  const fs::path out = dir.path() / "out";
  const fs::path depfile = dir.path() / "configs.d";
  auto result = run_cli({"generate", (repo() / "families" / "family.json").string(), "-o",
                         out.string(), "--depfile", depfile.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json config = Json::parse(read_file(out / "medium" / "team.json"));
  EXPECT_TRUE(config.contains("comms_logger"));
  EXPECT_NE(read_file(depfile).find(
                fs::weakly_canonical(repo() / "templates" / "team" / "config.json.j2").string()),
            std::string::npos);

  // --template-dir still comes first.
  dir.write("override/team/config.json.j2",
            "{%- extends \"deepspeed/config.json.j2\" -%}{%- block extra %}\n  \"x_marker\": 1,"
            "{%- endblock %}");
  auto first = run_cli({"generate", (repo() / "families" / "family.json").string(), "-o",
                        out.string(), "--template-dir", (dir.path() / "override").string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  config = Json::parse(read_file(out / "medium" / "team.json"));
  EXPECT_TRUE(config.contains("x_marker"));
  EXPECT_FALSE(config.contains("comms_logger"));
}

TEST_F(TeamRepositoryCliTest, ATemplateNotFoundSaysWhereItLookedAndHowToAddADirectory) {
  write("templates/team/config.json.j2", kTeamTemplate);
  const fs::path family = write("family.json", R"({"name": "team",
    "template": "team/config.json.j2", "tiers": ["medium"]})");
  auto result = run_cli({"generate", family.string(), "-o", (dir.path() / "out").string()}, {},
                        {"ZEROFORGE_DATA_DIR=" + test::source_dir().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, family.string() +
                            ": /template: error: template 'team/config.json.j2' not found on the "
                            "template search path (searched: " +
                            (test::source_dir() / "templates").string() +
                            "); for a team's own templates, list their directory in the "
                            "family's \"template_dirs\" (relative to the family file) or pass "
                            "--template-dir DIR [template.load]\n");

  write("family.json", R"({"name": "team", "template": "team/config.json.j2",
                           "template_dirs": ["team-templates"]})");
  auto missing = run_cli({"generate", family.string(), "-o", (dir.path() / "out").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            family.string() +
                ": /template_dirs/0: error: template directory 'team-templates' is "
                "not a directory (" +
                (repo() / "team-templates").string() +
                "; template_dirs are relative to the family file) [family.template-dir]\n");
}

}  // namespace
}  // namespace zf
