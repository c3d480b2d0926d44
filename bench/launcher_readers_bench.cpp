// SPDX-License-Identifier: MIT
// Benchmark of the readers of launcher files `validate --against-args` uses (issue 22: both
// were quadratic, 40k YAML keys 8.6 s, 40k hostfile lines 4.3 s): the YAML subset reader of
// accelerate configs (engine/src/validate/yaml_subset.cpp) on a mapping of N keys, and DeepSpeed's
// hostfile through load_launcher_files on N hosts. Prints the median milliseconds of R runs and
// the nanoseconds per line for each N: a linear reader keeps the per-line time flat as N grows.
//
//   zeroforge_launcher_readers_bench [--n N]... [--runs R] [--dir DIR]
//   (default: --n 10000 --n 20000 --n 40000 --runs 5; DIR, where the hostfile is written:
//   /dev/shm when it exists, else the system temp directory)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "validate/yaml_subset.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/validator.hpp"

namespace {

namespace fs = std::filesystem;

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

// The median milliseconds of `runs` calls of `work`.
template <typename Work>
double median_ms(int runs, Work work) {
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    samples.push_back(took.count());
  }
  return median(samples);
}

void report(const char* reader, std::size_t n, double ms) {
  std::printf("%-8s lines %6zu  median-ms %9.2f  per-line-ns %8.0f\n", reader, n, ms,
              ms * 1e6 / static_cast<double>(n));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  int runs = 5;
  fs::path dir = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "zeroforge_launcher_readers_bench: %s needs a value\n", arg.c_str());
      return 2;
    }
    if (arg == "--n") {
      sizes.push_back(std::strtoull(argv[++i], nullptr, 10));
    } else if (arg == "--runs") {
      runs = std::atoi(argv[++i]);
    } else if (arg == "--dir") {
      dir = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: zeroforge_launcher_readers_bench [--n N]... [--runs R] [--dir DIR]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {10000, 20000, 40000};
  if (runs < 1 || std::any_of(sizes.begin(), sizes.end(), [](std::size_t n) { return n == 0; })) {
    std::fprintf(stderr, "zeroforge_launcher_readers_bench: --n and --runs must be positive\n");
    return 2;
  }
  const fs::path hostfile = dir / ("zeroforge-bench-" + std::to_string(::getpid()) + ".hostfile");
  try {
    for (std::size_t n : sizes) {
      // An accelerate-config-like mapping of n keys (each distinct, as a duplicate is refused).
      std::string yaml;
      for (std::size_t i = 0; i < n; ++i)
        yaml += "key_" + std::to_string(i) + ": " + std::to_string(i) + "\n";
      std::size_t keys = 0;
      const double yaml_ms = median_ms(
          runs, [&] { keys = zf::validate::parse_yaml_subset(yaml, "bench.yaml").size(); });
      if (keys != n) throw std::runtime_error("the YAML reader read " + std::to_string(keys));
      report("yaml", n, yaml_ms);

      {
        std::ofstream out(hostfile, std::ios::binary | std::ios::trunc);
        for (std::size_t i = 0; i < n; ++i) out << "node-" << i << " slots=8\n";
      }
      long long world = 0;
      const double hostfile_ms = median_ms(runs, [&] {
        zf::TrainingCommand command;
        command.launcher = "deepspeed";
        command.hostfile = hostfile.string();
        zf::load_launcher_files(command);
        world = command.world_size.value_or(0);
      });
      if (world != static_cast<long long>(8 * n))
        throw std::runtime_error("the hostfile reader counted " + std::to_string(world));
      report("hostfile", n, hostfile_ms);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeroforge_launcher_readers_bench: %s\n", e.what());
    fs::remove(hostfile);
    return 1;
  }
  fs::remove(hostfile);
  return 0;
}
