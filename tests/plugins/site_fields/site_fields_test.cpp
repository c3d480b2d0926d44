// SPDX-License-Identifier: MIT
// The bundled site_fields plugin, loaded from the build's plugin dir: what a profile sets,
// where the NVMe path goes, and the profiles it refuses (with their exact messages).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "launch/launch_text.hpp"
#include "support/cli_runner.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/values.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

const std::string kPlugin = std::string(ZF_BUNDLED_PLUGIN_DIR) + "/site_fields.so";

PluginHostOptions isolated_options() {
  PluginHostOptions options;
  options.use_environment = false;
  return options;
}

std::unique_ptr<PluginHost> load(const Json& options) {
  auto host = std::make_unique<PluginHost>(isolated_options());
  host->load({{kPlugin, options}});
  return host;
}

std::string load_error(const Json& options) {
  try {
    load(options);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

const Json kStage3Nvme = Json::parse(R"({
  "train_batch_size": 8,
  "zero_optimization": {
    "stage": 3,
    "offload_optimizer": {"device": "nvme", "pin_memory": true},
    "offload_param": {"device": "cpu"}
  }
})");

TEST(SiteFieldsTest, AppliesMonitorsLoggingAndFields) {
  Json profile = Json::parse(R"({
    "nvme_path": "/local_nvme",
    "tensorboard": {"output_path": "/logs/tb", "job_name": "llama"},
    "wandb": {"project": "llm", "enabled": false},
    "comms_logger": {"enabled": true, "verbose": false},
    "steps_per_print": 50,
    "fields": {"wall_clock_breakdown": true, "zero_optimization": {"sub_group_size": 100000000}}
  })");
  auto host = load({{"profile", profile}});
  OutputHookResult out = host->run_output_hooks(kStage3Nvme, Json::object());
  Json expected = Json::parse(R"({
    "train_batch_size": 8,
    "zero_optimization": {
      "stage": 3,
      "offload_optimizer": {"device": "nvme", "pin_memory": true, "nvme_path": "/local_nvme"},
      "offload_param": {"device": "cpu"},
      "sub_group_size": 100000000
    },
    "tensorboard": {"enabled": true, "output_path": "/logs/tb", "job_name": "llama"},
    "wandb": {"project": "llm", "enabled": false},
    "comms_logger": {"enabled": true, "verbose": false},
    "steps_per_print": 50,
    "wall_clock_breakdown": true
  })");
  EXPECT_EQ(out.config, expected) << out.config.dump(2);
  EXPECT_EQ(out.manifest, Json({{"site_fields", {{"profile", "(inline)"}}}}));
  std::vector<std::string> pointers;
  for (const auto& field : out.fields) {
    EXPECT_EQ(field.plugin, "site_fields");
    pointers.push_back(field.json_pointer);
  }
  EXPECT_EQ(pointers[0], "/tensorboard/enabled");
  EXPECT_NE(
      std::find(pointers.begin(), pointers.end(), "/zero_optimization/offload_optimizer/nvme_path"),
      pointers.end());
}

TEST(SiteFieldsTest, SetsTheNvmePathOnlyWhereTheConfigOffloadsToNvme) {
  auto host = load({{"profile", {{"nvme_path", "/nvme"}}}});
  Json cpu_only = {
      {"zero_optimization", {{"stage", 2}, {"offload_optimizer", {{"device", "cpu"}}}}}};
  EXPECT_EQ(host->run_output_hooks(cpu_only, Json::object()).config, cpu_only);
  Json no_zero = {{"train_batch_size", 1}};
  EXPECT_EQ(host->run_output_hooks(no_zero, Json::object()).config, no_zero);
  Json both = Json::parse(R"({"zero_optimization": {"stage": 3,
      "offload_optimizer": {"device": "nvme", "nvme_path": "/old"}, "offload_param": {"device": "nvme"}}})");
  Json out = host->run_output_hooks(both, Json::object()).config;
  EXPECT_EQ(out["zero_optimization"]["offload_optimizer"]["nvme_path"], "/nvme");
  EXPECT_EQ(out["zero_optimization"]["offload_param"]["nvme_path"], "/nvme");
}

TEST(SiteFieldsTest, ANullFieldRemovesAKey) {
  auto host = load({{"profile", {{"fields", {{"gradient_clipping", nullptr}}}}}});
  Json out =
      host->run_output_hooks({{"gradient_clipping", 1.0}, {"steps_per_print", 10}}, Json::object())
          .config;
  EXPECT_EQ(out, Json({{"steps_per_print", 10}}));
}

