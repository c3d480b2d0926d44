// SPDX-License-Identifier: MIT
// Reading the accelerate config file of `accelerate launch --config_file F` for
// `validate --against-args`: what accelerate (commands/config/config_args.py ClusterConfig,
// commands/launch.py) takes from it that must agree with the DeepSpeed config.
#include "yaml_subset.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& file, const std::string& pointer,
                       const std::string& message) {
  throw Error(ErrorKind::Values, message, file, pointer);
}

std::optional<long long> integer_at(const Json& config, const char* key, const std::string& file) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer())
    fail(file, std::string("/") + key, std::string(key) + " must be an integer, got " + it->dump());
  return it->get<long long>();
}

std::optional<std::string> string_at(const Json& config, const char* key, const std::string& file,
                                     const std::string& pointer) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    fail(file, pointer, std::string(key) + " must be a string, got " + it->dump());
  return it->get<std::string>();
}

}  // namespace

AccelerateConfig read_accelerate_config(const std::filesystem::path& path,
                                        const std::string& shown) {
  std::string text = read_file(path);
  Json config = path.extension() == ".json" ? parse_json_text(text, shown)
                                            : validate::parse_yaml_subset(text, shown);
  if (!config.is_object())
    fail(shown, "", "an accelerate config must be a mapping of keys to values");
  AccelerateConfig out;
  out.file = shown;
  out.distributed_type = string_at(config, "distributed_type", shown, "/distributed_type");
  out.num_processes = integer_at(config, "num_processes", shown);
  out.num_machines = integer_at(config, "num_machines", shown);
  if (auto it = config.find("mixed_precision"); it != config.end() && !it->is_null())
    out.mixed_precision = it->is_string() ? it->get<std::string>() : it->dump();
  if (auto it = config.find("deepspeed_config"); it != config.end() && !it->is_null()) {
    if (!it->is_object())
      fail(shown, "/deepspeed_config", "deepspeed_config must be a mapping, got " + it->dump());
    for (const auto& [key, value] : it->items()) out.deepspeed_config_keys.push_back(key);
    out.deepspeed_config_file =
        string_at(*it, "deepspeed_config_file", shown, "/deepspeed_config/deepspeed_config_file");
  }
  return out;
}

void load_accelerate_config(TrainingCommand& command, const std::filesystem::path& base) {
  if (!command.accelerate_config_file) return;
  std::filesystem::path path = *command.accelerate_config_file;
  if (path.is_relative() && !base.empty()) path = base / path;
  AccelerateConfig config = read_accelerate_config(path, *command.accelerate_config_file);
  // accelerate launch: a command-line option wins over the file (launch.py
  // _validate_launch_command copies only what the command line left unset).
  if (!command.world_size && config.num_processes) command.world_size = config.num_processes;
  command.accelerate_config = std::move(config);
}

}  // namespace zf
