// SPDX-License-Identifier: MIT
// The JSON Schema for editors: its shape, and (with Python's jsonschema package, skipped when
// absent) its verdicts on the peer configs, the valid samples and rendered outputs.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "support/cli_runner.hpp"
#include "support/oracle.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

fs::path source(const std::string& relative) { return fs::path(ZF_SOURCE_DIR) / relative; }

TEST(SchemaJsonTest, IsDraft2020WithStrictPydanticSections) {
  json schema = zf::deepspeed_json_schema();
  EXPECT_EQ(schema.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema.at("additionalProperties"), true);  // DeepSpeed ignores unknown top-level keys
  const json& zero = schema.at("properties").at("zero_optimization").at("anyOf").at(0);
  EXPECT_EQ(zero.at("additionalProperties"), false);
  // accelerate fills an "auto" device on the Trainer's path: the enum, or "auto".
  const json& device = zero.at("properties").at("offload_param").at("properties").at("device");
  EXPECT_EQ(device.at("anyOf").at(0).at("enum"), json::parse(R"(["none", "cpu", "nvme"])"));
  EXPECT_EQ(device.at("anyOf").at(1), json::parse(R"({"const": "auto"})"));
  EXPECT_NE(device.at("description").get<std::string>().find("filled by accelerate"),
            std::string::npos);
  // "auto" only where the HF Trainer fills it: yes for bf16.enabled, no for the legacy bfloat16.
  EXPECT_TRUE(schema.at("properties").at("bf16").at("properties").at("enabled").contains("anyOf"));
  EXPECT_FALSE(
      schema.at("properties").at("bfloat16").at("properties").at("enabled").contains("anyOf"));
  EXPECT_EQ(schema.at("properties").size(),
            zf::deepspeed_schema_data_at().at("root").at("keys").size());
  EXPECT_EQ(schema.at("x-deepspeed-version"), zf::deepspeed_versions().back());
}

// An older release's schema: the keys it lacks are left out (so forbidden where its models
// forbid extras), sections it read with .get allow anything, defaults are its own.
TEST(SchemaJsonTest, DescribesTheReleaseAsked) {
  const json old = zf::deepspeed_json_schema("0.14.5");
  EXPECT_EQ(old.at("x-deepspeed-version"), "0.14.5");
  EXPECT_EQ(old.at("x-deepspeed-commit"), "eb07d41f959bda6c76b106c1c1c40493720b2fb8");
  const json& zero = old.at("properties").at("zero_optimization").at("anyOf").at(0);
  EXPECT_FALSE(zero.at("properties").contains("log_trace_cache_warnings"));
  EXPECT_TRUE(zero.at("properties").contains("stage3_use_all_reduce_for_fetch_params"));
  EXPECT_EQ(zero.at("additionalProperties"), false);
  EXPECT_FALSE(
      zero.at("properties").at("offload_optimizer").at("properties").contains("super_offload"));
  EXPECT_EQ(old.at("properties").at("fp16").at("additionalProperties"), true);  // .get until 0.17.1
  // 1.0 from 0.19.3 on (the HF Trainer fills it: "auto" is the other choice)
  EXPECT_EQ(old.at("properties").at("gradient_clipping").at("anyOf").at(0).at("default"), 0.0);
  EXPECT_FALSE(old.at("properties").contains("gradient_allreduce_op"));
  EXPECT_TRUE(old.at("properties").contains("quantize_training"));  // read in every release
  const json newest = zf::deepspeed_json_schema();
  EXPECT_EQ(newest.at("properties").at("fp16").at("additionalProperties"), false);
  EXPECT_FALSE(newest.at("properties").contains("eigenvalue"));
}

