// SPDX-License-Identifier: MIT
// Model shapes (plugins/memory/model_shape.cpp, model_presets.cpp): every shipped preset's
// published parameter count is what its shape implies, and bad shapes are refused by field.
#include "memory/model_shape.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "memory/model_presets.hpp"
#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf::memory {
namespace {

// The engine's reader, which the host hands the plugin (zf_host::read_file).
const FileReader read_input = [](const std::string& path) { return zf::read_file(path); };

TEST(ModelShapeTest, EveryPresetsPublishedCountIsItsShapes) {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ZF_SOURCE_DIR) + "/presets/models")) {
    const std::string name = entry.path().stem().string();
    SCOPED_TRACE(name);
    ModelPreset preset = load_model_preset(entry.path().string(), ZF_SOURCE_DIR, read_input);
    EXPECT_EQ(preset.name, name);
    // T5's encoder-decoder shape is not a decoder-only stack; its count is the published one.
    if (name == "t5-3b") continue;
    EXPECT_EQ(largest_layer_from_shape(preset.shape), preset.largest_layer_params);
    ++checked;
    // ViT's classes as an untied vocabulary stand for its patch projection and head: 2 x 1000
    // x 768 where the model has 590,592 + 769,000, within 0.25% of its own count.
    if (name == "vit-base-16") {
      EXPECT_NEAR(static_cast<double>(params_from_shape(preset.shape)) / preset.params, 1.0,
                  0.0025);
      continue;
    }
    EXPECT_EQ(params_from_shape(preset.shape), preset.params);
  }
  EXPECT_EQ(checked, 8);
}

TEST(ModelShapeTest, RealShapesOfModernModels) {
  ModelPreset llama3 = load_model_preset("llama-3-8b", ZF_SOURCE_DIR, read_input);
  EXPECT_EQ(llama3.shape.kv_heads_or_default(), 8);
  EXPECT_EQ(llama3.shape.kv_dim(), 1024);
  EXPECT_EQ(llama3.shape.intermediate_or_default(), 14336);
  EXPECT_EQ(llama3.shape.vocab, 128256);
  EXPECT_FALSE(llama3.shape.tied());
  EXPECT_EQ(llama3.shape.position_rows(), 0);
  ModelPreset gpt2 = load_model_preset("gpt2", ZF_SOURCE_DIR, read_input);
  EXPECT_TRUE(gpt2.shape.tied());
  EXPECT_EQ(gpt2.shape.position_rows(), 1024);
}

TEST(ModelShapeTest, BadShapeFieldsAreNamed) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10})",
       "seq_len: the model shape needs 'seq_len'"},
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "seq_len": 8, "mlp": "relu"})",
       "mlp: expected gelu or swiglu, got \"relu\""},
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "seq_len": 8, "kv_heads": 3})",
       ": heads=4 is not a multiple of kv_heads=3"},
      {R"({"layers": 2, "hidden": 66, "heads": 4, "vocab": 10, "seq_len": 8})",
       ": hidden=66 is not a multiple of heads=4"},
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "seq_len": 8, "tied": true})",
       "tied: unknown key 'tied' (expected layers, hidden, heads, vocab, seq_len, kv_heads, mlp, "
       "intermediate_size, tied_embeddings, positions, params, largest_layer_params)"},
      {R"({"layers": 2, "hidden_size": 64, "heads": 4, "vocab": 10, "seq_len": 8})",
       "hidden_size: unknown key 'hidden_size' (expected layers, hidden, heads, vocab, seq_len, "
       "kv_heads, mlp, intermediate_size, tied_embeddings, positions, params, "
       "largest_layer_params); did you mean 'hidden'?"},
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "seq_len": 8, "intermediate": 9})",
       "intermediate: unknown key 'intermediate' (expected layers, hidden, heads, vocab, seq_len, "
       "kv_heads, mlp, intermediate_size, tied_embeddings, positions, params, "
       "largest_layer_params); did you mean 'intermediate_size'?"},
      {R"({"layers": 2, "hidden": 64, "heads": 4, "vocab": 10, "seq_len": 8, "positions": -1})",
       "positions: expected an integer >= 0, got -1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    std::string error;
    try {
      read_model_shape(nlohmann::json::parse(c.json),
                       [](const std::string& key, const std::string& message) {
                         throw std::invalid_argument(key + ": " + message);
                       });
    } catch (const std::invalid_argument& e) {
      error = e.what();
    }
    EXPECT_EQ(error, c.error);
  }
}

TEST(ModelShapeTest, AMisspeltKeyInAModelFileIsAnErrorWithADidYouMean) {
  test::TempDir dir;
  const std::filesystem::path file = dir.write(
      "vision-team-models/vit-huge-14-finetune.json",
      R"({"layers": 32, "hidden": 1280, "heads": 16, "vocab_size": 1000, "seq_len": 257})");
  std::string error;
  try {
    load_model_preset(file.string(), ZF_SOURCE_DIR, read_input);
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  EXPECT_EQ(error, file.string() +
                       ": /vocab_size: unknown key 'vocab_size' (expected layers, hidden, heads, "
                       "vocab, seq_len, kv_heads, mlp, intermediate_size, tied_embeddings, "
                       "positions, params, largest_layer_params); did you mean 'vocab'?");
}

}  // namespace
}  // namespace zf::memory
