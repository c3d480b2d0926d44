// SPDX-License-Identifier: MIT
// `zeroforge probe`: this machine's GPUs (nvidia-smi), host memory (/proc/meminfo) and CPUs
// (/proc/cpuinfo) as a tier in the format of presets/tiers/*.json, printed or saved for --tier.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "gpu_query.hpp"
#include "visible_gpus.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/values.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// The host's memory in KiB: MemTotal of /proc/meminfo, or of the file ZEROFORGE_MEMINFO names
// (for tests).
std::int64_t mem_total_kib(std::string& source) {
  const char* env = std::getenv("ZEROFORGE_MEMINFO");
  source = env && *env ? env : "/proc/meminfo";
  const std::string text = read_file(source);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("MemTotal:")) continue;
    std::istringstream fields(line.substr(9));
    std::string number, unit;
    fields >> number >> unit;
    std::int64_t kib = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), kib);
    if (ec == std::errc() && end == number.data() + number.size() && kib > 0 && unit == "kB" &&
        kib < (std::int64_t{1} << 50)) {
      return kib;
    }
    break;
  }
  throw Error(ErrorKind::Io, source + ": expected a line 'MemTotal: N kB'");
}

// The node's CPUs as the kernel and SLURM count them (hardware threads: what `nproc --all` and
// slurmd -C's CPUs= say): the `processor` entries of /proc/cpuinfo, or of the file
// ZEROFORGE_CPUINFO names (for tests). The whole node, not this process's affinity: inside a
// job or a container limited to some CPUs, the tier still describes the node.
std::int64_t cpu_count(std::string& source) {
  const char* env = std::getenv("ZEROFORGE_CPUINFO");
  source = env && *env ? env : "/proc/cpuinfo";
  const std::string text = read_file(source);
  std::istringstream lines(text);
  std::int64_t count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("processor")) continue;
    const std::size_t rest = line.find_first_not_of(" \t", 9);
    if (rest != std::string::npos && line[rest] == ':') ++count;
  }
  if (count > 0 && count <= kMaxTierCpuCores) return count;
  // A kernel that lists its CPUs otherwise (s390x writes "processor 0: ..."): as glibc counts.
  const long online = sysconf(_SC_NPROCESSORS_CONF);
  if (online > 0 && online <= kMaxTierCpuCores) {
    source = "sysconf(_SC_NPROCESSORS_CONF)";
    return online;
  }
  throw Error(ErrorKind::Io, source + ": expected 'processor : N' lines, one per CPU");
}

// The CPUs this process may run on (sched_getaffinity), or 0 when the kernel does not say.
std::int64_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// Letters, digits, '.', '_' and '-', not starting with '.' or '-': a file name in DIR and
// nothing else (no '/', no '..', nothing a shell or a terminal would act on).
bool is_plain_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name.front() == '.' || name.front() == '-') {
    return false;
  }
  for (unsigned char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// nvidia-smi answers in well under a second; a wedged driver can make it hang for good.
constexpr long long kDefaultTimeout = 60;
constexpr long long kMaxTimeout = 86400;

// --timeout, else ZEROFORGE_PROBE_TIMEOUT, else the default; anything but whole seconds in
// range is an error, not ignored.
std::chrono::seconds probe_timeout(bool given, long long option) {
  if (given)
    return std::chrono::seconds(checked_number("probe", "timeout", option, 1, kMaxTimeout));
  const char* env = std::getenv("ZEROFORGE_PROBE_TIMEOUT");
  if (env == nullptr) return std::chrono::seconds(kDefaultTimeout);
  const std::string text = env;
  long long seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || seconds < 1 ||
      seconds > kMaxTimeout) {
    throw Error(ErrorKind::Usage, "ZEROFORGE_PROBE_TIMEOUT='" + text +
                                      "' must be a whole number from 1 to " +
                                      std::to_string(kMaxTimeout) +
                                      " (the seconds probe waits for nvidia-smi; 60 when unset)");
  }
  return std::chrono::seconds(seconds);
}

}  // namespace