// Runs Python's jsonschema over `files`; returns file -> "valid"/"invalid", or nothing when
// python3 or the package is missing.
std::optional<std::map<std::string, std::string>> python_verdicts(
    const fs::path& schema, const std::vector<fs::path>& files) {
  zf::test::TempDir dir;
  fs::path script =
      dir.write("check.py",
                "import json, sys\n"
                "try:\n    import jsonschema\nexcept ImportError:\n    print('SKIP'); sys.exit(0)\n"
                "schema = json.load(open(sys.argv[1]))\n"
                "jsonschema.Draft202012Validator.check_schema(schema)\n"
                "v = jsonschema.Draft202012Validator(schema)\n"
                "for p in sys.argv[2:]:\n"
                "    ok = not list(v.iter_errors(json.load(open(p))))\n"
                "    print(('valid ' if ok else 'invalid ') + p)\n");
  std::string command = "python3 '" + script.string() + "' '" + schema.string() + "'";
  for (const auto& f : files) command += " '" + f.string() + "'";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  int status = pclose(pipe);
  if (status != 0 || out.rfind("SKIP", 0) == 0) return std::nullopt;
  std::map<std::string, std::string> verdicts;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    std::string line = out.substr(pos, end - pos);
    pos = end == std::string::npos ? out.size() : end + 1;
    auto space = line.find(' ');
    if (space != std::string::npos) verdicts[line.substr(space + 1)] = line.substr(0, space);
  }
  return verdicts;
}

TEST(SchemaJsonTest, PythonJsonschemaAgreesWithTheVerdicts) {
  zf::test::TempDir dir;
  fs::path schema =
      dir.write("deepspeed.schema.json", zf::to_json_text(zf::deepspeed_json_schema()));
  // The schema accepts "auto" where the Trainer fills it, so its verdict is the --hf verdict.
  std::map<std::string, bool> expected;
  const fs::path peers = source("tests/data/peer-configs");
  ASSERT_TRUE(fs::is_directory(peers)) << peers;
  {
    for (const auto& entry : fs::recursive_directory_iterator(peers)) {
      if (entry.path().extension() != ".json") continue;
      std::string name = entry.path().filename().string();
      bool rejected = name.find("torch_compile") != std::string::npos ||
                      name.rfind("template_zero", 0) == 0 || name == "ds_config_zero2_bf16.json" ||
                      name == "ds_config_zero3_bf16.json";
      expected[entry.path().string()] = !rejected;  // the README verdicts
    }
  }
  for (const auto& entry : fs::directory_iterator(source("tests/golden/validate_valid"))) {
    if (entry.path().extension() == ".json") expected[entry.path().string()] = true;
  }
  // The project's own output, when the built-in template exists.
  if (fs::exists(source("templates/deepspeed/config.json.j2"))) {
    for (const char* stage : {"0", "1", "2", "3"}) {
      fs::path out = dir.path() / (std::string("rendered_stage") + stage + ".json");
      auto result = zf::test::run_cli({"render", "deepspeed/config.json.j2", "--set",
                                       std::string("stage=") + stage, "-o", out.string()});
      ASSERT_EQ(result.exit_code, 0) << result.err;
      expected[out.string()] = true;
    }
  }
  std::vector<fs::path> files;
  for (const auto& [path, valid] : expected) files.push_back(path);
  auto verdicts = python_verdicts(schema, files);
  if (!verdicts)
    ZF_ORACLE_MISSING("python3 with the jsonschema package is not available (python3-jsonschema)");
  for (const auto& [path, valid] : expected) {
    SCOPED_TRACE(path);
    ASSERT_TRUE(verdicts->count(path)) << "python printed no verdict";
    EXPECT_EQ(verdicts->at(path), valid ? "valid" : "invalid");
  }
}

TEST(SchemaJsonTest, ValidSamplesHaveNoFindings) {
  for (const auto& entry : fs::directory_iterator(source("tests/golden/validate_valid"))) {
    if (entry.path().extension() != ".json") continue;
    std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    zf::ValidateOptions options;
    options.hf = name.find("_hf_") != std::string::npos;
    if (auto w = name.find("world"); w != std::string::npos)
      options.world_size = std::stoll(name.substr(w + 5));
    auto findings = zf::validate_config(json::parse(zf::read_file(entry.path())), options, name);
    for (const auto& f : findings) ADD_FAILURE() << zf::format_finding(f);
  }
}

}  // namespace
