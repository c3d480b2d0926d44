// SPDX-License-Identifier: MIT
// What the companion planners' tests plan for: a config, its launch values and the facts
// generate derived from it, handed to plan_companions as generate hands them. One fixture for
// every planner's suite, so that a change to CompanionSubject or DeepSpeedFacts is made once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "generate/companions.hpp"

namespace zf::test {

/// A ZeRO-3 bf16 config of micro-batch 4 and 8 accumulation steps, launched from nodes of 8
/// GPUs (one node until nodes() says otherwise), with the facts that agree with it.
struct PlanSubject {
  using Json = nlohmann::ordered_json;

  Json config = Json::parse(R"({"train_batch_size": 256, "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 8, "bf16": {"enabled": true},
    "zero_optimization": {"stage": 3}})");
  /// The Kubernetes companion's one required value (its image) is given; the other planners
  /// ignore launch.kubernetes.
  Json values = Json::parse(R"({"gpus_per_node": 8, "nodes": 1, "world_size": null,
    "launch": {"kubernetes": {"image": "nvcr.io/nvidia/pytorch:24.05-py3"}}})");
  DeepSpeedFacts facts;
  std::string path = "medium/zero3.json";
  std::string family = "llama";
  const Tier* tier = nullptr;
  std::optional<pipeline::FitAssumptions> fit;  // a plugin's fit assumptions record, or none

  PlanSubject() {
    facts.stage = 3;
    facts.precision = "bf16";
    facts.world_size = 8;
    facts.micro_batch_size = 4;
    facts.gradient_accumulation = 8;
    facts.train_batch_size = 256;
  }
  /// N nodes of 8 GPUs, the global batch growing with them as generate's batch rule grows it.
  void nodes(int n) {
    values["nodes"] = n;
    facts.world_size = 8 * n;
    facts.train_batch_size = 4 * 8 * facts.world_size;
  }
  Json& kubernetes() { return values["launch"]["kubernetes"]; }
  pipeline::CompanionPlan plan(const std::vector<std::string>& kinds = {"kubernetes"}) const {
    return pipeline::plan_companions(
        kinds, pipeline::CompanionSubject{path, &config, &facts, &values, fit ? &*fit : nullptr,
                                          family, tier});
  }
};

}  // namespace zf::test
