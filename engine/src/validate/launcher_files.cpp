// SPDX-License-Identifier: MIT
// The files a launcher reads, for `validate --against-args`: DeepSpeed's hostfile
// (deepspeed/launcher/runner.py _parse_hostfile) and the accelerate config of `accelerate launch
// --config_file F` (accelerate commands/config/config_args.py ClusterConfig, commands/launch.py),
// after an sbatch script's launch has been read (sbatch_script.cpp).
#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sbatch_script.hpp"
#include "text_helpers.hpp"
#include "yaml_subset.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf {

namespace {

using Json = nlohmann::ordered_json;

constexpr long long kMaxAccelerateMachines = 65536;
constexpr long long kMaxAccelerateProcesses = 1LL << 24;

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

// An integer of the accelerate config within [low, high], or `unset` (accelerate's own "not
// given": -1 for num_processes, which the command line or SLURM then fills).
std::optional<long long> count_at(const Json& config, const char* key, const std::string& file,
                                  long long low, long long high, const char* meaning,
                                  std::optional<long long> unset = std::nullopt) {
  const std::optional<long long> value = integer_at(config, key, file);
  if (!value || value == unset || (*value >= low && *value <= high)) return value;
  fail(file, std::string("/") + key,
       std::string(key) + " must be " + meaning + " from " + std::to_string(low) + " to " +
           std::to_string(high) +
           (unset ? " (or " + std::to_string(*unset) + ": given on the command line)" : "") +
           ", got " + std::to_string(*value));
}

std::optional<std::string> string_at(const Json& config, const char* key, const std::string& file,
                                     const std::string& pointer) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    fail(file, pointer, std::string(key) + " must be a string, got " + it->dump());
  return it->get<std::string>();
}

// Whitespace as Python's str.strip() and a regular expression's \s take it in ASCII:
// space, \t \n \v \f \r and \x1c-\x1f.
bool is_python_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

// A Unicode space or line break beyond ASCII (NEL, NBSP, U+1680, U+2000-U+200A, LS, PS,
// U+202F, U+205F, U+3000) starting at line[i]: its length in bytes, or 0.
std::size_t unicode_space_at(std::string_view line, std::size_t i) {
  auto at = [&](std::size_t k) {
    return i + k < line.size() ? static_cast<unsigned char>(line[i + k]) : 0u;
  };
  if (at(0) == 0xc2 && (at(1) == 0x85 || at(1) == 0xa0)) return 2;
  if (at(0) == 0xe1 && at(1) == 0x9a && at(2) == 0x80) return 3;
  if (at(0) == 0xe2 && at(1) == 0x80 &&
      ((at(2) >= 0x80 && at(2) <= 0x8a) || at(2) == 0xa8 || at(2) == 0xa9 || at(2) == 0xaf))
    return 3;
  if (at(0) == 0xe2 && at(1) == 0x81 && at(2) == 0x9f) return 3;
  if (at(0) == 0xe3 && at(1) == 0x80 && at(2) == 0x80) return 3;
  return 0;
}

