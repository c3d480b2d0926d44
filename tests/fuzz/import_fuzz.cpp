// SPDX-License-Identifier: MIT
// Fuzz target: `zeroforge import` (zf::import_configs, engine/src/import/) of up to four
// DeepSpeed configs into one family: each read, judged by the validator, fitted against the
// template (and a tier), the shared values grouped, and the family checked by expanding and
// rendering it as generate does. Besides a crash, it aborts when the import reports a bug in
// itself (a member that does not give its input back) or writes a family that generate could
// not read (the family file, written as the CLI writes it, read back by load_family).
//
// Input: a flags byte (bit 0: on the shipped `medium` tier; bit 1: --hf; bit 2: --strict;
// bit 3: pinned to the oldest DeepSpeed release zeroforge knows; bits 4-5: the inputs sit in
// 1 to 4 directories, so the members' output paths nest), then the configs separated by NUL
// bytes (a NUL cannot appear in JSON text: it is always a separator).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/import.hpp"
#include "zeroforge/output.hpp"

namespace {

namespace fs = std::filesystem;

fs::path root;  // made once; each run's inputs and family below it

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "import_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char pattern[] = "/tmp/zeroforge-import-fuzz-XXXXXX";
  if (mkdtemp(pattern) == nullptr) std::abort();
  root = pattern;
  unsetenv("ZEROFORGE_MAX_INPUT_MIB");
  unsetenv("ZEROFORGE_TIER_PATH");
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(root, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > 65536) return 0;
  const unsigned flags = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string_view> configs;
  for (std::size_t at = 0;;) {
    const std::size_t nul = text.find('\0', at);
    configs.push_back(text.substr(at, nul == std::string_view::npos ? nul : nul - at));
    if (nul == std::string_view::npos) break;
    at = nul + 1;
  }
  if (configs.size() > 4) return 0;

  std::error_code ec;
  const fs::path run = root / "run";
  fs::remove_all(run, ec);
  zf::ImportRequest request;
  const unsigned directories = 1 + ((flags >> 4) & 3);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const fs::path dir = run / "configs" / ("team-" + std::to_string(i % directories));
    fs::create_directories(dir);
    const fs::path file = dir / ("ds_config_" + std::to_string(i) + ".json");
    std::ofstream(file, std::ios::binary) << configs[i];
    request.configs.push_back(file.string());
  }
  request.family_file = run / "families" / "imported.json";
  fs::create_directories(request.family_file.parent_path());
  request.data_dir = ZF_FUZZ_DATA_DIR;
  if ((flags & 1) != 0) request.tier = "medium";
  request.validate.hf = (flags & 2) != 0;
  request.validate.strict = (flags & 4) != 0;
  if ((flags & 8) != 0) request.validate.deepspeed_version = zf::deepspeed_versions().front();

  zf::ImportResult result;
  try {
    result = zf::import_configs(request);
  } catch (const zf::Error& e) {
    // Bad input is an error at its place; the import's own check of the family is not. Matched
    // by how that message ends: an input may quote the words back (a key in a parse error).
    if (std::string_view(e.message())
            .ends_with("does not give it back (a bug in zeroforge import)"))
      bug(e.what());
    return 0;
  }
  // What the CLI writes (import_command.cpp), read back as generate reads a family file.
  std::ofstream(request.family_file, std::ios::binary) << zf::to_json_text(result.family);
  try {
    zf::load_family(request.family_file);
  } catch (const zf::Error& e) {
    bug(std::string("the family it wrote cannot be read back: ") + e.what());
  }
  for (const auto& finding : result.findings) zf::format_finding(finding);
  return 0;
}
