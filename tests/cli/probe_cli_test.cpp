// SPDX-License-Identifier: MIT
// `zeroforge probe` through the real executable, with a fake nvidia-smi first (and alone) on
// PATH, a fake /proc/meminfo (ZEROFORGE_MEMINFO) and /proc/cpuinfo (ZEROFORGE_CPUINFO): the
// tier it prints or saves, its summary, its warnings and its errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

// 2,113,497,208 kB: a 2 TiB host as the kernel reports it (2015.588 GiB, rounded down).
constexpr const char* kMeminfo =
    "MemTotal:       2113497208 kB\nMemFree:        2000000000 kB\nMemAvailable:   2010000000 "
    "kB\n";

// /proc/cpuinfo as x86 Linux writes it, `cpus` entries (the fields of one, shortened).
std::string cpuinfo(int cpus) {
  std::string text;
  for (int i = 0; i < cpus; ++i) {
    text += "processor\t: " + std::to_string(i) +
            "\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480C\n"
            "physical id\t: " +
            std::to_string(i / 112) + "\nsiblings\t: 112\ncore id\t\t: " + std::to_string(i % 56) +
            "\ncpu cores\t: 56\nprocessors_note\t: not a CPU\n\n";
  }
  return text;
}

class ProbeCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  fs::path bin = dir.path() / "bin";

  void SetUp() override {
    fs::create_directories(bin);
    dir.write("meminfo", kMeminfo);
    dir.write("cpuinfo", cpuinfo(224));  // a DGX H100: 2 x 56 cores x 2 threads
  }

  // A nvidia-smi that checks it was asked the documented query and then runs `body`. PATH
  // holds only `bin`, so the script uses shell builtins alone.
  void fake_nvidia_smi(const std::string& body) {
    const fs::path script =
        dir.write("bin/nvidia-smi",
                  "#!/bin/sh\n"
                  "if [ \"$1 $2\" != \"--query-gpu=index,uuid,name,memory.total "
                  "--format=csv,noheader,nounits\" "
                  "]; "
                  "then\n  echo \"unexpected arguments: $*\" >&2\n  exit 3\nfi\n" +
                      body);
    fs::permissions(script, fs::perms::owner_all);
  }

  // Makes `program` (sleep, cat) callable from a fake nvidia-smi.
  void provide(const std::string& program) {
    for (const char* where : {"/bin/", "/usr/bin/"}) {
      if (fs::exists(where + program)) {
        fs::create_symlink(where + program, bin / program);
        return;
      }
    }
    FAIL() << program << " not found";
  }

  std::vector<std::string> env() const {
    return {"PATH=" + bin.string(), "ZEROFORGE_MEMINFO=" + (dir.path() / "meminfo").string(),
            "ZEROFORGE_CPUINFO=" + (dir.path() / "cpuinfo").string()};
  }

  test::CliResult probe(const std::vector<std::string>& args = {},
                        const std::vector<std::string>& more_env = {}) {
    std::vector<std::string> all{"probe"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<std::string> environment = env();
    environment.insert(environment.end(), more_env.begin(), more_env.end());
    return run_cli(all, dir.path(), environment);
  }

  // The error text with the temporary directory shown as TMP.
  std::string err_of(const test::CliResult& result) const {
    std::string text = result.err;
    const std::string root = dir.path().string();
    for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root)) {
      text.replace(at, root.size(), "TMP");
    }
    return text;
  }
};

struct FakeGpu {
  std::string name;
  int mib;
};

// What nvidia-smi prints for `gpus`, as a script of echo lines: index, a UUID made from the
// index (GPU-0000000I-...), name, memory.
std::string echo_gpus(const std::vector<FakeGpu>& gpus) {
  std::string script;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    script += "echo '" + std::to_string(i) + ", GPU-" + std::string(7, '0') + std::to_string(i) +
              "-1111-2222-3333-444444444444, " + gpus[i].name + ", " + std::to_string(gpus[i].mib) +
              "'\n";
  }
  return script;
}

