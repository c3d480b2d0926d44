// SPDX-License-Identifier: MIT
// The broken-config corpus in tests/golden/validate/: one directory per rule (config.json +
// expected.json with the options and the exact findings: severity, rule id and pointer).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

fs::path corpus_dir() { return fs::path(ZF_SOURCE_DIR) / "tests" / "golden" / "validate"; }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(corpus_dir())) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// `against` may name files its launcher reads (`--hostfile F`, `--config_file F`), relative to
// the case's directory.
zf::ValidateOptions options_from(const json& o, const fs::path& dir) {
  zf::ValidateOptions options;
  if (o.contains("world_size")) options.world_size = o.at("world_size").get<long long>();
  options.hf = o.value("hf", false);
  options.strict = o.value("strict", false);
  options.deepspeed_version = o.value("deepspeed_version", "");
  options.accelerate_version = o.value("accelerate_version", "");
  if (o.contains("against")) {
    options.against = zf::parse_training_command(o.at("against").get<std::string>());
    zf::load_launcher_files(*options.against, dir);
  }
  return options;
}

std::string describe(const json& findings) {
  std::string out;
  for (const auto& f : findings) {
    out += "  " + f.at("severity").get<std::string>() + " [" + f.at("rule").get<std::string>() +
           "] " + f.at("pointer").get<std::string>() + "\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

class ValidateCorpusTest : public testing::TestWithParam<std::string> {};

TEST_P(ValidateCorpusTest, ReportsExactlyTheExpectedFindings) {
  fs::path dir = corpus_dir() / GetParam();
  // nlohmann's parser keeps `1e3` a float, as Python's json module (and so DeepSpeed) does.
  json config = json::parse(zf::read_file(dir / "config.json"));
  json expected = json::parse(zf::read_file(dir / "expected.json"));
  auto findings = zf::validate_config(
      config, options_from(expected.value("options", json::object()), dir), "config.json");
  std::string messages;
  for (const auto& f : findings) messages += zf::format_finding(f) + "\n";
  SCOPED_TRACE(messages);
  json actual = json::array();
  for (const auto& f : findings) {
    actual.push_back(
        {{"severity", zf::severity_name(f.severity)}, {"rule", f.rule}, {"pointer", f.pointer}});
    EXPECT_FALSE(f.message.empty());
    EXPECT_EQ(f.file, "config.json");
  }
  EXPECT_EQ(describe(actual), describe(expected.at("findings")));
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidateCorpusTest, testing::ValuesIn(case_names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(ValidateCorpusCoverageTest, EveryRuleHasACorpusCase) {
  std::set<std::string> covered;
  for (const auto& name : case_names()) {
    json expected = json::parse(zf::read_file(corpus_dir() / name / "expected.json"));
    for (const auto& f : expected.at("findings")) covered.insert(f.at("rule").get<std::string>());
  }
  for (const auto& rule : zf::validation_rules()) {
    EXPECT_TRUE(covered.count(rule.id)) << "no case in tests/golden/validate/ for rule " << rule.id;
  }
}

TEST(ValidateCorpusCoverageTest, EveryExpectedRuleIsACatalogueRule) {
  std::set<std::string> known;
  for (const auto& rule : zf::validation_rules()) known.insert(rule.id);
  for (const auto& name : case_names()) {
    json expected = json::parse(zf::read_file(corpus_dir() / name / "expected.json"));
    for (const auto& f : expected.at("findings"))
      EXPECT_TRUE(known.count(f.at("rule").get<std::string>())) << name;
  }
}

}  // namespace
