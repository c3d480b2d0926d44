// SPDX-License-Identifier: MIT
// Fuzz target: the companions' inputs (docs/companions.md) — `launch` and the config values the
// companions read, and the config's output path — through the values contract, the built-in
// config template, plan_companions and every shipped companion template; what they write must
// say what the values say (checked below), or the target aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "generate/companions.hpp"
#include "text_helpers.hpp"
#include "validate/yaml_subset.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/values.hpp"

namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kKinds = {"deepspeed", "torchrun",      "accelerate", "hf-args",
                                         "hostfile",  "deepspeed-env", "slurm",      "kubernetes"};

// The shipped templates (config and companions), with small render limits.
const zf::Environment& environment() {
  static const zf::Environment* env = [] {
    zf::EnvironmentOptions options;
    options.search_path = {ZF_FUZZ_TEMPLATE_DIR};
    options.max_value_size = 1 << 16;
    options.max_output_size = 1 << 18;
    options.max_steps = 200'000;
    return new zf::Environment(options);  // lives for the process; templates point into it
  }();
  return *env;
}

// The values of a medium-tier config of the built-in template before the input's: its
// defaults.json layers and a tier.
const Json& base_values() {
  static const Json base = [] {
    zf::LayeredValues layered;
    for (const auto& layer :
         zf::load_template_defaults(environment(), "deepspeed/config.json.j2").layers)
      layered.apply(layer.source, layer.values);
    layered.apply({zf::LayerKind::Tier, "medium"},
                  Json::parse(R"({"gpus_per_node": 8, "nodes": 1, "gpu_memory_gib": 80,
                                  "cpu_memory_gib": 1024, "nvme_path": "/local_nvme"})"));
    return layered.merged();
  }();
  return base;
}

[[noreturn]] void broken(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "companion_fuzz: %s\n--- the file ---\n%s\n---\n", what.c_str(),
               text.c_str());
  std::abort();
}

// Lines as Python's text-mode readlines gives them to DeepSpeed (\n, \r\n and \r end a line).
std::vector<std::string_view> python_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t end = text.find_first_of("\r\n");
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1));
  }
  return lines;
}

// What each companion must say, whatever the values: the launch it writes is the config's.
void check(const std::string& kind, const std::string& text, const Json& job) {
  // One line per line: no character any reader takes for a line break or a control but \n.
  for (std::string_view rest = text; !rest.empty();) {
    std::size_t end = rest.find('\n');
    if (auto control = zf::detail::find_line_control(rest.substr(0, end)))
      broken(kind + ": " + zf::detail::code_point_name(control->code_point) + " in a line", text);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  if (kind == "accelerate") {
    Json yaml;
    try {
      yaml = zf::validate::parse_yaml_subset(text, "fuzz.accelerate.yaml");
    } catch (const zf::Error& e) {
      broken(std::string("the accelerate config does not read: ") + e.what(), text);
    }
    const bool multi = job.at("nodes") > 1;
    if (yaml.size() != (multi ? 12u : 11u) ||
        yaml.value("num_processes", Json()) != job.at("world_size") ||
        yaml.value("num_machines", Json()) != job.at("nodes") ||
        yaml.value("main_process_port", Json()) != job.at("master_port") ||
        yaml.at("deepspeed_config").value("deepspeed_config_file", Json()) !=
            job.at("config_ref") ||
        (multi && yaml.value("main_process_ip", Json()) != job.at("hosts").at(0)))
      broken("the accelerate config says another launch than the values", text);
  } else if (kind == "hostfile") {
    std::size_t host = 0;
    for (std::string_view line : python_lines(text)) {
      if (line.empty() || line.front() == '#') continue;
      if (host >= job.at("hosts").size() ||
          line != job.at("hosts").at(host).get<std::string>() +
                      " slots=" + std::to_string(job.at("gpus_per_node").get<long long>()))
        broken("hostfile line " + std::string(line) + " is not the next host's", text);
      ++host;
    }
    if (host != job.at("hosts").size()) broken("the hostfile lists another number of hosts", text);
  } else if (kind == "deepspeed-env") {
    const auto lines = python_lines(text);
    if (lines.size() != job.at("environment").size())
      broken("the environment file has another number of lines than variables", text);
    std::size_t i = 0;
    for (const auto& [name, value] : job.at("environment").items()) {
      if (lines[i++] != name + "=" + value.get<std::string>())
        broken("the environment file does not export " + name + " as written", text);
    }
  } else if (kind == "hf-args") {
    // tojson writes the keys sorted: compared as JSON objects, whatever their order.
    const auto unordered = [](const Json& json) { return nlohmann::json::parse(json.dump()); };
    if (unordered(zf::parse_json_text(text, "fuzz.hf-args.json")) != unordered(job.at("hf_args")))
      broken("the training arguments file says other arguments", text);
  }
}

}  // namespace

// Input: JSON, {"values": {...}, "path": "medium/x.json"}: the values over the template's
// defaults and a medium tier, and the config's output path (both optional).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    const Json request = zf::parse_json_text(input, "fuzz.json");
    if (!request.is_object()) return 0;
    Json values = base_values();
    if (auto it = request.find("values"); it != request.end()) {
      if (!it->is_object()) return 0;
      values.merge_patch(*it);
    }
    zf::Family family;
    family.file = "presets/families/fuzz.json";
    std::string path = "medium/zero3.json";
    if (auto it = request.find("path"); it != request.end() && it->is_string())
      path = zf::check_output_path(it->get<std::string>(), family);

    const zf::ContractCheck contract = zf::check_deepspeed_values(values);
    if (!contract.ok()) return 0;
    // As generate names the config for its templates (config_pipeline.cpp).
    Json named = values;
    named["tier"] = "medium";
    named["family"] = "fuzz";
    named["variant"] = "zero3";
    const zf::Value scope = zf::Value::from_json(named);
    const Json config = environment().load("deepspeed/config.json.j2")->render_json(scope);
    Json needed = Json::object();
    for (const auto& name : zf::pipeline::companion_value_names())
      if (auto it = values.find(name); it != values.end()) needed[name] = *it;
    zf::pipeline::CompanionPlan plan = zf::pipeline::plan_companions(
        kKinds, zf::pipeline::CompanionSubject{path, &config, &contract.facts, &needed,
                                               /*fit=*/nullptr, "fuzz", /*tier=*/nullptr});
    if (!plan.problems.empty()) return 0;
    // As CompanionWriter::write renders each: the values plus `job`, `job.kind` the companion.
    zf::ValueDict context = scope.as_dict();
    Json job = plan.job;
    for (const auto& [kind, file] : plan.files) {
      zf::check_output_path(file, family);
      job["kind"] = kind;
      context.set("job", zf::Value::from_json(job));
      const auto tpl = environment().load(zf::pipeline::companion_template(kind));
      std::string text;
      if (tpl->is_json()) {
        zf::append_json_text(text, tpl->render_json(zf::Value(context)));
      } else {
        tpl->render_into(zf::Value(context), text);
        if (!text.empty() && text.back() != '\n') text += '\n';
      }
      check(kind, text, plan.job);
    }
  } catch (const zf::Error&) {
    // Values the companions refuse, or a render past the limits: an error, as it should be.
  }
  return 0;
}
