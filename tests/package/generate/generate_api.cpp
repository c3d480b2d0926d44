// SPDX-License-Identifier: MIT
// Generates the shipped family `example` through the library into ARGV[1], checks what the
// result says against the files, then checks the directory is up to date.
#include <filesystem>
#include <iostream>
#include <zeroforge/error.hpp>
#include <zeroforge/generate.hpp>

namespace fs = std::filesystem;

int fail(const std::string& why) {
  std::cerr << "generate_api: " << why << '\n';
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return fail("usage: generate_api DIR");
  try {
    zf::GenerateRequest request;
    request.family = "example";
    request.output_dir = argv[1];
    request.data_dir = ZEROFORGE_DATA_DIR;
    request.builtin_plugin_dir = ZEROFORGE_PLUGIN_DIR;
    request.list_files = true;
    zf::GenerateResult result = zf::generate(request);
    for (const auto& message : result.messages) std::cerr << zf::to_string(message) << '\n';
    if (result.outcome != zf::Outcome::Done) return fail("not generated (see the messages)");
    if (result.configs == 0) return fail("no configs");
    if (result.written != result.configs) return fail("a new directory: every config is written");
    if (!fs::is_regular_file(result.manifest)) return fail("no " + result.manifest.string());
    for (const auto& file : result.files) {
      if (!fs::is_regular_file(request.output_dir / file.path))
        return fail("listed but absent: " + file.path);
    }
    if (result.inputs.empty()) return fail("no inputs listed");

    request.check = true;
    zf::GenerateResult check = zf::generate(request);
    if (check.outcome != zf::Outcome::Done || !check.files.empty())
      return fail("the directory just written is not up to date");

    std::cout << "generated " << result.configs << " configs of family '" << result.family_name
              << "', " << result.inputs.size() << " inputs\n";
    return 0;
  } catch (const zf::Error& error) {
    return fail(error.what());
  }
}
