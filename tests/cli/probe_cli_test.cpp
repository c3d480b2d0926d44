// SPDX-License-Identifier: MIT
// `zeroforge probe` through the real executable, with a fake nvidia-smi first (and alone) on
// PATH and a fake /proc/meminfo (ZEROFORGE_MEMINFO): the tier it prints or saves, its summary,
// its warnings and its errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
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

class ProbeCliTest : public ::testing::Test {
 protected:
  TempDir dir;
  fs::path bin = dir.path() / "bin";

  void SetUp() override {
    fs::create_directories(bin);
    dir.write("meminfo", kMeminfo);
  }

  // A nvidia-smi that checks it was asked the documented query and then runs `body`. PATH
  // holds only `bin`, so the script uses shell builtins alone.
  void fake_nvidia_smi(const std::string& body) {
    const fs::path script = dir.write(
        "bin/nvidia-smi",
        "#!/bin/sh\n"
        "if [ \"$1 $2\" != \"--query-gpu=name,memory.total --format=csv,noheader,nounits\" ]; "
        "then\n  echo \"unexpected arguments: $*\" >&2\n  exit 3\nfi\n" +
            body);
    fs::permissions(script, fs::perms::owner_all);
  }

  std::vector<std::string> env() const {
    return {"PATH=" + bin.string(), "ZEROFORGE_MEMINFO=" + (dir.path() / "meminfo").string()};
  }

  test::CliResult probe(const std::vector<std::string>& args = {}) {
    std::vector<std::string> all{"probe"};
    all.insert(all.end(), args.begin(), args.end());
    return run_cli(all, dir.path(), env());
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

std::string tier_json(int gpus, int nodes, const std::string& gpu_gib,
                      const std::string& cpu_gib = "2015.58") {
  return "{\n  \"gpus_per_node\": " + std::to_string(gpus) +
         ",\n  \"nodes\": " + std::to_string(nodes) + ",\n  \"gpu_memory_gib\": " + gpu_gib +
         ",\n  \"cpu_memory_gib\": " + cpu_gib + "\n}\n";
}

TEST_F(ProbeCliTest, OneGpuIsATierOnStdoutAndASummaryOnStderr) {
  fake_nvidia_smi("echo 'NVIDIA GeForce RTX 4090, 24564'\n");
  auto r = probe();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(1, 1, "23.98"));
  EXPECT_EQ(err_of(r),
            "GPUs: 1 x NVIDIA GeForce RTX 4090 (24564 MiB = 23.98 GiB)\n"
            "host memory: 2015.58 GiB (MemTotal of TMP/meminfo)\n"
            "nodes: 1\n");
  // The same machine gives the same bytes.
  EXPECT_EQ(probe().out, r.out);
}

TEST_F(ProbeCliTest, EightGpusOnFourNodesAsJsonOnly) {
  fake_nvidia_smi(
      "i=0\nwhile [ $i -lt 8 ]; do\n  echo 'NVIDIA H100 80GB HBM3, 81559'\n  i=$((i + 1))\n"
      "done\n");
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
                        Case{"16303", "15.92"}, Case{"1", "0.0"}}) {
    SCOPED_TRACE(c.mib);
    fake_nvidia_smi(std::string("echo 'Some GPU, ") + c.mib + "'\n");
    auto r = probe({"--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, tier_json(1, 1, c.gib));
  }
}

TEST_F(ProbeCliTest, MixedGpusTakeTheSmallestAndWarn) {
  fake_nvidia_smi(
      "echo 'NVIDIA A100-SXM4-80GB, 81920'\necho 'NVIDIA A100-SXM4-40GB, 40960'\n"
      "echo 'NVIDIA A100-SXM4-80GB, 81920'\necho 'NVIDIA A100-SXM4-40GB, 40960'\n");
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(4, 1, "40.0"));
  EXPECT_EQ(r.err,
            "zeroforge: warning: this machine mixes GPUs: 2 x NVIDIA A100-SXM4-80GB (81920 MiB = "
            "80.00 GiB), 2 x NVIDIA A100-SXM4-40GB (40960 MiB = 40.00 GiB); the tier takes the "
            "smallest, 40.00 GiB, for every GPU so that a config fits every rank (set "
            "gpus_per_node to the GPUs the job uses if it leaves some out)\n");
  // One model with two memory sizes is mixed too.
  fake_nvidia_smi("echo 'NVIDIA L4, 23034'\necho 'NVIDIA L4, 22494'\n");
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
      ": expected 'NAME, MEMORY' (memory.total in MiB, a positive integer, as `nvidia-smi "
      "--query-gpu=name,memory.total --format=csv,noheader,nounits` prints), got ";
  struct Case {
    const char* output;
    std::string error;
  };
  for (const Case& c : {
           Case{"echo 'NVIDIA H100, 81559'\necho 'NVIDIA H100, [N/A]'\n",
                "line 2" + expected + "\"NVIDIA H100, [N/A]\""},
           Case{"echo 'NVIDIA H100 81559'\n", "line 1" + expected + "\"NVIDIA H100 81559\""},
           Case{"echo 'NVIDIA H100, 81559 MiB'\n",
                "line 1" + expected + "\"NVIDIA H100, 81559 MiB\""},
           Case{"echo\necho ', 81559'\n", "line 2" + expected + "\", 81559\""},
           Case{"echo 'NVIDIA H100, 0'\n", "line 1" + expected + "\"NVIDIA H100, 0\""},
           Case{"echo 'NVIDIA H100, -5'\n", "line 1" + expected + "\"NVIDIA H100, -5\""},
           Case{"echo 'name, memory.total [MiB]'\n",
                "line 1" + expected + "\"name, memory.total [MiB]\""},
       }) {
    SCOPED_TRACE(c.output);
    fake_nvidia_smi(c.output);
    auto r = probe();
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "zeroforge: error: nvidia-smi output line " + c.error.substr(5) + "\n");
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
            "presets/tiers/ and edit it\n");
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
            "it\n");
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
            "NVIDIA GPUs, copy a tier from presets/tiers/ and edit it\n");
  // A file that is not executable is not a program.
  dir.write("bin/nvidia-smi", "#!/bin/sh\necho 'GPU, 1024'\n");
  EXPECT_EQ(probe().err, r.err);
}