std::string tier_json(int gpus, int nodes, const std::string& gpu_gib,
                      const std::string& cpu_gib = "2015.58", int cpus = 224) {
  return "{\n  \"gpus_per_node\": " + std::to_string(gpus) +
         ",\n  \"nodes\": " + std::to_string(nodes) + ",\n  \"gpu_memory_gib\": " + gpu_gib +
         ",\n  \"cpu_memory_gib\": " + cpu_gib + ",\n  \"cpu_cores\": " + std::to_string(cpus) +
         "\n}\n";
}

TEST_F(ProbeCliTest, OneGpuIsATierOnStdoutAndASummaryOnStderr) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  auto r = probe();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(1, 1, "23.98"));
  EXPECT_EQ(err_of(r),
            "GPUs: 1 x NVIDIA GeForce RTX 4090 (24564 MiB = 23.98 GiB)\n"
            "host memory: 2015.58 GiB (MemTotal of TMP/meminfo)\n"
            "CPUs: 224 (TMP/cpuinfo)\n"
            "nodes: 1\n");
  // The same machine gives the same bytes.
  EXPECT_EQ(probe().out, r.out);
}

// A GPU's name comes from outside: terminal escape codes in it are shown, not obeyed.
TEST_F(ProbeCliTest, AGpuNameIsShownEscaped) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA\x1b]0;owned\x07 H100\x1b[2J", 81559}}));
  auto r = probe();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("GPUs: 1 x NVIDIA<U+001B>]0;owned<U+0007> H100<U+001B>[2J (81559 MiB = "
                       "79.64 GiB)\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST_F(ProbeCliTest, EightGpusOnFourNodesAsJsonOnly) {
  fake_nvidia_smi(echo_gpus(std::vector<FakeGpu>(8, {"NVIDIA H100 80GB HBM3", 81559})));
  auto r = probe({"--nodes", "4", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(8, 4, "79.64"));
  EXPECT_EQ(r.err, "");
  // As the shipped large tier says for its H100s (presets/tiers/large.json).
  const auto large =
      parse_json_text(read_file(test::source_dir() / "presets/tiers/large.json"), "large.json");
  EXPECT_EQ(parse_json_text(r.out, "probe")["gpu_memory_gib"], large["gpu_memory_gib"]);
}

TEST_F(ProbeCliTest, GibibytesAreRoundedDown) {
  struct Case {
    const char* mib;
    const char* gib;
  };
  for (const Case& c : {Case{"1023", "0.99"}, Case{"40960", "40.0"}, Case{"81920", "80.0"},
                        Case{"16303", "15.92"}, Case{"11", "0.01"}}) {
    SCOPED_TRACE(c.mib);
    fake_nvidia_smi(echo_gpus({{"Some GPU", std::stoi(c.mib)}}));
    auto r = probe({"--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, tier_json(1, 1, c.gib));
  }
}

TEST_F(ProbeCliTest, MixedGpusTakeTheSmallestAndWarn) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA A100-SXM4-80GB", 81920},
                             {"NVIDIA A100-SXM4-40GB", 40960},
                             {"NVIDIA A100-SXM4-80GB", 81920},
                             {"NVIDIA A100-SXM4-40GB", 40960}}));
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(4, 1, "40.0"));
  EXPECT_EQ(r.err,
            "zeroforge: warning: this machine mixes GPUs: 2 x NVIDIA A100-SXM4-80GB (81920 MiB = "
            "80.00 GiB), 2 x NVIDIA A100-SXM4-40GB (40960 MiB = 40.00 GiB); the tier takes the "
            "smallest, 40.00 GiB, for every GPU so that a config fits every rank (set "
            "gpus_per_node to the GPUs the job uses if it leaves some out) [probe.mixed-gpus]\n");
  // One model with two memory sizes is mixed too.
  fake_nvidia_smi(echo_gpus({{"NVIDIA L4", 23034}, {"NVIDIA L4", 22494}}));
  auto sizes = probe();
  EXPECT_EQ(sizes.exit_code, 0) << sizes.err;
  EXPECT_EQ(sizes.out, tier_json(2, 1, "21.96"));
  EXPECT_NE(sizes.err.find("mixes GPUs: 1 x NVIDIA L4 (23034 MiB = 22.49 GiB), 1 x NVIDIA L4 "
                           "(22494 MiB = 21.96 GiB)"),
            std::string::npos)
      << sizes.err;
  EXPECT_NE(sizes.err.find("GPUs: 2, counted as 21.96 GiB each\n"), std::string::npos);
}