TEST(SiteFieldsTest, ReadsTheProfileFromAFile) {
  test::TempDir dir;
  auto path = dir.write("site.json", R"({"csv_monitor": {"output_path": "/csv"}})");
  auto host = load({{"profile", path.string()}});
  OutputHookResult out = host->run_output_hooks(Json::object(), Json::object());
  EXPECT_EQ(out.config,
            Json::parse(R"({"csv_monitor": {"enabled": true, "output_path": "/csv"}})"));
  EXPECT_EQ(out.manifest["site_fields"]["profile"], path.string());
}

TEST(SiteFieldsTest, ThePlainProfileFileIsAnInputOfTheRun) {
  test::TempDir dir;
  auto path = dir.write("profiles/site-fields-of-the-cluster.json", R"({"steps_per_print": 5})");
  auto host = load({{"profile", path.string()}});
  EXPECT_EQ(host->files_read(), std::vector<std::filesystem::path>({path}))
      << "generate --depfile lists it";
}

// The profile is read by the host's reader: /dev/zero is named a device (it grew to 3.7 GB
// before), a FIFO no one writes to is named a FIFO (it waited forever, then read as "not valid
// JSON").
TEST(SiteFieldsTest, ReadsTheProfileWithinTheHostsInputLimit) {
  ::setenv("ZEROFORGE_MAX_INPUT_MIB", "1", 1);
  const std::string limit = load_error({{"profile", "/dev/zero"}});
  ::unsetenv("ZEROFORGE_MAX_INPUT_MIB");
  EXPECT_EQ(limit, kPlugin +
                       ": error: plugin 'site_fields': init failed: cannot read '/dev/zero': "
                       "is a character device (such as /dev/zero or a terminal), not a file");

  test::TempDir dir;
  const auto fifo = dir.path() / "a-named-pipe-nobody-writes-to.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string empty = load_error({{"profile", fifo.string()}});
  EXPECT_EQ(empty, kPlugin + ": error: plugin 'site_fields': init failed: cannot read '" +
                       fifo.string() +
                       "': is a FIFO (a named pipe) and nothing was written to it; give a file, "
                       "or write to the pipe while zeroforge reads it");
}

// A profile path with a NUL (a --plugin-opt or inline option) is refused by the SDK's reader,
// which the host's C string would otherwise cut short at the NUL.
TEST(SiteFieldsTest, RefusesAProfilePathWithANul) {
  EXPECT_EQ(load_error({{"profile", std::string("site.json\0.bak", 14)}}),
            kPlugin +
                ": error: plugin 'site_fields': init failed: path \"site.json\\u0000.bak\" "
                "contains a NUL byte (U+0000) at byte 9, where the system would end it (it would "
                "read \"site.json\")");
}

// One check, the companions': a host or variable the profile accepts is one `generate
// --companions` writes, and one it refuses is refused with the companions' own words.
TEST(SiteFieldsTest, RefusesExactlyTheLaunchTextTheCompanionsRefuse) {
  using launch::LaunchText;
  const std::vector<std::string> hosts = {"gpu-1", "gpu 1", "-gpu", ".gpu", "a_b.c", "gpu\n1"};
  for (const auto& name : hosts) {
    SCOPED_TRACE(name);
    const std::string problem = launch::launch_text_problem(LaunchText::HostName, name);
    const std::string error = load_error({{"profile", {{"hosts", {name}}}}});
    EXPECT_EQ(error, problem.empty() ? ""
                                     : kPlugin +
                                           ": error: plugin 'site_fields': init failed: "
                                           "site profile (inline): /hosts/0: " +
                                           problem);
  }
  const std::vector<std::pair<std::string, std::string>> environment = {
      {"NCCL_DEBUG", "INFO"}, {"1X", "a"},      {"A-B", "a"},        {"X", "$HOME"}, {"X", " x"},
      {"X", "a\"b"},          {"X", "a:b,c@d"}, {"X", "line\nbreak"}};
  for (const auto& [name, value] : environment) {
    SCOPED_TRACE(name + "=" + value);
    std::string problem = launch::launch_text_problem(LaunchText::VariableName, name);
    if (problem.empty()) problem = launch::launch_text_problem(LaunchText::VariableValue, value);
    const std::string error = load_error({{"profile", {{"environment", {{name, value}}}}}});
    EXPECT_EQ(error, problem.empty() ? ""
                                     : kPlugin +
                                           ": error: plugin 'site_fields': init failed: "
                                           "site profile (inline): /environment/" +
                                           name + ": " + problem);
  }
}

