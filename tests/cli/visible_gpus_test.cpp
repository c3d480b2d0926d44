// SPDX-License-Identifier: MIT
// What probe warns about the GPUs a job would see (visible_gpus.hpp): each warning a
// diagnostic with its own code (docs/cli.md, "Diagnostic codes") and the exact line the CLI
// prints, for GPUs with names and UUIDs as long as real ones.
#include "visible_gpus.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace zf::cli {
namespace {

Gpu gpu(int index, std::string name, std::int64_t mib) {
  return {index, "GPU-0000000" + std::to_string(index) + "-1111-2222-3333-444444444444",
          std::move(name), mib};
}

const std::string k80 = "NVIDIA A100-SXM4-80GB";
const std::string k40 = "NVIDIA A100-SXM4-40GB";

struct Expected {
  std::string code;
  std::string line;
};

void expect_warnings(const std::vector<Diagnostic>& got, const std::vector<Expected>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(expected[i].code);
    EXPECT_EQ(got[i].code, expected[i].code);
    EXPECT_EQ(got[i].severity, Severity::Warning);
    EXPECT_EQ(got[i].kind, ErrorKind::Usage);
    EXPECT_TRUE(got[i].where.file.empty()) << "printed as zeroforge: warning: ...";
    EXPECT_EQ(to_string(got[i]), expected[i].line);
  }
}

TEST(VisibleGpusTest, EachCudaVisibleDevicesWarningHasItsCode) {
  const std::vector<Gpu> mixed = {gpu(0, k80, 81920), gpu(1, k80, 81920), gpu(2, k40, 40960),
                                  gpu(3, k80, 81920)};
  const std::string ignored_1_7 =
      "zeroforge: warning: CUDA_VISIBLE_DEVICES='1,7,0': '7' names no GPU of this machine "
      "(nvidia-smi indices 0-3, or a GPU-UUID prefix naming one GPU), and CUDA ignores it and "
      "every entry after it";
  auto order = [](const std::string& value) {
    return "zeroforge: warning: CUDA_VISIBLE_DEVICES='" + value +
           "' gives indices on a machine with different GPUs: probe reads them as nvidia-smi "
           "numbers its GPUs (by PCI bus), as CUDA does only with CUDA_DEVICE_ORDER=PCI_BUS_ID; "
           "name the GPUs by UUID to be sure";
  };
  struct Case {
    std::string visible;
    const char* device_order;
    std::vector<Expected> warnings;
  };
  const std::vector<Case> cases = {
      {"0,1,3", nullptr, {{"probe.cuda-visible-order", order("0,1,3")}}},
      {"0,1,3", "PCI_BUS_ID", {}},
      {"1,7,0",
       nullptr,
       {{"probe.cuda-visible-ignored", ignored_1_7}, {"probe.cuda-visible-order", order("1,7,0")}}},
      {"GPU-00000003-1111-2222-3333-444444444444,GPU-00000001", nullptr, {}},
      {"GPU-00000002-1111-2222-3333-444444444444,GPU-9",
       nullptr,
       {{"probe.cuda-visible-ignored",
         "zeroforge: warning: CUDA_VISIBLE_DEVICES='GPU-00000002-1111-2222-3333-444444444444,"
         "GPU-9': 'GPU-9' names no GPU of this machine (nvidia-smi indices 0-3, or a GPU-UUID "
         "prefix naming one GPU), and CUDA ignores it and every entry after it"}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.visible);
    VisibleGpus visible = visible_gpus(mixed, c.visible.c_str(), c.device_order);
    expect_warnings(visible.warnings, c.warnings);
    EXPECT_TRUE(visible.none_left.empty());
  }
}

TEST(VisibleGpusTest, MixedGpusAreOneWarningWithItsCode) {
  const std::string tail =
      " GiB, for every GPU so that a config fits every rank (set gpus_per_node to the GPUs the "
      "job uses if it leaves some out)";
  struct Case {
    std::string name;
    std::vector<Gpu> gpus;
    bool named_by_variable;
    std::optional<std::string> line;  // nullopt: all alike, no warning
  };
  const std::vector<Case> cases = {
      {"alike", {gpu(0, k80, 81920), gpu(1, k80, 81920)}, false, std::nullopt},
      {"one GPU", {gpu(0, "NVIDIA H100 80GB HBM3", 81559)}, true, std::nullopt},
      {"two models",
       {gpu(0, k80, 81920), gpu(1, k40, 40960), gpu(2, k80, 81920), gpu(3, k40, 40960)},
       false,
       "zeroforge: warning: this machine mixes GPUs: 2 x NVIDIA A100-SXM4-80GB (81920 MiB = "
       "80.00 GiB), 2 x NVIDIA A100-SXM4-40GB (40960 MiB = 40.00 GiB); the tier takes the "
       "smallest, 40.00" +
           tail},
      {"one model, two sizes, named by CUDA_VISIBLE_DEVICES",
       {gpu(0, "NVIDIA L4", 23034), gpu(1, "NVIDIA L4", 22494)},
       true,
       "zeroforge: warning: the GPUs CUDA_VISIBLE_DEVICES names mix: 1 x NVIDIA L4 (23034 MiB = "
       "22.49 GiB), 1 x NVIDIA L4 (22494 MiB = 21.96 GiB); the tier takes the smallest, 21.96" +
           tail},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::optional<Diagnostic> got = mixed_gpus_warning(c.gpus, c.named_by_variable);
    ASSERT_EQ(got.has_value(), c.line.has_value());
    if (!got) continue;
    EXPECT_EQ(got->code, "probe.mixed-gpus");
    EXPECT_EQ(got->severity, Severity::Warning);
    EXPECT_EQ(to_string(*got), *c.line);
  }
}

}  // namespace
}  // namespace zf::cli