TEST_F(ProbeCliTest, MalformedOutputNamesTheLineAndWhatWasExpected) {
  const std::string expected =
      ": expected 'INDEX, UUID, NAME, MEMORY' (memory.total in MiB, an integer from 1 to "
      "16777216, as `nvidia-smi --query-gpu=index,uuid,name,memory.total "
      "--format=csv,noheader,nounits` prints), got ";
  const std::string uuid = "GPU-5ae2b3c4-0d1e-2f3a-4b5c-6d7e8f9a0b1c";
  struct Case {
    std::string output;  // the lines nvidia-smi prints
    std::string error;
  };
  for (const Case& c : {
           Case{"0, " + uuid + ", NVIDIA H100, 81559\n1, " + uuid + ", NVIDIA H100, [N/A]",
                "line 2" + expected + "\"1, " + uuid + ", NVIDIA H100, [N/A]\" [usage.invalid]"},
           Case{"0, " + uuid + ", NVIDIA H100 81559",
                "line 1" + expected + "\"0, " + uuid + ", NVIDIA H100 81559\" [usage.invalid]"},
           Case{
               "0, " + uuid + ", NVIDIA H100, 81559 MiB",
               "line 1" + expected + "\"0, " + uuid + ", NVIDIA H100, 81559 MiB\" [usage.invalid]"},
           Case{"\n0, " + uuid + ", , 81559",
                "line 2" + expected + "\"0, " + uuid + ", , 81559\" [usage.invalid]"},
           Case{"0, " + uuid + ", NVIDIA H100, 0",
                "line 1" + expected + "\"0, " + uuid + ", NVIDIA H100, 0\" [usage.invalid]"},
           Case{"0, " + uuid + ", NVIDIA H100, -5",
                "line 1" + expected + "\"0, " + uuid + ", NVIDIA H100, -5\" [usage.invalid]"},
           // Beyond range: it was read, and the tier said -3.7e16 GiB with exit 0.
           Case{"0, " + uuid + ", NVIDIA H100, 9223372036854775807",
                "line 1" + expected + "\"0, " + uuid +
                    ", NVIDIA H100, 9223372036854775807\" [usage.invalid]"},
           Case{"0, " + uuid + ", NVIDIA H100, 16777217",
                "line 1" + expected + "\"0, " + uuid + ", NVIDIA H100, 16777217\" [usage.invalid]"},
           Case{"x, " + uuid + ", NVIDIA H100, 81559",
                "line 1" + expected + "\"x, " + uuid + ", NVIDIA H100, 81559\" [usage.invalid]"},
           Case{"0, , NVIDIA H100, 81559",
                "line 1" + expected + "\"0, , NVIDIA H100, 81559\" [usage.invalid]"},
           Case{"NVIDIA H100, 81559",
                "line 1" + expected + "\"NVIDIA H100, 81559\" [usage.invalid]"},
           Case{"index, uuid, name, memory.total [MiB]",
                "line 1" + expected + "\"index, uuid, name, memory.total [MiB]\" [usage.invalid]"},
       }) {
    SCOPED_TRACE(c.output);
    dir.write("nvidia-smi.out", c.output + "\n");
    fake_nvidia_smi("while IFS= read -r line; do echo \"$line\"; done < '" +
                    (dir.path() / "nvidia-smi.out").string() + "'\n");
    auto r = probe();
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "zeroforge: error: nvidia-smi output line " + c.error.substr(5) + "\n");
  }
}