TEST_F(ProbeCliTest, HostMemoryComesFromMemTotal) {
  fake_nvidia_smi("echo 'NVIDIA GeForce RTX 4090, 24564'\n");
  dir.write("meminfo", "MemFree: 1 kB\nMemTotal:       131891256 kB\n");
  auto r = probe({"--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tier_json(1, 1, "23.98", "125.78"));
  dir.write("meminfo", "MemFree: 1 kB\n");
  auto missing = probe();
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(err_of(missing), "zeroforge: error: TMP/meminfo: expected a line 'MemTotal: N kB'\n");
}

TEST_F(ProbeCliTest, SaveWritesATierThatRenderAccepts) {
  fake_nvidia_smi(
      "i=0\nwhile [ $i -lt 8 ]; do\n  echo 'NVIDIA H100 80GB HBM3, 81559'\n  i=$((i + 1))\n"
      "done\n");
  auto r = probe({"--save", "h100x8", "--dir", "tiers", "--nodes", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(err_of(r),
            "GPUs: 8 x NVIDIA H100 80GB HBM3 (81559 MiB = 79.64 GiB)\n"
            "host memory: 2015.58 GiB (MemTotal of TMP/meminfo)\n"
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
  fake_nvidia_smi("echo 'NVIDIA GeForce RTX 4090, 24564'\n");
  const std::vector<std::string> names{"../up", "a/b",       "/etc/passwd",
                                       "",      ".hidden",   "-x",
                                       "a b",   "tab\there", std::string(250, 'n')};
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto r = probe({"--save", name});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("is not a plain file name (letters, digits, '.', '_', '-'; not starting "
                         "with '.' or '-'): give the directory with --dir\n"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(probe({"--save", "../up"}).err,
            "zeroforge: error: probe: --save \"../up\" is not a plain file name (letters, digits, "
            "'.', '_', '-'; not starting with '.' or '-'): give the directory with --dir\n");
  // Only the meminfo file and bin/ are there: nothing was written.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
}

TEST_F(ProbeCliTest, BadOptionsAreUsageErrors) {
  fake_nvidia_smi("echo 'NVIDIA GeForce RTX 4090, 24564'\n");
  EXPECT_EQ(probe({"--nodes", "0"}).err,
            "zeroforge: error: probe: --nodes must be an integer from 1 to 1000000, not 0\n");
  EXPECT_EQ(probe({"--format", "yaml"}).err,
            "zeroforge: error: probe: --format must be text or json, not 'yaml'\n");
  EXPECT_EQ(probe({"--dir", "x"}).err,
            "zeroforge: error: probe: --dir is where --save writes; give --save NAME too\n");
  auto stray = probe({"extra"});
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_EQ(stray.err,
            "zeroforge probe: error: too many positional options have been specified on the "
            "command line\nRun 'zeroforge probe --help' for usage.\n");
  EXPECT_EQ(probe({"--nodes", "two"}).exit_code, 2);
}

}  // namespace
}  // namespace zf
