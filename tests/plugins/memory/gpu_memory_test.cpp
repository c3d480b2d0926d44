// SPDX-License-Identifier: MIT
// The memory model against real training steps (tests/plugins/memory/gpu_memory/): parameter
// counts equal PyTorch's, activations within 15% of measured, and the largest micro batch
// that fits a 24, 40 or 80 GiB GPU never larger than measured and equal in >= 85% of cells.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "memory/estimator.hpp"
#include "memory/model_presets.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::json;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const std::string kDir = std::string(ZF_SOURCE_DIR) + "/tests/plugins/memory/gpu_memory/";

struct Recording {
  Json device;
  std::vector<Json> cases;
};

Recording read_recording(const std::string& file) {
  std::ifstream in(kDir + file);
  EXPECT_TRUE(in) << "cannot read " << kDir + file;
  Recording out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Json row = Json::parse(line);
    (row["kind"] == "device" ? out.device : out.cases.emplace_back()) = row;
  }
  return out;
}

std::map<std::string, ModelPreset> read_shapes() {
  std::ifstream in(kDir + "shapes.json");
  Json shapes = Json::parse(in);
  std::map<std::string, ModelPreset> out;
  for (const auto& [name, shape] : shapes.items()) {
    out[name] = read_model_shape(shape, [&](const std::string& key, const std::string& message) {
      throw std::invalid_argument(name + "/" + key + ": " + message);
    });
  }
  return out;
}

// What `zeroforge estimate --stage 0 --precision bf16 --gpus-per-node 1` models for one
// recorded step, with every default (headroom, CUDA context) as shipped.
Inputs inputs_for(const ModelPreset& model, const Json& step, std::int64_t micro) {
  Inputs in;
  in.params = model.params;
  in.largest_layer_params = model.largest_layer_params;
  in.shape = model.shape;
  in.shape->seq_len = step["seq"].get<std::int64_t>();
  in.stage = 0;
  in.precision = Precision::Bf16;
  in.micro_batch_size = micro;
  in.attention = *attention_from_string(step["attn"].get<std::string>());
  in.checkpointing = *checkpointing_from_string(step["ckpt"].get<std::string>());
  in.gpu_memory_margin = 0;  // the model's own accuracy; the safety margin is checked below
  return in;
}

std::string label(const Json& step) {
  std::ostringstream out;
  out << step["model"].get<std::string>() << " " << step["attn"].get<std::string>()
      << " ckpt=" << step["ckpt"].get<std::string>() << " seq=" << step["seq"]
      << " micro=" << step["micro"];
  return out.str();
}

class GpuMemoryTest : public ::testing::Test {
 protected:
  Recording recording = read_recording("h100-2026-11.jsonl");
  std::map<std::string, ModelPreset> shapes = read_shapes();
};

TEST_F(GpuMemoryTest, TheRecordingHasEveryShapeAndAttention) {
  EXPECT_EQ(recording.device["device"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(recording.cases.size(), 91u);
}

TEST_F(GpuMemoryTest, ParameterCountsEqualPyTorchs) {
  int checked = 0;
  for (const Json& step : recording.cases) {
    if (!step.contains("params")) continue;  // an early out-of-memory step counted none
    SCOPED_TRACE(label(step));
    ++checked;
    const ModelPreset& model = shapes.at(step["model"].get<std::string>());
    EXPECT_EQ(params_from_shape(model.shape), step["params"].get<std::int64_t>());
  }
  EXPECT_EQ(checked, 90);
}

TEST_F(GpuMemoryTest, ActivationsAreWithinFifteenPercentOfMeasured) {
  int checked = 0;
  for (const Json& step : recording.cases) {
    if (step["oom"].get<bool>()) continue;
    SCOPED_TRACE(label(step));
    const ModelPreset& model = shapes.at(step["model"].get<std::string>());
    Estimate e = estimate(inputs_for(model, step, step["micro"].get<std::int64_t>()));
    const double ratio = static_cast<double>(e.activations_gpu) /
                         static_cast<double>(step["activations_bytes"].get<std::int64_t>());
    EXPECT_GE(ratio, 0.85);
    EXPECT_LE(ratio, 1.15);
    ++checked;
  }
  EXPECT_EQ(checked, 85);
}

// For each shape (model, attention, checkpointing, sequence) and capacity: the largest
// recorded micro batch whose step fits, against the largest the estimate says fits among the
// recorded micro batches (the estimate may not claim a micro batch that ran out of memory or
// was never tried).
TEST_F(GpuMemoryTest, LargestFittingMicroBatchIsNeverTooLargeAndUsuallyExact) {
  std::map<std::string, std::vector<Json>> by_shape;
  for (const Json& step : recording.cases) {
    by_shape[step["model"].get<std::string>() + " " + step["attn"].get<std::string>() + " " +
             step["ckpt"].get<std::string>() + " " + step["seq"].dump()]
        .push_back(step);
  }
  const std::int64_t context = recording.device["context_bytes"].get<std::int64_t>();
  int cells = 0, exact = 0;
  for (const auto& [shape, steps] : by_shape) {
    for (double capacity : {24.0, 40.0, 80.0}) {
      SCOPED_TRACE(shape + " at " + std::to_string(static_cast<int>(capacity)) + " GiB");
      std::int64_t measured = 0, estimated = 0;
      for (const Json& step : steps) {
        if (step["oom"].get<bool>()) break;
        const std::int64_t micro = step["micro"].get<std::int64_t>();
        if (step["step_peak_reserved"].get<std::int64_t>() + context <= capacity * kGiB)
          measured = micro;
        Inputs in = inputs_for(shapes.at(step["model"].get<std::string>()), step, micro);
        in.gpu_memory_gib = capacity;
        if (*estimate(in).gpu_fits) estimated = micro;
      }
      EXPECT_LE(estimated, measured) << "the estimate's pick would run out of memory";
      exact += estimated == measured;
      ++cells;
    }
  }
  EXPECT_EQ(cells, 48);
  EXPECT_GE(exact * 100, 85 * cells) << exact << " of " << cells << " cells exact";
  RecordProperty("exact_cells", exact);
}

// The default safety margin (kDefaultGpuMemoryMargin, docs/estimator.md "The safety margin")
// is chosen from these steps: a fit accepted at a GPU total of C x (1 - margin) runs when the
// measured need is at most total / (1 - margin). That holds for every step of every
// recording, except eager attention with full checkpointing on a shape the model was not
// fitted on (qwen-0.5b at sequence 4096 on the H200: up to 11.5% more than estimated, its
// fragmentation above the 0.45 default), which calibrating --headroom covers. The recording
// the activation model was fitted on has no exception, eager with full checkpointing included.
TEST(GpuMemoryMarginTest, TheDefaultMarginCoversEveryRecordedStepButEagerWithFullCheckpointing) {
  const std::string fitted_on = "h100-2026-11.jsonl";
  const std::map<std::string, ModelPreset> shapes = read_shapes();
  const double covered = 1.0 / (1.0 - kDefaultGpuMemoryMargin);
  double largest = 0, largest_eager_full = 0;
  int steps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".jsonl") continue;
    const Recording recording = read_recording(entry.path().filename().string());
    const std::int64_t context = recording.device["context_bytes"].get<std::int64_t>();
    for (const Json& step : recording.cases) {
      if (step["oom"].get<bool>()) continue;
      SCOPED_TRACE(entry.path().filename().string() + " " + label(step));
      const Inputs in = inputs_for(shapes.at(step["model"].get<std::string>()), step,
                                   step["micro"].get<std::int64_t>());
      const double measured =
          static_cast<double>(step["step_peak_reserved"].get<std::int64_t>() + context);
      const double ratio = measured / static_cast<double>(estimate(in).total_gpu);
      ++steps;
      if (step["attn"] == "eager" && step["ckpt"] == "full" &&
          entry.path().filename() != fitted_on) {
        largest_eager_full = std::max(largest_eager_full, ratio);
        continue;
      }
      largest = std::max(largest, ratio);
      EXPECT_LE(ratio, covered) << "the default margin would accept a step that runs out";
    }
  }
  EXPECT_EQ(steps, 121);
  // The margin is needed (some step needed more than its estimate) and is not far above it.
  EXPECT_GT(largest, 1.0);
  EXPECT_GT(largest * 1.02, covered) << "largest " << largest << ": a smaller margin would do";
  EXPECT_GT(largest_eager_full, covered) << "the documented exception";
  RecordProperty("largest_ratio", std::to_string(largest));
  RecordProperty("largest_eager_full_ratio", std::to_string(largest_eager_full));
}

