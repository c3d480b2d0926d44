// SPDX-License-Identifier: MIT
// Render benchmark (issue 2's speed goal): loads bench/data/deepspeed.json.j2 once and renders it
// over N value sets; prints per-render microseconds, the median of several runs.
//
//   zeroforge_render_bench [--data DIR] [--n N] [--runs R]
//
// The value sets are the ones bench/jinja2_render.py builds, and both print a checksum of one
// pass's output, so bench/run.sh can show the two engines did the same work. Both build every
// value set first, so at N=10,000 each render reads values that are out of cache (~2 MB
// per thousand sets), as they would be in a service: `--n 500` shows the in-cache speed.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace {

using nlohmann::ordered_json;

// Value set number i; bench/jinja2_render.py's value_set() builds exactly the same one.
ordered_json value_set(int i) {
  static const char* const precisions[] = {"bf16", "fp16", "fp32"};
  static const char* const offloads[] = {"none", "cpu", "nvme"};
  static const int gpus[] = {1, 2, 4, 8};
  ordered_json v = ordered_json::object();
  v["stage"] = i % 4;
  v["precision"] = precisions[i / 4 % 3];
  v["offload_optimizer"] = offloads[i / 12 % 3];
  v["offload_param"] = offloads[i / 36 % 3];
  v["nvme_path"] = "/local_nvme/job" + std::to_string(i);
  v["micro_batch_size"] = 1 << (i % 5);
  v["gradient_accumulation"] = 1 + i % 8;
  v["gpus_per_node"] = gpus[i / 5 % 4];
  v["nodes"] = 1 + i % 16;
  v["hf_auto"] = i % 7 == 0;
  v["activation_checkpointing"] = i % 5 == 0;
  v["num_layers"] = 24 + i % 3 * 8;
  v["comms_logger"] = i % 9 == 0;
  v["flops_profiler"] = i % 11 == 0;
  v["job_name"] = "run-" + std::to_string(i);
  if (i % 2 == 1) v["gradient_clipping"] = 1.0;
  if (i % 3 != 0) {
    v["optimizer"] = {{"type", "AdamW"}, {"lr", 1e-4 * (1 + i % 10)}, {"weight_decay", 0.01}};
  }
  if (i % 4 == 1) {
    v["scheduler"] = {{"type", "WarmupDecayLR"},
                      {"total_num_steps", 1000 * (1 + i % 50)},
                      {"warmup_num_steps", 100}};
  }
  if (i % 6 == 0)
    v["monitors"] = {{"tensorboard", {{"output_path", "/logs/tb/" + std::to_string(i)}}}};
  return v;
}

std::uint64_t fnv1a(std::string_view data, std::uint64_t h) {
  for (unsigned char byte : data) h = (h ^ byte) * 0x100000001B3ULL;
  return h;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

// Microseconds per render of one timed pass over every value set.
template <typename Render>
double time_pass(const std::vector<zf::Value>& value_sets, Render render) {
  auto start = std::chrono::steady_clock::now();
  for (const auto& values : value_sets) render(values);
  std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(value_sets.size());
}

void print_runs(const char* label, const std::vector<double>& runs) {
  std::printf("zeroforge %s per-render-us %.3f\nzeroforge %s runs-us", label, median(runs), label);
  for (double r : runs) std::printf(" %.3f", r);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = ZF_BENCH_DATA_DIR;
  int n = 10000;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    if (flag == "--data") {
      data_dir = argv[i + 1];
    } else if (flag == "--n") {
      n = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "--runs") {
      runs = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "usage: %s [--data DIR] [--n N] [--runs R]\n", argv[0]);
      return 2;
    }
  }

  try {
    zf::Environment environment({.search_path = {data_dir}});
    auto tpl = environment.load("deepspeed.json.j2");
    std::vector<zf::Value> value_sets;
    value_sets.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) value_sets.push_back(zf::Value::from_json(value_set(i)));

    // Warm-up pass: also checks every output is JSON and computes the checksum.
    std::uint64_t checksum = 0xCBF29CE484222325ULL;
    for (const auto& values : value_sets) {
      std::string text = tpl->render(values);
      checksum = fnv1a(text, checksum);
      if (!ordered_json::accept(text)) throw std::runtime_error("an output is not JSON:\n" + text);
    }

    std::size_t sink = 0;  // keeps the optimiser from dropping the renders
    std::vector<double> text_runs;
    std::vector<double> json_runs;
    for (int r = 0; r < runs; ++r) {
      text_runs.push_back(
          time_pass(value_sets, [&](const zf::Value& v) { sink += tpl->render(v).size(); }));
    }
    for (int r = 0; r < runs; ++r) {
      json_runs.push_back(
          time_pass(value_sets, [&](const zf::Value& v) { sink += tpl->render_json(v).size(); }));
    }
    print_runs("render", text_runs);
    print_runs("render_json", json_runs);
    std::printf("zeroforge checksum %016" PRIx64 "\n", checksum);
    std::fprintf(stderr, "(%d value sets, %d runs, sink %zu)\n", n, runs, sink);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeroforge_render_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