TEST(SiteFieldsTest, AllowsUnknownKeysOnlyWhenTheProfileSaysSo) {
  Json profile = {{"fields", {{"my_site_tag", "a"}}}, {"allow_unknown_keys", true}};
  auto host = load({{"profile", profile}});
  EXPECT_EQ(host->run_output_hooks(Json::object(), Json::object()).config,
            Json({{"my_site_tag", "a"}}));
}

TEST(SiteFieldsTest, HostsAndEnvironmentBecomeLaunchValuesForCompanions) {
  auto host = load({{"profile", Json::parse(R"({"hosts": ["gpu-1", "gpu-2"],
                                               "environment": {"NCCL_DEBUG": "WARN", "A_B": "x y"},
                                               "steps_per_print": 10})")}});
  LayeredValues values;
  values.apply({LayerKind::Family, "f.json"},
               Json::parse(R"({"launch": {"script": "t.py", "hosts": ["old"]}})"));
  host->run_values_hooks(values);
  EXPECT_EQ(values.merged().at("launch"), Json::parse(R"({"script": "t.py",
      "hosts": ["old", "gpu-1", "gpu-2"], "environment": {"NCCL_DEBUG": "WARN", "A_B": "x y"}})"))
      << "merged over the family's launch, the hosts by name";
  EXPECT_EQ(values.origin("/launch/hosts")->label, "plugin site_fields");
  // The site's SLURM values merge with the family's, the profile's own keys winning.
  auto slurm =
      load({{"profile", Json::parse(R"({"slurm": {"partition": "gpu", "account": "ml"}})")}});
  LayeredValues with_slurm;
  with_slurm.apply({LayerKind::Family, "f.json"},
                   Json::parse(R"({"launch": {"slurm": {"time": "1:00:00", "account": "x"}}})"));
  slurm->run_values_hooks(with_slurm);
  EXPECT_EQ(with_slurm.merged().at("launch"),
            Json::parse(R"({"slurm": {"time": "1:00:00", "account": "ml", "partition": "gpu"}})"));
  EXPECT_EQ(with_slurm.origin("/launch/slurm/partition")->label, "plugin site_fields");
  // And its Kubernetes values, likewise.
  auto kubernetes =
      load({{"profile", Json::parse(R"({"kubernetes": {"namespace": "ml", "image": "i:1"}})")}});
  LayeredValues with_kubernetes;
  with_kubernetes.apply({LayerKind::Family, "f.json"},
                        Json::parse(R"({"launch": {"kubernetes": {"api": "TrainJob",
                                                                   "namespace": "x"}}})"));
  kubernetes->run_values_hooks(with_kubernetes);
  EXPECT_EQ(
      with_kubernetes.merged().at("launch"),
      Json::parse(R"({"kubernetes": {"api": "TrainJob", "namespace": "ml", "image": "i:1"}})"));
  EXPECT_EQ(with_kubernetes.origin("/launch/kubernetes/namespace")->label, "plugin site_fields");
  // A profile without them leaves the values alone.
  auto plain = load({{"profile", {{"steps_per_print", 10}}}});
  LayeredValues untouched;
  untouched.apply({LayerKind::Family, "f.json"}, {{"stage", 3}});
  plain->run_values_hooks(untouched);
  EXPECT_EQ(untouched.merged(), Json({{"stage", 3}}));
}