// A figure that rounds to no memory at all would make a tier every command refuses.
TEST_F(ProbeCliTest, NeverWritesATierWithoutMemory) {
  fake_nvidia_smi(echo_gpus({{"A GPU with ten MiB", 10}}));
  auto r = probe({"--save", "tiny"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "zeroforge: error: nvidia-smi reports 10 MiB of memory for a GPU: less than 0.01 GiB, "
      "which a tier cannot describe; check the driver (run nvidia-smi yourself) [usage.invalid]\n");
  EXPECT_FALSE(fs::exists(dir.path() / "tiny.json"));
}

// A tier that claims no memory is refused wherever a tier is read, at its pointer.
TEST_F(ProbeCliTest, TiersWithoutMemoryAreRefusedWhereverTheyAreRead) {
  const std::string name = "tiers-probed-on-the-old-cluster/h100x8-misread.json";
  const fs::path tier = dir.write(name, R"({"gpus_per_node": 8, "nodes": 1,
      "gpu_memory_gib": -36893488147419103.0, "cpu_memory_gib": 2015.58})");
  dir.write("family.json", R"({"name": "f", "template": "deepspeed/zero3.json.j2",
      "tiers": [")" + name + R"("], "output": "{{ tier }}.json"})");
  const std::string message =
      tier.string() +
      ": /gpu_memory_gib: error: a tier's gpu_memory_gib must be a "
      "positive number of GiB (at most 1048576), got -3.6893488147419104e+16";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"render", "deepspeed/zero3.json.j2", "--tier", tier.string()},
        {"explain", "deepspeed/zero3.json.j2", "--tier", tier.string()},
        {"generate", (dir.path() / "family.json").string(), "-o", (dir.path() / "out").string()},
        {"report", (dir.path() / "family.json").string(), "-o",
         (dir.path() / "r.html").string()}}) {
    SCOPED_TRACE(args[0]);
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  for (const char* bad : {"0", "-1", "\"80\"", "true", "2000000"}) {
    SCOPED_TRACE(bad);
    dir.write(name, std::string(R"({"gpus_per_node": 8, "cpu_memory_gib": )") + bad + "}");
    auto r = run_cli({"render", "deepspeed/zero3.json.j2", "--tier", tier.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(tier.string() + ": /cpu_memory_gib: error: a tier's cpu_memory_gib must "
                                         "be a positive number of GiB (at most 1048576), got "),
              std::string::npos)
        << r.err;
  }
}

// nvidia-smi that hangs is killed at the timeout (default 60 s; --timeout, or
// ZEROFORGE_PROBE_TIMEOUT), and with it what it started; it hung probe forever before.
TEST_F(ProbeCliTest, ANvidiaSmiThatHangsIsKilledAtTheTimeout) {
  provide("sleep");
  fake_nvidia_smi("sleep 600 &\necho $! > '" + (dir.path() / "child.pid").string() +
                  "'\nsleep 600\n");
  const auto start = std::chrono::steady_clock::now();
  auto r = probe({"--timeout", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(err_of(r),
            "zeroforge: error: TMP/bin/nvidia-smi did not answer within 1 second: check the "
            "driver (run nvidia-smi yourself), give it longer (--timeout SECONDS or "
            "ZEROFORGE_PROBE_TIMEOUT), or on a machine without NVIDIA GPUs, copy a tier from "
            "presets/tiers/ and edit it [usage.invalid]\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // What it started is gone too.
  const pid_t child = std::stoi(read_file(dir.path() / "child.pid"));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    // Gone, or a zombie waiting for whoever adopted it.
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    gone = !stat || text.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "pid " << child;

  auto env = probe({}, {"ZEROFORGE_PROBE_TIMEOUT=2"});
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_NE(env.err.find("did not answer within 2 seconds"), std::string::npos) << env.err;
}

// A child nvidia-smi leaves behind holding its stdout does not keep probe waiting: the answer
// is complete when nvidia-smi has exited.
TEST_F(ProbeCliTest, AChildLeftHoldingStdoutDoesNotKeepProbeWaiting) {
  provide("sleep");
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}) + "sleep 600 &\nexit 0\n");
  const auto start = std::chrono::steady_clock::now();
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(1, 1, "23.98"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// Endless output stops at 1 MiB (1 GiB of it ended in bad_alloc).
TEST_F(ProbeCliTest, EndlessOutputStopsAtTheOutputLimit) {
  provide("cat");
  fake_nvidia_smi("cat /dev/zero\n");
  auto r = probe();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(err_of(r),
            "zeroforge: error: TMP/bin/nvidia-smi printed more than 1 MiB, far more than a line "
            "per GPU: it is not the nvidia-smi probe expects; on a machine without NVIDIA GPUs, "
            "copy a tier from presets/tiers/ and edit it [usage.invalid]\n");
}

TEST_F(ProbeCliTest, TheTimeoutMustBeWholeSecondsInRange) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  EXPECT_EQ(probe({"--timeout", "0"}).err,
            "zeroforge: error: probe: --timeout must be a whole number from 1 to 86400, got 0 "
            "[usage.invalid]\n");
  EXPECT_EQ(probe({"--timeout", "-5"}).err,
            "zeroforge: error: probe: --timeout must be a whole number from 1 to 86400, got -5 "
            "[usage.invalid]\n");
  for (const char* bad : {"", "0", "abc", "1.5", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    auto r = probe({}, {std::string("ZEROFORGE_PROBE_TIMEOUT=") + bad});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, std::string("zeroforge: error: ZEROFORGE_PROBE_TIMEOUT='") + bad +
                         "' must be a whole number from 1 to 86400 (the seconds probe waits for "
                         "nvidia-smi; 60 when unset) [usage.invalid]\n");
  }
  // The option wins over the environment.
  EXPECT_EQ(probe({"--timeout", "5"}, {"ZEROFORGE_PROBE_TIMEOUT=abc"}).exit_code, 0);
}

// CUDA_VISIBLE_DEVICES as CUDA reads it: nvidia-smi indices or GPU UUIDs (a unique prefix is
// enough), in order, cut at the first entry that names no GPU.
TEST_F(ProbeCliTest, CountsOnlyTheGpusCudaVisibleDevicesNames) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA A100-SXM4-80GB", 81920},
                             {"NVIDIA A100-SXM4-80GB", 81920},
                             {"NVIDIA A100-SXM4-40GB", 40960},
                             {"NVIDIA A100-SXM4-80GB", 81920}}));
  struct Case {
    std::string visible;
    int gpus;
    std::string gib;
    std::string warning;  // "" = none
  };
  const std::string mixed =
      "zeroforge: warning: CUDA_VISIBLE_DEVICES='%' gives indices on a machine with different "
      "GPUs: probe reads them as nvidia-smi numbers its GPUs (by PCI bus), as CUDA does only "
      "with CUDA_DEVICE_ORDER=PCI_BUS_ID; name the GPUs by UUID to be sure "
      "[probe.cuda-visible-order]\n";
  auto with = [](std::string text, const std::string& visible) {
    text.replace(text.find('%'), 1, visible);
    return text;
  };
  const std::vector<Case> cases = {
      {"0,1,3", 3, "80.0", with(mixed, "0,1,3")},
      {"3", 1, "80.0", with(mixed, "3")},
      {"0,2", 2, "40.0",
       with(mixed, "0,2") +
           "zeroforge: warning: the GPUs CUDA_VISIBLE_DEVICES names mix: 1 x NVIDIA "
           "A100-SXM4-80GB (81920 MiB = 80.00 GiB), 1 x NVIDIA A100-SXM4-40GB (40960 MiB = 40.00 "
           "GiB); the tier takes the smallest, 40.00 GiB, for every GPU so that a config fits "
           "every rank (set gpus_per_node to the GPUs the job uses if it leaves some out) "
           "[probe.mixed-gpus]\n"},
      {"GPU-00000003,GPU-00000001-1111-2222-3333-444444444444", 2, "80.0", ""},
      {"GPU-00000001, GPU-00000000", 2, "80.0", ""},
      {"1,7,0", 1, "80.0",
       "zeroforge: warning: CUDA_VISIBLE_DEVICES='1,7,0': '7' names no GPU of this machine "
       "(nvidia-smi indices 0-3, or a GPU-UUID prefix naming one GPU), and CUDA ignores it and "
       "every entry after it [probe.cuda-visible-ignored]\n" +
           with(mixed, "1,7,0")},
      {"GPU-0000000,GPU-00000002",  // the prefix of every UUID names none of them
       0, "", ""},
      {"GPU-,GPU-00000002", 0, "", ""},  // nor does "GPU-" alone (CUDA 13 agrees)
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.visible);
    auto r = probe({"--format", "json"}, {"CUDA_VISIBLE_DEVICES=" + c.visible});
    if (c.gpus == 0) {
      EXPECT_EQ(r.exit_code, 2);
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, tier_json(c.gpus, 1, c.gib));
    EXPECT_EQ(r.err, c.warning);
  }
  // Indices mean what CUDA takes them to mean when it numbers GPUs by PCI bus.
  auto ordered =
      probe({"--format", "json"}, {"CUDA_VISIBLE_DEVICES=0,1", "CUDA_DEVICE_ORDER=PCI_BUS_ID"});
  EXPECT_EQ(ordered.out, tier_json(2, 1, "80.0"));
  EXPECT_EQ(ordered.err, "");
  // The summary says what was counted.
  auto summary = probe({}, {"CUDA_VISIBLE_DEVICES=GPU-00000003,GPU-00000000"});
  EXPECT_NE(summary.err.find("GPUs: 2 x NVIDIA A100-SXM4-80GB (81920 MiB = 80.00 GiB)\n"
                             "CUDA_VISIBLE_DEVICES=GPU-00000003,GPU-00000000: 2 of the 4 GPUs "
                             "nvidia-smi lists\n"),
            std::string::npos)
      << summary.err;
}