int run_probe(const std::vector<std::string>& args) {
  long long nodes = 1;
  long long timeout = kDefaultTimeout;
  std::string save;
  std::string dir = ".";
  std::string format = "text";
  po::options_description options("zeroforge probe [options]");
  options.add_options()("help,h", "show this help")("nodes", po::value(&nodes),
                                                    "nodes like this one in the tier (default 1)")(
      "save", po::value(&save),
      "write the tier to DIR/NAME.json (atomically) instead of stdout; NAME is a plain file "
      "name")("dir", po::value(&dir), "the directory --save writes to (default: the current one)")(
      "format", po::value(&format), "text (default: a summary on stderr) or json (no summary)")(
      "timeout", po::value(&timeout),
      "seconds to wait for nvidia-smi (default 60, or ZEROFORGE_PROBE_TIMEOUT); it and what it "
      "started are killed then");
  po::variables_map vm;
  // No positional arguments: a stray word is an error, not ignored.
  const po::positional_options_description none;
  po::store(po::command_line_parser(args).options(options).positional(none).run(), vm);
  if (vm.count("help")) {
    std::cout
        << "Reads this machine's GPUs (nvidia-smi on PATH; only those CUDA_VISIBLE_DEVICES\n"
           "names, when it is set), host memory (/proc/meminfo) and CPUs (/proc/cpuinfo) and\n"
           "prints them as a tier in the format of presets/tiers/*.json. Mixed GPUs: the\n"
           "smallest memory, with a warning. Use a saved tier with --tier DIR/NAME.json.\n"
           "Exit 0: the tier; 2: no nvidia-smi, no GPU, or output it cannot read.\n\n"
        << options << '\n';
    return kSuccess;
  }
  po::notify(vm);
  if (format != "text" && format != "json") {
    throw Error(ErrorKind::Usage, "probe: --format must be text or json, not '" + format + "'");
  }
  checked_number("probe", "nodes", nodes, 1, 1000000);
  std::string file_name;
  if (vm.count("save")) {
    file_name = save.ends_with(".json") ? save : save + ".json";
    if (!is_plain_name(file_name)) {
      throw Error(
          ErrorKind::Usage,
          "probe: --save " +
              nlohmann::json(save).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
              " is not a plain file name (letters, digits, '.', '_', "
              "'-'; not starting with '.' or '-'): give the directory "
              "with --dir");
    }
  } else if (vm.count("dir")) {
    throw Error(ErrorKind::Usage, "probe: --dir is where --save writes; give --save NAME too");
  }
  if (dir == "-") {
    throw Error(ErrorKind::Usage,
                "probe: --dir - is stdout, but --save writes into a directory; leave out --save "
                "to print the tier");
  }

  const std::chrono::seconds wait = probe_timeout(vm.count("timeout") != 0, timeout);
  const std::vector<Gpu> all = query_gpus(wait);
  const char* cuda_visible = std::getenv("CUDA_VISIBLE_DEVICES");
  VisibleGpus visible = visible_gpus(all, cuda_visible, std::getenv("CUDA_DEVICE_ORDER"));
  print_diagnostics(std::cerr, visible.warnings);
  if (visible.gpus.empty()) throw Error(ErrorKind::Usage, visible.none_left);
  const std::vector<Gpu>& gpus = visible.gpus;
  std::string meminfo;
  const std::int64_t host_kib = mem_total_kib(meminfo);
  std::string cpuinfo;
  const std::int64_t cpus = cpu_count(cpuinfo);

  // Every rank must fit: a mixed machine is described by its smallest GPU.
  std::int64_t smallest_mib = gpus.front().memory_mib;
  std::map<std::pair<std::string, std::int64_t>, int> kinds;
  for (const Gpu& gpu : gpus) {
    smallest_mib = std::min(smallest_mib, gpu.memory_mib);
    ++kinds[{gpu.name, gpu.memory_mib}];
  }
  const std::int64_t gpu_centi = centi_gib(smallest_mib, 1024);
  const std::int64_t cpu_centi = centi_gib(host_kib, 1024 * 1024);
  // A tier with no memory is refused wherever it is read (load_tier_file): never write one.
  if (gpu_centi == 0) {
    throw Error(ErrorKind::Usage, "nvidia-smi reports " + std::to_string(smallest_mib) +
                                      " MiB of memory for a GPU: less than 0.01 GiB, which a "
                                      "tier cannot describe; " +
                                      "check the driver (run nvidia-smi yourself)");
  }
  if (cpu_centi == 0) {
    throw Error(ErrorKind::Io, meminfo + ": MemTotal is " + std::to_string(host_kib) +
                                   " kB, less than 0.01 GiB, which a tier cannot describe");
  }
  if (auto mixed = mixed_gpus_warning(gpus, cuda_visible != nullptr))
    print_diagnostic(std::cerr, *mixed);

  nlohmann::ordered_json tier;
  tier["gpus_per_node"] = static_cast<std::int64_t>(gpus.size());
  tier["nodes"] = nodes;
  tier["gpu_memory_gib"] = static_cast<double>(gpu_centi) / 100.0;
  tier["cpu_memory_gib"] = static_cast<double>(cpu_centi) / 100.0;
  tier["cpu_cores"] = cpus;
  const std::string text = to_json_text(tier);

  fs::path saved;
  if (!file_name.empty()) {
    saved = fs::path(dir) / file_name;
    write_file_atomically(saved, text);
  } else {
    std::cout << text;
    std::cout.flush();
  }
  if (format == "text") {
    print_message(std::cerr,
                  "GPUs: " + (kinds.size() == 1 ? describe_gpu_kind(kinds.begin()->first.first,
                                                                    kinds.begin()->first.second,
                                                                    kinds.begin()->second)
                                                : std::to_string(gpus.size()) + ", counted as " +
                                                      centi_text(gpu_centi) + " GiB each"));
    if (cuda_visible) {
      print_message(std::cerr, "CUDA_VISIBLE_DEVICES=" + std::string(cuda_visible) + ": " +
                                   std::to_string(gpus.size()) + " of the " +
                                   std::to_string(all.size()) + " GPUs nvidia-smi lists");
    }
    print_message(std::cerr,
                  "host memory: " + centi_text(cpu_centi) + " GiB (MemTotal of " + meminfo + ")");
    // This process's own CPUs, when the count is this machine's (not a test's file).
    const std::int64_t usable = std::getenv("ZEROFORGE_CPUINFO") ? 0 : usable_cpus();
    print_message(std::cerr, "CPUs: " + std::to_string(cpus) + " (" + cpuinfo + ")" +
                                 (usable > 0 && usable < cpus
                                      ? "; this process may use " + std::to_string(usable) +
                                            " of them (sched_getaffinity): the tier counts "
                                            "the node's"
                                      : ""));
    print_message(std::cerr, "nodes: " + std::to_string(nodes) +
                                 (nodes == 1 ? "" : " (each taken to be like this one)"));
    if (!saved.empty()) {
      print_message(std::cerr,
                    "saved " + saved.string() + ": use it with --tier " + saved.string());
    }
  }
  return kSuccess;
}

}  // namespace zf::cli
