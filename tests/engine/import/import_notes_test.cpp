// SPDX-License-Identifier: MIT
// The import's own notes (engine/src/import/import_notes.cpp): a file name that promises another
// stage, precision or offload than the file has; inputs that are copies or one key apart; keys
// carried as written in `extra`, with the reason.
#include "import/import_notes.hpp"

#include <gtest/gtest.h>

#include "zeroforge/output.hpp"

namespace zf::importer {
namespace {

// A realistic, long path: a short one would fit a std::string's inline buffer and hide a
// dangling view of it.
const std::string kDir = "/srv/teams/pretraining/deepspeed-configs/checked-in/2024-06/";

Json config(const char* text) { return Json::parse(text); }

TEST(ImportNotesTest, AFileNamedForOneStageThatSetsAnotherIsAWarningAtTheStage) {
  const std::string file = kDir + "llama-zero3-offload.json";
  const std::vector<Finding> notes = name_notes(
      file,
      config(R"({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}})"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(format_finding(notes[0]),
            file +
                ": /zero_optimization/stage: warning [import-name]: the file name says ZeRO "
                "stage 3 (\"zero3\"), but the config sets stage 2: whoever picks the file by its "
                "name gets the other stage; rename it or fix the stage");
}

TEST(ImportNotesTest, NamesAreReadWordByWord) {
  struct Case {
    const char* name;
    const char* config;
    std::vector<std::string> messages;  // each note's message, in order
  };
  const Case cases[] = {
      {"ds_z3_config.json", R"({"zero_optimization": {"stage": 3}})", {}},
      {"zero3.json", R"({"zero_optimization": {"stage": 3}})", {}},
      {"stage_2.json", R"({"zero_optimization": {"stage": 2}})", {}},
      {"ds_z2_config.json",
       R"({"zero_optimization": {"stage": 1}})",
       {"the file name says ZeRO stage 2 (\"z2\"), but the config sets stage 1: whoever picks "
        "the file by its name gets the other stage; rename it or fix the stage"}},
      {"zero-3.json",
       R"({"train_micro_batch_size_per_gpu": 1})",
       {"the file name says ZeRO stage 3 (\"zero 3\"), but the config sets no stage "
        "(DeepSpeed's stage 0): whoever picks the file by its name gets the other stage; rename "
        "it or fix the stage"}},
      // A word that only contains a stage-like part is not a stage.
      {"zero31.json", R"({"zero_optimization": {"stage": 1}})", {}},
      {"zero3_bf16.json",
       R"({"zero_optimization": {"stage": 3}, "fp16": {"enabled": true}})",
       {"the file name says bf16, but the config enables fp16: rename it or fix the precision"}},
      // "auto" is the Trainer's --bf16: the name can be right.
      {"zero3_bf16.json",
       R"({"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}})",
       {}},
      {"zero2_fp32.json",
       R"({"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}})",
       {"the file name says fp32, but the config enables bf16: rename it or fix the precision"}},
      {"zero3_cpuoffload_all.json",
       R"({"zero_optimization": {"stage": 3}})",
       {"the file name says \"cpuoffload\", but the config offloads nothing to cpu or nvme: "
        "rename it or add the offload"}},
      {"zero2_nooffload.json", R"({"zero_optimization": {"stage": 2}})", {}},
      {"zero2_offload.json", R"({"zero_optimization": {"stage": 2, "cpu_offload": true}})", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " " + c.config);
    std::vector<std::string> messages;
    for (const Finding& f : name_notes(kDir + c.name, config(c.config))) {
      EXPECT_EQ(f.rule, "import-name");
      EXPECT_EQ(f.severity, Severity::Warning);
      EXPECT_EQ(f.file, kDir + c.name);
      messages.push_back(f.message);
    }
    EXPECT_EQ(messages, c.messages);
  }
}

TEST(ImportNotesTest, TwoInputsOneKeyApartOrAlikeArePairedOnTheLaterOne) {
  const Json a = config(R"({"train_micro_batch_size_per_gpu": 4,
      "zero_optimization": {"stage": 2, "overlap_comm": true}})");
  const Json b = config(R"({"zero_optimization": {"overlap_comm": true, "stage": 3},
      "train_micro_batch_size_per_gpu": 4.0})");  // key order and 4 vs 4.0 do not count
  const Json c = config(R"({"zero_optimization": {"stage": 2, "overlap_comm": true},
      "train_micro_batch_size_per_gpu": 4})");
  const Json d = config(R"({"zero_optimization": {"stage": 1, "overlap_comm": false},
      "train_micro_batch_size_per_gpu": 4})");  // two keys from a and c, one from nothing
  const std::vector<std::string> names = {kDir + "a.json", kDir + "b.json", kDir + "c.json",
                                          kDir + "d.json"};
  const std::vector<Pair> pairs = find_pairs({&a, &b, &c, &d});
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(format_finding(pair_finding(pairs[0], names)),
            kDir +
                "b.json: /zero_optimization/stage: note [import-one-key]: the only key that "
                "differs from " +
                kDir +
                "a.json: 3 here, 2 there; check that this is the difference the pair is for");
  EXPECT_EQ(format_finding(pair_finding(pairs[1], names)),
            kDir + "c.json: /: note [import-duplicate]: the same config as " + kDir +
                "a.json (as JSON values): keep one, or say in their names why there are two");
  EXPECT_EQ(pairs[2].earlier, 1u);
  EXPECT_EQ(pairs[2].later, 2u);
  EXPECT_EQ(pairs[2].pointer, "/zero_optimization/stage");

  // A key only one of them has: "absent" on the other side.
  const Json e = config(R"({"train_micro_batch_size_per_gpu": 4,
      "zero_optimization": {"stage": 2, "overlap_comm": true},
      "compile": {"disable": false, "backend": "inductor"}})");
  const std::vector<Pair> with_e = find_pairs({&a, &e});
  ASSERT_EQ(with_e.size(), 1u);
  EXPECT_EQ(pair_finding(with_e[0], {"a.json", "e.json"}).message,
            "the only key that differs from a.json: {\"disable\":false,\"backend\":\"inductor\"} "
            "here, absent there; check that this is the difference the pair is for");
}
}  // namespace
}  // namespace zf::importer
