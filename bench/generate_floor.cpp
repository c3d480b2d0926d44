// SPDX-License-Identifier: MIT
// The floor of bench/generate_bench.sh: nlohmann parse + dump (indent 2) + write of the same
// config texts `zeroforge generate` wrote, read into memory first (untimed). No rendering, no
// values, no checks: what any tool producing these files must at least spend.
//
//   zeroforge_generate_floor SRC_DIR OUT_DIR    prints `floor seconds S files N`
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: zeroforge_generate_floor SRC_DIR OUT_DIR\n";
    return 2;
  }
  fs::path src = argv[1], out = argv[2];
  std::vector<std::pair<fs::path, std::string>> files;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file() || entry.path().filename() == "manifest.json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.emplace_back(entry.path().lexically_relative(src), text.str());
  }
  auto start = std::chrono::steady_clock::now();
  std::set<fs::path> made;
  for (const auto& [relative, text] : files) {
    auto json = nlohmann::ordered_json::parse(text);
    std::string dumped = json.dump(2) + "\n";
    fs::path path = out / relative;
    if (made.insert(path.parent_path()).second) fs::create_directories(path.parent_path());
    std::ofstream file(path, std::ios::binary);
    file << dumped;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "floor seconds " << seconds << " files " << files.size() << '\n';
  return 0;
}
