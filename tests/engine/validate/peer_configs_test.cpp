// SPDX-License-Identifier: MIT
// Every real config in tests/data/peer-configs/ (see its README) validated as the HF Trainer
// would load it (--hf where it uses "auto"), world size 1, with the exact findings judged
// correct against DeepSpeed 0.19.6's source and the reason for each.
#include <gtest/gtest.h>

#include <filesystem>

#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// Copied from the projects named in its README, with their sources and licences.
fs::path peer_dir() { return fs::path(ZF_SOURCE_DIR) / "tests" / "data" / "peer-configs"; }

struct Expected {
  const char* severity;
  const char* rule;
  const char* pointer;
};

struct PeerCase {
  const char* file;
  bool hf;
  bool accepted;  // the README verdict: no errors
  std::vector<Expected> findings;
};

// The max_live_parameters / max_reuse_distance / gather_16bit_weights_on_model_save spellings
// are pydantic field names whose aliases carry the stage3_ prefix: accepted, a note each.
const std::vector<Expected> kAxolotlStage3Notes = {
    {"note", "alias", "/zero_optimization/max_live_parameters"},
    {"note", "alias", "/zero_optimization/max_reuse_distance"},
    {"note", "alias", "/zero_optimization/gather_16bit_weights_on_model_save"},
};

const std::vector<Expected> kAccelerateStage12 = {
    {"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"},
    {"warning", "no-effect", "/zero_optimization/allgather_partitions"},
};
const std::vector<Expected> kAccelerateStage3 = {
    {"note", "accelerate-fills", "/zero_optimization/stage3_gather_16bit_weights_on_model_save"},
    {"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"},
};

