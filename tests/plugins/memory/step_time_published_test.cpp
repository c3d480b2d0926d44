// SPDX-License-Identifier: MIT
// The step-time model against published DeepSpeed throughput (tests/data/step-time/
// published.json): each point's error is the one the data file and docs/estimator.md state, none
// is off by more than 2x, and on the held-out points (which tests/data/step-time/fit.py never
// fits on) issue #39's done-when holds: at least 80% within 25%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

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

// The model's step for one point, as `zeroforge estimate` computes it.
StepTime predicted(const Json& point) {
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
  return step_time(in, c.at("gradient_accumulation_steps").get<std::int64_t>(), hw);
}

// (predicted / measured - 1) x 100, one decimal, of the figure the point publishes.
double error_percent(const Json& point) {
  const StepTime t = predicted(point);
  const bool tflops = point.contains("measured_tflops_per_gpu");
  const double measured = tflops ? point.at("measured_tflops_per_gpu").get<double>()
                                 : point.at("measured_samples_per_second").get<double>();
  const double value = tflops ? t.tflops_per_gpu : t.samples_per_second;
  EXPECT_GT(measured, 0);
  return std::round((value / measured - 1) * 1000) / 10;
}

struct Tally {
  int points = 0, within_25 = 0;
  double worst = 0;
};

TEST(StepTimePublishedTest, EachPointsErrorIsTheOneStatedAndHeldOutMeetsTheDoneWhen) {
  const Json data = published();
  ASSERT_GE(data.at("points").size(), 15u);
  Tally fit, held;
  for (const Json& point : data.at("points")) {
    const std::string name = point.at("name");
    SCOPED_TRACE(name);
    EXPECT_FALSE(point.at("source").get<std::string>().empty());
    EXPECT_FALSE(point.at("family").get<std::string>().empty());
    EXPECT_TRUE(point.at("unstated").is_array());
    const std::string set = point.at("set");
    ASSERT_TRUE(set == "fit" || set == "held_out") << set;
    const double error = error_percent(point);
    std::printf("%-8s %-42s error %+6.1f%%\n", set.c_str(), name.c_str(), error);
    // The stated error (data file and docs/estimator.md) is the model's: a change to the model
    // or its constants restates it.
    EXPECT_DOUBLE_EQ(error, point.at("model_error_percent").get<double>());
    // The bound on every point (#39): never off by more than 2x.
    EXPECT_LT(error, 100);
    EXPECT_GT(error, -50);
    Tally& tally = set == "fit" ? fit : held;
    ++tally.points;
    tally.within_25 += std::abs(error) <= 25;
    if (std::abs(error) > std::abs(tally.worst)) tally.worst = error;
  }
  std::printf("fit: %d of %d within 25%%, worst %+.1f%%; held out: %d of %d, worst %+.1f%%\n",
              fit.within_25, fit.points, fit.worst, held.within_25, held.points, held.worst);
  // Both sets exist, split by source (the data file's `about`), and the held-out set is big
  // enough that 80% means something.
  EXPECT_GE(fit.points, 5);
  EXPECT_GE(held.points, 5);
  // Issue #39's done-when, on the points the fit did not see.
  EXPECT_GE(held.within_25 * 5, held.points * 4);
}

TEST(StepTimePublishedTest, FitAndHeldOutPointsComeFromDifferentSources) {
  const Json data = published();
  std::set<std::string> fit, held;
  for (const Json& point : data.at("points")) {
    (point.at("set") == "fit" ? fit : held).insert(point.at("family").get<std::string>());
  }
  for (const std::string& family : fit) EXPECT_EQ(held.count(family), 0u) << family;
}

}  // namespace
}  // namespace zf::memory