// Every recording in the folder (a new one from bench/measure_memory.py included, its shapes
// added to shapes.json): PyTorch's parameter counts, activations within 15% and no micro batch
// the estimate accepts that ran out of memory, at 24, 40 and 80 GiB and the recording's own GPU.
TEST_F(GpuMemoryTest, EveryRecordingIsWithinTheModel) {
  int recordings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".jsonl") continue;
    const std::string file = entry.path().filename().string();
    SCOPED_TRACE(file);
    ++recordings;
    const Recording other = read_recording(file);
    ASSERT_TRUE(other.device.contains("context_bytes")) << "the first line must be the device";
    const std::int64_t context = other.device["context_bytes"].get<std::int64_t>();
    std::map<std::string, std::int64_t> measured, estimated;
    std::map<std::string, bool> stopped;
    for (const Json& step : other.cases) {
      SCOPED_TRACE(label(step));
      ASSERT_TRUE(shapes.contains(step["model"].get<std::string>()))
          << "add the shape to shapes.json (measure_memory.py --shapes-out writes it)";
      const ModelPreset& model = shapes.at(step["model"].get<std::string>());
      if (step.contains("params")) {
        EXPECT_EQ(params_from_shape(model.shape), step["params"].get<std::int64_t>());
      }
      const std::string shape = step["model"].get<std::string>() + " " +
                                step["attn"].get<std::string>() + " " +
                                step["ckpt"].get<std::string>() + " " + step["seq"].dump();
      if (step["oom"].get<bool>()) {
        stopped[shape] = true;
        continue;
      }
      if (stopped[shape]) continue;
      const std::int64_t micro = step["micro"].get<std::int64_t>();
      Inputs in = inputs_for(model, step, micro);
      const double ratio = static_cast<double>(estimate(in).activations_gpu) /
                           static_cast<double>(step["activations_bytes"].get<std::int64_t>());
      EXPECT_GE(ratio, 0.85);
      EXPECT_LE(ratio, 1.15);
      const double own =
          static_cast<double>(other.device["total_bytes"].get<std::int64_t>()) / kGiB;
      for (double capacity : {24.0, 40.0, 80.0, own}) {
        const std::string cell = shape + " at " + std::to_string(capacity);
        if (step["step_peak_reserved"].get<std::int64_t>() + context <= capacity * kGiB) {
          measured[cell] = std::max(measured[cell], micro);
        }
        in.gpu_memory_gib = capacity;
        if (*estimate(in).gpu_fits) estimated[cell] = std::max(estimated[cell], micro);
      }
    }
    for (const auto& [cell, micro] : estimated) {
      EXPECT_LE(micro, measured[cell]) << cell << ": the estimate's pick would run out of memory";
    }
  }
  EXPECT_GE(recordings, 1);
}

}  // namespace
}  // namespace zf::memory