// Lists of named things merge with the config's (issue #40 §1): an entry of the same name is
// replaced where it stands, new ones follow, unnamed ones (tolerations) are appended once; a
// {"$replace": [...]} list replaces the config's.
TEST(SiteFieldsTest, ListsMergeByTheirKeyUnlessTheProfileReplacesThem) {
  struct Case {
    const char* name;
    const char* profile;
    const char* family_launch;
    const char* expected_launch;
  };
  const std::vector<Case> cases = {
      {"hosts by name", R"({"hosts": ["b", "c"]})", R"({"hosts": ["a", "b"]})",
       R"({"hosts": ["a", "b", "c"]})"},
      {"volumes by name, in place",
       R"({"kubernetes": {"volumes": [{"name": "v2", "emptyDir": {}}, {"name": "v3", "emptyDir": {}}]}})",
       R"({"kubernetes": {"volumes": [{"name": "v1", "nfs": {}}, {"name": "v2", "hostPath": {}}]}})",
       R"({"kubernetes": {"volumes": [{"name": "v1", "nfs": {}}, {"name": "v2", "emptyDir": {}},
                                      {"name": "v3", "emptyDir": {}}]}})"},
      {"mounts by mountPath",
       R"({"kubernetes": {"volume_mounts": [{"name": "s", "mountPath": "/data"}]}})",
       R"({"kubernetes": {"volume_mounts": [{"name": "d", "mountPath": "/data"},
                                            {"name": "c", "mountPath": "/ckpt"}]}})",
       R"({"kubernetes": {"volume_mounts": [{"name": "s", "mountPath": "/data"},
                                            {"name": "c", "mountPath": "/ckpt"}]}})"},
      {"tolerations appended once",
       R"({"kubernetes": {"tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}]}})",
       R"({"kubernetes": {"tolerations": [{"key": "a", "operator": "Exists"}]}})",
       R"({"kubernetes": {"tolerations": [{"key": "a", "operator": "Exists"},
                                          {"key": "b", "operator": "Exists"}]}})"},
      {"variables from Secrets by name",
       R"({"kubernetes": {"env": [{"name": "B", "valueFrom": {"secretKeyRef": {"name": "site", "key": "b"}}}]}})",
       R"({"kubernetes": {"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "team", "key": "a"}}},
                                  {"name": "B", "valueFrom": {"secretKeyRef": {"name": "team", "key": "b"}}}]}})",
       R"({"kubernetes": {"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "team", "key": "a"}}},
                                  {"name": "B", "valueFrom": {"secretKeyRef": {"name": "site", "key": "b"}}}]}})"},
      {"env_from appended once",
       R"({"kubernetes": {"env_from": [{"secretRef": {"name": "a"}}, {"secretRef": {"name": "site"}}]}})",
       R"({"kubernetes": {"env_from": [{"secretRef": {"name": "a"}}]}})",
       R"({"kubernetes": {"env_from": [{"secretRef": {"name": "a"}}, {"secretRef": {"name": "site"}}]}})"},
      {"$replace", R"({"hosts": {"$replace": ["z"]}})", R"({"hosts": ["a"]})",
       R"({"hosts": ["z"]})"},
      {"no list in the family", R"({"kubernetes": {"volumes": [{"name": "v", "emptyDir": {}}]}})",
       R"({"kubernetes": {"image": "i"}})",
       R"({"kubernetes": {"image": "i", "volumes": [{"name": "v", "emptyDir": {}}]}})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto host = load({{"profile", Json::parse(c.profile)}});
    LayeredValues values;
    values.apply({LayerKind::Family, "f.json"}, {{"launch", Json::parse(c.family_launch)}});
    host->run_values_hooks(values);
    EXPECT_EQ(values.merged().at("launch"), Json::parse(c.expected_launch));
  }
}