const std::vector<PeerCase>& cases() {
  static const std::vector<PeerCase> table = {
      // accelerate's own templates: the warmup the Trainer fills from --warmup_steps (0 by
      // default), allgather_partitions read nowhere; at stage 3 accelerate fills the 16-bit
      // gather, which the Trainer leaves, with false (zeroforge called it an error before).
      {"accelerate/zero_stage1_config.json", true, true, kAccelerateStage12},
      {"accelerate/zero_stage2_config.json", true, true, kAccelerateStage12},
      {"accelerate/zero_stage2_offload_config.json", true, true, kAccelerateStage12},
      {"accelerate/zero_stage3_config.json", true, true, kAccelerateStage3},
      {"accelerate/zero_stage3_offload_config.json", true, true, kAccelerateStage3},
      // "auto" everywhere the Trainer fills it; no stage-specific mistakes.
      {"axolotl/zero1.json", true, true, {}},
      // compile.disable / compile.backend were removed from CompileConfig (extra="forbid").
      {"axolotl/zero1_torch_compile.json",
       true,
       false,
       {{"error", "unknown-key", "/compile/disable"},
        {"error", "unknown-key", "/compile/backend"}}},
      {"axolotl/zero2.json", true, true, {}},
      {"axolotl/zero2_torch_compile.json",
       true,
       false,
       {{"error", "unknown-key", "/compile/disable"},
        {"error", "unknown-key", "/compile/backend"}}},
      {"axolotl/zero3.json", true, true, kAxolotlStage3Notes},
      {"axolotl/zero3_bf16.json", true, true, kAxolotlStage3Notes},
      {"axolotl/zero3_bf16_cpuoffload_all.json", true, true, kAxolotlStage3Notes},
      {"axolotl/zero3_bf16_cpuoffload_params.json", true, true, kAxolotlStage3Notes},
      // Autotuner templates are partial: no batch key at all is DeepSpeed's assertion.
      {"deepspeed/template_zero0.json", false, false, {{"error", "batch-missing", ""}}},
      {"deepspeed/template_zero1.json", false, false, {{"error", "batch-missing", ""}}},
      // allgather_partitions is read nowhere since v0.5.9.
      {"deepspeed/template_zero2.json",
       false,
       false,
       {{"error", "batch-missing", ""},
        {"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      // ... and allgather_bucket_size is a stage 1-2 knob.
      {"deepspeed/template_zero3.json",
       false,
       false,
       {{"error", "batch-missing", ""},
        {"warning", "no-effect", "/zero_optimization/allgather_partitions"},
        {"warning", "zero-key-stage", "/zero_optimization/allgather_bucket_size"}}},
      // Stage 0 with bucket/overlap/round-robin options: all ignored, one warning for the lot.
      {"llama-factory/ds_z0_config.json",
       true,
       true,
       {{"warning", "zero-disabled-keys", "/zero_optimization"}}},
      {"llama-factory/ds_z2_config.json",
       true,
       true,
       {{"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      // `_comment` is an unknown top-level key: ignored (harmless, but a strict check fails it).
      {"llama-factory/ds_z2_autotp_config.json",
       true,
       true,
       {{"warning", "ignored-key", "/_comment"},
        {"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      {"llama-factory/ds_z2_offload_config.json",
       true,
       true,
       {{"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      {"llama-factory/ds_z3_config.json", true, true, {}},
      // comms_config / monitor_config are DeepSpeedConfig attribute names, not config keys:
      // the CSV monitor and comms settings in them do nothing.
      {"llama-factory/ds_z3_fp8_config.json",
       true,
       true,
       {{"warning", "ignored-key", "/comms_config"},
        {"warning", "ignored-key", "/monitor_config"}}},
      {"llama-factory/ds_z3_offload_config.json", true, true, {}},
      // WarmupLR warmup_num_steps "auto" becomes --warmup_steps (0 by default), which
      // DeepSpeed >= 0.19.3 rejects; allgather_partitions does nothing.
      {"transformers/ds_config_zero2.json",
       true,
       true,
       {{"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"},
        {"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      // The legacy "bfloat16" section is read by DeepSpeed but never filled by the Trainer:
      // its "auto" is dropped and bf16 stays off.
      {"transformers/ds_config_zero2_bf16.json",
       true,
       false,
       {{"note", "alias", "/bfloat16"},
        {"error", "auto-not-filled", "/bfloat16/enabled"},
        {"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"},
        {"warning", "no-effect", "/zero_optimization/allgather_partitions"}}},
      // stage3_gather_fp16_weights_on_model_save is the deprecated name of
      // stage3_gather_16bit_weights_on_model_save (still mapped, with a warning).
      {"transformers/ds_config_zero3.json",
       true,
       true,
       {{"warning", "deprecated", "/zero_optimization/stage3_gather_fp16_weights_on_model_save"},
        {"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"}}},
      {"transformers/ds_config_zero3_bf16.json",
       true,
       false,
       {{"note", "alias", "/bfloat16"},
        {"warning", "deprecated", "/zero_optimization/stage3_gather_fp16_weights_on_model_save"},
        {"error", "auto-not-filled", "/bfloat16/enabled"},
        {"warning", "hf-warmup-auto", "/scheduler/params/warmup_num_steps"}}},
  };
  return table;
}

std::string text(const std::vector<Expected>& findings) {
  std::string out;
  for (const auto& f : findings)
    out += std::string(f.severity) + " [" + f.rule + "] " + f.pointer + "\n";
  return out;
}

std::vector<zf::Finding> validate(const fs::path& path, const zf::ValidateOptions& options) {
  json config = json::parse(zf::read_file(path));
  return zf::validate_config(config, options, path.string());
}

TEST(ValidatePeerConfigsTest, FindingsMatchTheReviewedVerdicts) {
  ASSERT_TRUE(fs::is_directory(peer_dir())) << peer_dir();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.file);
    zf::ValidateOptions options;
    options.hf = c.hf;
    options.world_size = 1;
    auto findings = validate(peer_dir() / c.file, options);
    std::vector<Expected> actual;
    for (const auto& f : findings)
      actual.push_back({zf::severity_name(f.severity), f.rule.c_str(), f.pointer.c_str()});
    EXPECT_EQ(text(actual), text(c.findings));
    EXPECT_EQ(!zf::has_errors(findings), c.accepted);
  }
}

TEST(ValidatePeerConfigsTest, EveryPeerConfigIsCovered) {
  ASSERT_TRUE(fs::is_directory(peer_dir())) << peer_dir();
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(peer_dir())) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::string relative = fs::relative(entry.path(), peer_dir()).generic_string();
    bool listed = false;
    for (const auto& c : cases()) listed = listed || relative == c.file;
    EXPECT_TRUE(listed) << relative;
  }
  EXPECT_EQ(files, cases().size());
}

TEST(ValidatePeerConfigsTest, WithoutHfEveryAutoConfigIsRejected) {
  ASSERT_TRUE(fs::is_directory(peer_dir())) << peer_dir();
  for (const auto& c : cases()) {
    if (!c.hf) continue;
    SCOPED_TRACE(c.file);
    auto findings = validate(peer_dir() / c.file, {});
    std::size_t autos = 0;
    for (const auto& f : findings) autos += f.rule == "auto-without-hf" || f.rule == "auto-dropped";
    EXPECT_GE(autos, 2u);
    EXPECT_TRUE(zf::has_errors(findings));
  }
}

TEST(ValidatePeerConfigsTest, StrictTurnsEveryWarningIntoAnError) {
  ASSERT_TRUE(fs::is_directory(peer_dir())) << peer_dir();
  zf::ValidateOptions options;
  options.hf = true;
  options.strict = true;
  auto findings = validate(peer_dir() / "llama-factory/ds_z3_fp8_config.json", options);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, zf::Severity::Error);
  EXPECT_TRUE(zf::has_errors(findings));
}

}  // namespace
