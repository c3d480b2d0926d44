// SPDX-License-Identifier: MIT
// The manifest (engine/src/output/manifest.cpp): written piece by piece (head, entries in path
// order with separators, tail) it is byte for byte the manifest made as one JSON value.
#include <gtest/gtest.h>

#include <algorithm>

#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

using Json = nlohmann::ordered_json;

std::string in_pieces(const Family& family, std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  std::string text = manifest_head("1.2.3", family);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    text += manifest_separator(i);
    text += manifest_entry_text(entries[i]);
  }
  text += manifest_tail(entries.size());
  return text;
}

TEST(ManifestTest, PiecesConcatenateToTheWholeManifest) {
  Family family;
  family.name = "fam \"quoted\"";
  family.template_name = "deepspeed/config.json.j2";
  DeepSpeedFacts facts;
  facts.stage = 3;
  facts.world_size = 64;
  std::vector<ManifestEntry> entries;
  entries.push_back(
      {"large/zero3.json",
       "large",
       {{"stage", 3}, {"zero.b", {{"x", 1.5}}}},
       facts_to_json(facts),
       std::string(64, 'a'),
       {{"deepspeed", "large/zero3.deepspeed.sh"}, {"hostfile", "large/zero3.hostfile"}},
       Json::object()});
  entries.push_back({"a/\u00e9\n.json",
                     "",
                     Json::object(),
                     {{"world_size", nullptr}},
                     std::string(64, 'b'),
                     Json::object(),
                     {{"memory", {{"fits", true}, {"gib", {1, 2}}}}}});
  entries.push_back({"m.json",
                     "medium",
                     {{"precision", "bf16"}},
                     Json::object(),
                     std::string(64, 'c'),
                     {{"hf-args", "m.hf-args.json"}},
                     {{"site_fields", {{"profile", "site.json"}}}}});
  // A fact named like an entry field takes that field's place, as in the JSON object.
  entries.push_back({"z.json",
                     "small",
                     Json::object(),
                     {{"sha256", "shadowed"}, {"tier", 1}, {"companions", 2}},
                     std::string(64, 'd'),
                     {{"torchrun", "z.torchrun.sh"}},
                     Json::object()});
  for (std::size_t n = 0; n <= entries.size(); ++n) {
    SCOPED_TRACE(n);
    std::vector<ManifestEntry> some(entries.begin(),
                                    entries.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(in_pieces(family, some), to_json_text(make_manifest("1.2.3", family, some)));
  }
}

}  // namespace
TEST(ManifestTest, OutputPathsAreCheckedNamedAndShownQuoted) {
  Family family;
  family.file = "f.json";
  struct Case {
    std::string rendered, expected;
  };
  const Case cases[] = {
      {"x\n2.json",
       "f.json: /output: error: output path \"x\\n2.json\" contains a control character or "
       "line break (U+000A)"},
      {"a/\x1b[31m.json",
       "f.json: /output: error: output path \"a/\\u001b[31m.json\" contains a control "
       "character or line break (U+001B)"},
      // The path is written in the accelerate companion's comment line, which YAML 1.1 ends at
      // NEL, LS and PS; a C1 control (CSI) is obeyed by terminals.
      {"medium/x\u2028num_processes: 1.json",
       "f.json: /output: error: output path \"medium/x\\u2028num_processes: 1.json\" contains "
       "a control character or line break (U+2028)"},
      {"x\u0085.json",
       "f.json: /output: error: output path \"x\\u0085.json\" contains a control character "
       "or line break (U+0085)"},
      {"caf\u00e9/\u009b31m.json",
       "f.json: /output: error: output path \"caf\u00e9/\\u009b31m.json\" contains a control "
       "character or line break (U+009B)"},
      {"p\u2029.json",
       "f.json: /output: error: output path \"p\\u2029.json\" contains a control character "
       "or line break (U+2029)"},
      {std::string(256, 'a'), "f.json: /output: error: output path \"" + std::string(256, 'a') +
                                  "\" has a name of 256 bytes; file systems allow 255 (NAME_MAX)"},
      {"/etc/x.json",
       "f.json: /output: error: output path \"/etc/x.json\" is absolute; it must be relative "
       "to the output directory"},
      {"a/../b.json",
       "f.json: /output: error: output path \"a/../b.json\" has an empty, '.' or "
       "'..' segment"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.rendered);
    try {
      check_output_path(c.rendered, family);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
  std::string deep;
  for (int i = 0; i < 400; ++i) deep += "abcdefgh/";
  deep += "x.json";
  try {
    check_output_path(deep, family);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is 3606 bytes long; at most 3072"), std::string::npos);
  }
  EXPECT_EQ(check_output_path(std::string(255, 'b'), family), std::string(255, 'b'));
}

}  // namespace zf

namespace zf {
namespace {

// An imported config may write only some batch keys, or leave only some keys to the Trainer:
// the manifest lists them then, and only then (other manifests keep their nine facts).
TEST(ManifestTest, FactsListTheBatchKeysAndAutoKeysOnlyWhenTheValuesChoseSome) {
  DeepSpeedFacts facts;
  EXPECT_FALSE(facts_to_json(facts).contains("batch_keys"));
  EXPECT_FALSE(facts_to_json(facts).contains("auto_keys"));
  EXPECT_EQ(facts_to_json(facts).size(), 9u);
  facts.hf_auto = true;
  facts.batch_keys = 0b110;  // train_micro_batch_size_per_gpu, gradient_accumulation_steps
  facts.auto_keys = (1u << 1) | (1u << 13);
  const Json json = facts_to_json(facts);
  EXPECT_EQ(json.at("batch_keys"),
            Json::parse(R"(["train_micro_batch_size_per_gpu", "gradient_accumulation_steps"])"));
  EXPECT_EQ(json.at("auto_keys"),
            Json::parse(R"(["train_micro_batch_size_per_gpu", "bf16.enabled"])"));
  facts.batch_keys = 0;
  EXPECT_EQ(facts_to_json(facts).at("batch_keys"), Json::array());
}

}  // namespace
}  // namespace zf