TEST(SiteFieldsTest, RefusesBadProfilesWhenLoaded) {
  test::TempDir dir;
  auto broken = dir.write("broken.json", "{\"steps_per_print\": }");
  const std::string prefix = kPlugin + ": error: plugin 'site_fields': init failed: ";
  struct Case {
    const char* name;
    Json options;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"no profile", Json::object(),
       "option \"profile\" is required (e.g. --plugin-opt site_fields.profile=site.json)"},
      {"unknown option",
       {{"profile", Json::object()}, {"profiel", 1}},
       "unknown option 'profiel' (site_fields takes \"profile\")"},
      {"missing file",
       {{"profile", "/srv/cluster-profiles/site-fields/no-such-site-profile.json"}},
       "cannot read '/srv/cluster-profiles/site-fields/no-such-site-profile.json': No such file or "
       "directory"},
      {"a directory",
       {{"profile", dir.path().string()}},
       "cannot read '" + dir.path().string() + "': is a directory"},
      {"unknown top-level field",
       {{"profile", {{"fields", {{"memory_efficient_linear", false}}}}}},
       "site profile (inline): /fields/memory_efficient_linear: 'memory_efficient_linear' is not a "
       "DeepSpeed config key (DeepSpeed would ignore it); set \"allow_unknown_keys\": true in the "
       "profile to emit it anyway"},
      {"unknown section key",
       {{"profile", {{"fields", {{"zero_optimization", {{"use_dynamic_tiling", true}}}}}}}},
       "site profile (inline): /fields/zero_optimization/use_dynamic_tiling: 'use_dynamic_tiling' "
       "is not a key of DeepSpeed's 'zero_optimization' section (DeepSpeed would reject the "
       "config); set \"allow_unknown_keys\": true in the profile to emit it anyway"},
      {"unknown monitor key",
       {{"profile", {{"tensorboard", {{"path", "/x"}}}}}},
       "site profile (inline): /tensorboard/path: 'path' is not a key of DeepSpeed's 'tensorboard' "
       "section (DeepSpeed would reject the config); set \"allow_unknown_keys\": true in the "
       "profile "
       "to emit it anyway"},
      {"unknown profile key",
       {{"profile", {{"nvme", "/x"}}}},
       "site profile (inline): /nvme: unknown profile key 'nvme' (expected nvme_path, tensorboard, "
       "wandb, csv_monitor, comet, comms_logger, steps_per_print, fields, allow_unknown_keys, "
       "hosts, environment, slurm, kubernetes)"},
      {"slurm not an object",
       {{"profile", {{"slurm", "gpu"}}}},
       "site profile (inline): /slurm: expected an object (launch.slurm: partition, account, ...)"},
      {"kubernetes not an object",
       {{"profile", {{"kubernetes", "ml"}}}},
       "site profile (inline): /kubernetes: expected an object (launch.kubernetes: namespace, "
       "image, ...)"},
      {"bad host",
       {{"profile", {{"hosts", {"gpu-1", "gpu 2"}}}}},
       "site profile (inline): /hosts/1: \"gpu 2\" is not a host name (letters, digits, '.', '-' "
       "and '_', as a hostfile line and pdsh take it)"},
      {"no hosts",
       {{"profile", {{"hosts", Json::array()}}}},
       "site profile (inline): /hosts: expected a non-empty list of host names"},
      {"bad variable name",
       {{"profile", {{"environment", {{"NCCL-DEBUG", "INFO"}}}}}},
       "site profile (inline): /environment/NCCL-DEBUG: \"NCCL-DEBUG\" is not an environment "
       "variable name (letters, digits and '_', not starting with a digit)"},
      {"value the other nodes' shell would expand",
       {{"profile", {{"environment", {{"LD_LIBRARY_PATH", "/opt/x:$LD_LIBRARY_PATH"}}}}}},
       "site profile (inline): /environment/LD_LIBRARY_PATH: \"/opt/x:$LD_LIBRARY_PATH\": "
       "DeepSpeed's launcher strips the value and hands it to the other nodes' shell in double "
       "quotes, so it cannot hold '\"', '$', '`' or '\\', nor begin or end with a "
       "space"},
      {"value not a string",
       {{"profile", {{"environment", {{"OMP_NUM_THREADS", 4}}}}}},
       "site profile (inline): /environment/OMP_NUM_THREADS: expected a string, got 4"},
      {"bad steps_per_print",
       {{"profile", {{"steps_per_print", 0}}}},
       "site profile (inline): /steps_per_print: expected a positive integer"},
      {"empty nvme_path",
       {{"profile", {{"nvme_path", ""}}}},
       "site profile (inline): /nvme_path: expected a non-empty path string"},
      {"$replace with company",
       {{"profile", Json::parse(R"({"hosts": {"$replace": ["a"], "extra": 1}})")}},
       "site profile (inline): /hosts: \"$replace\" stands alone: {\"$replace\": [...]} replaces "
       "the list"},
      {"$replace of no list",
       {{"profile", Json::parse(R"({"kubernetes": {"volumes": {"$replace": {"name": "x"}}}})")}},
       "site profile (inline): /kubernetes/volumes/$replace: expected a list, got object"},
      {"$replace where nothing merges",
       {{"profile", Json::parse(R"({"kubernetes": {"node_selector": {"$replace": {}}}})")}},
       "site profile (inline): /kubernetes/node_selector/$replace: \"$replace\" replaces a list "
       "that merges with the family's (hosts, kubernetes/volumes, kubernetes/volume_mounts, "
       "kubernetes/tolerations, kubernetes/env, kubernetes/env_from); this value is not one"},
      {"replaced hosts checked",
       {{"profile", Json::parse(R"({"hosts": {"$replace": ["gpu 1"]}})")}},
       "site profile (inline): /hosts/$replace/0: \"gpu 1\" is not a host name (letters, digits, "
       "'.', '-' and '_', as a hostfile line and pdsh take it)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(load_error(c.options), prefix + c.expected);
  }
  std::string what = load_error({{"profile", broken.string()}});
  EXPECT_EQ(what.rfind(prefix + "site profile " + broken.string() + " is not valid JSON: ", 0), 0u)
      << what;
}

}  // namespace
}  // namespace zf
