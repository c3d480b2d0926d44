// SPDX-License-Identifier: MIT
// Fuzz target: the JSON reader (parse_json_text), the writer on what it read, and the readers of
// what values files and defaults.json hold (the values contract, template defaults).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace {

// A private directory holding `fuzz/defaults.json`, rewritten for each input that is an object.
const std::filesystem::path& defaults_dir() {
  static const std::filesystem::path dir = [] {
    auto path = std::filesystem::temp_directory_path() /
                ("zeroforge-json-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path / "fuzz");
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::ordered_json json = zf::parse_json_text(text, "fuzz.json");
    zf::to_json_text(json);
    if (!json.is_object()) return 0;
    zf::check_deepspeed_values(json);
    zf::write_file_atomically(defaults_dir() / "fuzz" / "defaults.json", text);
    static const zf::Environment environment({.search_path = {defaults_dir()}});
    zf::load_template_defaults(environment, "fuzz/x.json.j2");
  } catch (const zf::Error&) {
    // Malformed input is reported as zf::Error; anything else escapes.
  }
  return 0;
}