TEST_F(ProbeCliTest, CudaVisibleDevicesThatLeavesNoGpuOrRepeatsOneIsAnError) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA H100 80GB HBM3", 81559}, {"NVIDIA H100 80GB HBM3", 81559}}));
  struct Case {
    std::string visible;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"",
       "zeroforge: error: CUDA_VISIBLE_DEVICES='' leaves no GPU visible to CUDA: unset it, or "
       "name the GPUs a job uses (nvidia-smi indices or GPU UUIDs) [usage.invalid]\n"},
      {"-1",
       "zeroforge: warning: CUDA_VISIBLE_DEVICES='-1': '-1' names no GPU of this machine "
       "(nvidia-smi indices 0-1, or a GPU-UUID prefix naming one GPU), and CUDA ignores it and "
       "every entry after it [probe.cuda-visible-ignored]\nzeroforge: error: "
       "CUDA_VISIBLE_DEVICES='-1' leaves no GPU visible "
       "to CUDA: unset it, or name the GPUs a job uses (nvidia-smi indices or GPU UUIDs) "
       "[usage.invalid]\n"},
      {"1,GPU-00000001",
       "zeroforge: error: CUDA_VISIBLE_DEVICES='1,GPU-00000001' names GPU 1 "
       "(GPU-00000001-1111-2222-3333-444444444444) twice; name each GPU once [usage.invalid]\n"},
      {"MIG-GPU-00000000-1111-2222-3333-444444444444/1/0",
       "zeroforge: error: CUDA_VISIBLE_DEVICES='MIG-GPU-00000000-1111-2222-3333-444444444444/1/0' "
       "names a MIG instance ('MIG-GPU-00000000-1111-2222-3333-444444444444/1/0'): probe measures "
       "whole GPUs (nvidia-smi's memory.total), not MIG slices; write the tier by hand with the "
       "slice's memory [usage.invalid]\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.visible);
    auto r = probe({"--save", "t"}, {"CUDA_VISIBLE_DEVICES=" + c.visible});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, c.err);
    EXPECT_FALSE(fs::exists(dir.path() / "t.json"));
  }
}

