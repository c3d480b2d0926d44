// SPDX-License-Identifier: MIT
// Fuzz target: template source through lexer, parser, static analysis and renderer (text and
// JSON output) over a fixed set of values, with small render limits.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace {

// The first input byte picks the options: bit 0 trim_blocks, bit 1 lstrip_blocks, bit 2 a
// `.json.j2` name (render_json). The rest is the template source.
const zf::Environment& environment(unsigned flags) {
  static const auto make = [](bool trim, bool lstrip) {
    zf::EnvironmentOptions options;
    options.trim_blocks = trim;
    options.lstrip_blocks = lstrip;
    options.search_path = {ZF_FUZZ_TEMPLATE_DIR};  // include/extends/import of shipped templates
    options.max_depth = 16;
    options.max_nesting = 64;
    options.max_value_size = 1 << 16;
    options.max_output_size = 1 << 18;
    options.max_steps = 20'000;
    return new zf::Environment(options);  // lives for the process; templates point into it
  };
  static const zf::Environment* environments[4] = {make(false, false), make(true, false),
                                                   make(false, true), make(true, true)};
  return *environments[flags & 3];
}

const zf::Value& values() {
  static const zf::Value values = zf::Value::from_json(nlohmann::ordered_json::parse(R"({
    "stage": 3, "precision": "bf16", "gpus_per_node": 8, "nodes": 2, "micro_batch_size": 4,
    "gradient_accumulation": 2, "lr": 3e-05, "hf_auto": false, "nvme_path": null,
    "offload_optimizer": "cpu", "offload_param": "none", "name": "llama-7b",
    "zero": {"reduce_bucket_size": 500000000, "overlap_comm": true, "buckets": [1, 2.5, "x"]},
    "tiers": ["small", "medium", "large"], "empty": {}, "nested": [[1, [2]], {"a": {"b": "c"}}]
  })"));
  return values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  const std::string source(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    auto tpl = environment(flags).from_string(
        source, (flags & 4) != 0 ? "deepspeed/fuzz.json.j2" : "deepspeed/fuzz.txt.j2");
    tpl->undeclared_variables();
    if (tpl->is_json()) {
      tpl->render_json(values());
    } else {
      tpl->render(values());
    }
  } catch (const zf::Error&) {
    // A template error is the expected answer to most inputs; anything else escapes.
  }
  return 0;
}