// `host slots=N` lines (blank lines and '#' comments skipped), as DeepSpeed's runner reads them
// (readlines in text mode: a line ends at \n, \r\n or \r; each stripped, then matched with
// ^(\S+)\s+slots=(\d+)): each host once, in order, with its slots. Linear in the file.
std::vector<std::pair<std::string, long long>> read_hostfile(const std::filesystem::path& path,
                                                             const std::string& shown) {
  std::string text = read_file(path);
  if (std::size_t bad = detail::invalid_utf8_at(text); bad < text.size()) {
    throw Error(ErrorKind::Values,
                "not UTF-8 at byte " + std::to_string(bad + 1) +
                    " (DeepSpeed reads the hostfile as text and refuses it)",
                Location{shown, 0, 0});
  }
  std::vector<std::pair<std::string, long long>> hosts;
  std::unordered_set<std::string> seen;  // a set, not a search of `hosts`: linear in the lines
  std::size_t number = 0, start = 0;
  while (start < text.size()) {
    ++number;
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (std::size_t length = unicode_space_at(line, i); length != 0) {
        throw Error(ErrorKind::Values,
                    "a Unicode space or line break (" +
                        detail::quoted_for_message(line.substr(i, length)) +
                        ") in a hostfile line, which DeepSpeed's reader takes as a separator; "
                        "write an ASCII space",
                    Location{shown, number, i + 1});
      }
    }
    auto not_space = [](unsigned char c) { return !is_python_space(c); };
    line.erase(line.begin(), std::find_if(line.begin(), line.end(), not_space));
    line.erase(std::find_if(line.rbegin(), line.rend(), not_space).base(), line.end());
    if (line.empty() || line.front() == '#') continue;
    // ^(\S+)\s+slots=(\d+)
    const auto space =
        std::find_if(line.begin(), line.end(), [](unsigned char c) { return is_python_space(c); });
    std::size_t blank = space == line.end() ? std::string::npos : space - line.begin();
    std::size_t slots = blank;
    while (slots < line.size() && is_python_space(static_cast<unsigned char>(line[slots]))) ++slots;
    if (slots == line.size()) slots = std::string::npos;
    std::size_t digits = slots == std::string::npos ? 0 : slots + 6;
    std::size_t digits_end = digits;
    while (digits_end < line.size() && std::isdigit(static_cast<unsigned char>(line[digits_end])))
      ++digits_end;
    if (slots == std::string::npos || line.compare(slots, 6, "slots=") != 0 ||
        digits_end == digits || digits_end - digits > 9) {
      throw Error(ErrorKind::Values,
                  "not a hostfile line ('host slots=N'), which DeepSpeed refuses: " + line,
                  Location{shown, number, 1});
    }
    std::string host = line.substr(0, blank);
    if (!seen.insert(host).second) {
      throw Error(ErrorKind::Values, "host '" + host + "' is listed twice, which DeepSpeed refuses",
                  Location{shown, number, 1});
    }
    hosts.emplace_back(host, std::stoll(line.substr(digits, digits_end - digits)));
  }
  if (hosts.empty()) {
    throw Error(ErrorKind::Values, "the hostfile lists no host, which DeepSpeed refuses",
                Location{shown, 0, 0});
  }
  return hosts;
}

std::filesystem::path resolved(const std::string& file, const std::filesystem::path& base) {
  std::filesystem::path path = file;
  if (path.is_relative() && !base.empty()) path = base / path;
  return path;
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
  // accelerate takes these as they are (ClusterConfig's dataclass checks no range): 0 or -8
  // processes or a port of 70000 fail only once the launch starts. The bounds are zeroforge's:
  // the companions launch at most 65536 nodes, and a process count past 2^24 (65536 nodes of
  // 256 GPUs) is a typing mistake, not a cluster.
  out.num_processes =
      count_at(config, "num_processes", shown, 1, kMaxAccelerateProcesses, "a process count", -1);
  if (out.num_processes == -1) out.num_processes.reset();
  out.num_machines =
      count_at(config, "num_machines", shown, 1, kMaxAccelerateMachines, "a machine count");
  count_at(config, "machine_rank", shown, 0, out.num_machines.value_or(kMaxAccelerateMachines) - 1,
           "a machine rank (below num_machines)");
  count_at(config, "main_process_port", shown, 1, 65535, "a port number");
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

void load_launcher_files(TrainingCommand& command, const std::filesystem::path& base) {
  // An sbatch script first: the launch it runs reads the files below (from the submit
  // directory, as the job does).
  if (command.sbatch_script) detail::load_sbatch_script(command, base);
  if (command.hostfile) {
    // runner.py: the first --num_nodes hosts (all without it), each with --num_gpus GPUs (its
    // slots without it).
    auto hosts = read_hostfile(resolved(*command.hostfile, base), *command.hostfile);
    std::size_t used = hosts.size();
    if (command.deepspeed_num_nodes && *command.deepspeed_num_nodes > 0)
      used = std::min(used, static_cast<std::size_t>(*command.deepspeed_num_nodes));
    long long world = 0;
    for (std::size_t i = 0; i < used; ++i) {
      const long long slots = command.deepspeed_num_gpus && *command.deepspeed_num_gpus > 0
                                  ? *command.deepspeed_num_gpus
                                  : hosts[i].second;
      if (__builtin_add_overflow(world, slots, &world)) {
        throw Error(ErrorKind::Usage, "--against-args: --num_gpus " + std::to_string(slots) +
                                          " on " + std::to_string(used) +
                                          " hosts is more processes than a 64-bit count holds");
      }
    }
    command.world_size = world;
  }
  if (!command.accelerate_config_file) return;
  AccelerateConfig config = read_accelerate_config(resolved(*command.accelerate_config_file, base),
                                                   *command.accelerate_config_file);
  // accelerate launch: a command-line option wins over the file (launch.py
  // _validate_launch_command copies only what the command line left unset).
  if (!command.world_size && config.num_processes) command.world_size = config.num_processes;
  command.accelerate_config = std::move(config);
}

}  // namespace zf