TEST_F(ProbeCliTest, NoGpuIsAnError) {
  fake_nvidia_smi("exit 0\n");
  auto r = probe();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "zeroforge: error: nvidia-smi lists no GPU: check that the driver sees them "
            "(`nvidia-smi -L`), or on a machine without NVIDIA GPUs, copy a tier from "
            "presets/tiers/ and edit it [usage.invalid]\n");
}

TEST_F(ProbeCliTest, AFailingNvidiaSmiPassesOnWhatItSaid) {
  fake_nvidia_smi(
      "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" "
      ">&2\necho 'second line' >&2\nexit 9\n");
  auto r = probe();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(err_of(r),
            "zeroforge: error: TMP/bin/nvidia-smi exited with 9: \"NVIDIA-SMI has failed because "
            "it couldn't communicate with the NVIDIA driver.\"; fix the driver until `nvidia-smi` "
            "runs, or on a machine without NVIDIA GPUs, copy a tier from presets/tiers/ and edit "
            "it [usage.invalid]\n");
  // nvidia-smi prints some failures on stdout.
  fake_nvidia_smi("echo 'No devices were found'\nexit 6\n");
  auto none = probe();
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(err_of(none).find("TMP/bin/nvidia-smi exited with 6: \"No devices were found\";"),
            std::string::npos)
      << none.err;
}

