// SPDX-License-Identifier: MIT
// The step-time model against published DeepSpeed throughput (tests/data/step-time/
// published.json): each point's error is what the data file and docs/estimator.md state, and
// none is off by more than 2x. The constants were not fitted to these points.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "memory/step_time.hpp"

namespace zf::memory {
namespace {

using Json = nlohmann::json;

Json published() {
  std::ifstream in(std::string(ZF_SOURCE_DIR) + "/tests/data/step-time/published.json");
  EXPECT_TRUE(in) << "tests/data/step-time/published.json";
  return Json::parse(in);
}

Offload offload(const Json& value) { return offload_from_string(value.get<std::string>()).value(); }

// The model's TFLOPS per GPU for one point, as `zeroforge estimate` computes it.
double predicted_tflops(const Json& point) {
  const Json& m = point.at("model");
  ModelShape shape;
  shape.layers = m.at("layers");
  shape.hidden = m.at("hidden");
  shape.heads = m.at("heads");
  shape.vocab = m.at("vocab");
  shape.seq_len = m.at("seq_len");
  const Json& c = point.at("config");
  const Json& t = point.at("tier");
  Inputs in;
  in.shape = shape;
  in.params = params_from_shape(shape);
  in.stage = c.at("stage");
  in.offload_optimizer = offload(c.at("offload_optimizer"));
  in.offload_param = offload(c.at("offload_param"));
  in.precision = precision_from_string(c.at("precision").get<std::string>()).value();
  in.micro_batch_size = c.at("micro_batch_size");
  in.checkpointing =
      checkpointing_from_string(c.at("activation_checkpointing").get<std::string>()).value();
  in.gpus_per_node = t.at("gpus_per_node");
  in.nodes = t.at("nodes");
  HardwareGiven given;
  given.gpu = t.at("gpu").get<std::string>();
  if (t.contains("inter_node_gbs")) given.inter_node_gbs = t.at("inter_node_gbs").get<double>();
  if (t.contains("cpu_cores")) given.cpu_cores = t.at("cpu_cores").get<std::int64_t>();
  const Hardware hw = resolve_hardware(given, in.precision);
  return step_time(in, c.at("gradient_accumulation_steps").get<std::int64_t>(), hw).tflops_per_gpu;
}

TEST(StepTimePublishedTest, EachPointsErrorIsTheOneStatedAndWithinTwoTimes) {
  const Json data = published();
  ASSERT_GE(data.at("points").size(), 3u);
  int within_25 = 0;
  for (const Json& point : data.at("points")) {
    const std::string name = point.at("name");
    SCOPED_TRACE(name);
    EXPECT_FALSE(point.at("source").get<std::string>().empty());
    EXPECT_TRUE(point.at("unstated").is_array());
    const double measured = point.at("measured_tflops_per_gpu");
    const double predicted = predicted_tflops(point);
    const double error = std::round((predicted / measured - 1) * 1000) / 10;
    std::printf("%-26s measured %7.2f  predicted %7.2f TFLOPS/GPU  error %+6.1f%%\n", name.c_str(),
                measured, predicted, error);
    // The stated error (data file and docs/estimator.md) is the model's: a change to the model
    // restates it.
    EXPECT_DOUBLE_EQ(error, point.at("model_error_percent").get<double>());
    // The bound on every point (#39): never off by more than 2x.
    EXPECT_LT(predicted, 2 * measured);
    EXPECT_GT(predicted, measured / 2);
    within_25 += std::abs(error) <= 25;
  }
  std::printf("within 25%%: %d of %zu\n", within_25, data.at("points").size());
}

}  // namespace
}  // namespace zf::memory