TEST_F(ProbeCliTest, NoNvidiaSmiOnPathIsAnError) {
  auto r = probe();  // bin/ is empty
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "zeroforge: error: nvidia-smi not found on PATH: install the NVIDIA driver (it ships "
            "nvidia-smi) or add the directory that holds nvidia-smi to PATH; on a machine without "
            "NVIDIA GPUs, copy a tier from presets/tiers/ and edit it [usage.invalid]\n");
  // A file that is not executable is not a program.
  dir.write("bin/nvidia-smi", "#!/bin/sh\n" + echo_gpus({{"GPU", 1024}}));
  EXPECT_EQ(probe().err, r.err);
}

TEST_F(ProbeCliTest, HostMemoryComesFromMemTotal) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  dir.write("meminfo", "MemFree: 1 kB\nMemTotal:       131891256 kB\n");
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(1, 1, "23.98", "125.78"));
  dir.write("meminfo", "MemFree: 1 kB\n");
  auto missing = probe();
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(err_of(missing),
            "zeroforge: error: TMP/meminfo: expected a line 'MemTotal: N kB' [io.failed]\n");
}

// The node's CPUs: one per `processor` entry, hardware threads counted, as SLURM counts CPUs.
TEST_F(ProbeCliTest, CpusAreTheProcessorEntriesOfCpuinfo) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  struct Case {
    const char* name;
    std::string cpuinfo;
    int cpus;
  };
  const Case cases[] = {
      {"x86", cpuinfo(32), 32},
      {"one CPU", cpuinfo(1), 1},
      {"arm64 (no model name line)",
       "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\n"
       "BogoMIPS\t: 50.00\n\nprocessor\t: 2\nBogoMIPS\t: 50.00\n",
       3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    dir.write("cpuinfo", c.cpuinfo);
    auto r = probe({"--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, tier_json(1, 1, "23.98", "2015.58", c.cpus));
  }
  // A file with no processor entries: the CPUs glibc counts on this machine (configured ones).
  dir.write("cpuinfo", "processors_note\t: none\n");
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            tier_json(1, 1, "23.98", "2015.58", static_cast<int>(sysconf(_SC_NPROCESSORS_CONF))));
}

// A tier's CPUs are a count: anything else is refused wherever the tier is read.
TEST_F(ProbeCliTest, TiersWithoutAWholeCpuCountAreRefused) {
  const fs::path tier = dir.write("tiers/odd.json", "{}");
  for (const char* bad : {"0", "-8", "2.5", "\"224\"", "true", "1000001", "null"}) {
    SCOPED_TRACE(bad);
    dir.write("tiers/odd.json", std::string(R"({"gpus_per_node": 8, "cpu_cores": )") + bad + "}");
    auto r = run_cli({"render", "deepspeed/zero3.json.j2", "--tier", tier.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(tier.string() +
                         ": /cpu_cores: error: a tier's cpu_cores must be a whole number of CPUs "
                         "per node, 1 to 1000000, got " +
                         bad),
              std::string::npos)
        << r.err;
  }
  dir.write("tiers/odd.json", R"({"gpus_per_node": 8, "cpu_cores": 1000000})");
  auto r = run_cli({"render", "deepspeed/zero3.json.j2", "--tier", tier.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "a tier fact, not an unread value";
}

TEST_F(ProbeCliTest, SaveWritesATierThatRenderAccepts) {
  fake_nvidia_smi(echo_gpus(std::vector<FakeGpu>(8, {"NVIDIA H100 80GB HBM3", 81559})));
  auto r = probe({"--save", "h100x8", "--dir", "tiers", "--nodes", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(err_of(r),
            "GPUs: 8 x NVIDIA H100 80GB HBM3 (81559 MiB = 79.64 GiB)\n"
            "host memory: 2015.58 GiB (MemTotal of TMP/meminfo)\n"
            "CPUs: 224 (TMP/cpuinfo)\n"
            "nodes: 2 (each taken to be like this one)\n"
            "saved tiers/h100x8.json: use it with --tier tiers/h100x8.json\n");
  const fs::path saved = dir.path() / "tiers" / "h100x8.json";
  ASSERT_TRUE(fs::is_regular_file(saved));
  EXPECT_EQ(read_file(saved), tier_json(8, 2, "79.64"));
  // Nothing but the tier is left in the directory (the write went through a temporary file).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "tiers"), fs::directory_iterator()),
            1);

  auto render = run_cli({"render", "deepspeed/zero3.json.j2", "--tier", saved.string()});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(render.err, "");
  const auto config = parse_json_text(render.out, "render");
  EXPECT_EQ(config["zero_optimization"]["stage"], 3);
  // 16 GPUs: train_batch_size = micro x accumulation x world size.
  EXPECT_EQ(config["train_batch_size"].get<int>(),
            config["train_micro_batch_size_per_gpu"].get<int>() *
                config["gradient_accumulation_steps"].get<int>() * 16);
  // The name may carry its .json already, and --dir defaults to the current directory.
  auto plain = probe({"--save", "mine.json", "--format", "json"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
  EXPECT_EQ(read_file(dir.path() / "mine.json"), tier_json(8, 1, "79.64"));
  auto relative = run_cli({"render", "deepspeed/zero3.json.j2", "--tier", "mine.json"}, dir.path());
  EXPECT_EQ(relative.exit_code, 0) << relative.err;
}

TEST_F(ProbeCliTest, SaveRefusesAnythingButAPlainFileName) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  const std::vector<std::string> names{"../up", "a/b",       "/etc/passwd",
                                       "",      ".hidden",   "-x",
                                       "a b",   "tab\there", std::string(250, 'n')};
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto r = probe({"--save", name});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("is not a plain file name (letters, digits, '.', '_', '-'; not starting "
                         "with '.' or '-'): give the directory with --dir [usage.invalid]\n"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(probe({"--save", "../up"}).err,
            "zeroforge: error: probe: --save \"../up\" is not a plain file name (letters, digits, "
            "'.', '_', '-'; not starting with '.' or '-'): give the directory with --dir "
            "[usage.invalid]\n");
  // Only the meminfo and cpuinfo files and bin/ are there: nothing was written.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 3);
}

TEST_F(ProbeCliTest, BadOptionsAreUsageErrors) {
  fake_nvidia_smi(echo_gpus({{"NVIDIA GeForce RTX 4090", 24564}}));
  EXPECT_EQ(probe({"--nodes", "0"}).err,
            "zeroforge: error: probe: --nodes must be a whole number from 1 to 1000000, got 0 "
            "[usage.invalid]\n");
  EXPECT_EQ(probe({"--format", "yaml"}).err,
            "zeroforge: error: probe: --format must be text or json, not 'yaml' [usage.invalid]\n");
  EXPECT_EQ(probe({"--dir", "x"}).err,
            "zeroforge: error: probe: --dir is where --save writes; give --save NAME too "
            "[usage.invalid]\n");
  auto stray = probe({"extra"});
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_EQ(stray.err,
            "zeroforge probe: error: too many positional options have been specified on the "
            "command line [usage.invalid]\nRun 'zeroforge probe --help' for usage.\n");
  EXPECT_EQ(probe({"--nodes", "two"}).exit_code, 2);
}

}  // namespace
}  // namespace zf
