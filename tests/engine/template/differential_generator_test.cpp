// SPDX-License-Identifier: MIT
// Random differential tests: tests/corpus/template_generator.py writes seeded random templates
// and what Python's Jinja2 made of each, with the library templates they may import;
// zeroforge must agree on every one (the same text, or both refuse). A fixed seed and a
// modest count run in the suite; for a longer run by hand:
//   ZF_GENERATOR_SEED=7 ZF_GENERATOR_COUNT=20000 build/bin/zeroforge_tests
//     --gtest_filter='DifferentialGeneratorTest.*'    (one command line)
// ZF_GENERATOR_PYTHON picks the Python (and so the Jinja2) that renders the oracle side, and
// ZF_GENERATOR_DUMP=FILE writes every divergence (not only the first ten) as JSON lines.
// A divergence is minimised into a named case under tests/corpus/template/ (see
// tests/corpus/README.md) and fixed, or documented in docs/template-language.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "support/oracle.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kGenerator = fs::path(ZF_SOURCE_DIR) / "tests" / "corpus" / "template_generator.py";
constexpr long kDefaultSeed = 28;
constexpr long kDefaultCount = 400;

std::string text_setting(const char* name, const std::string& fallback) {
  const char* text = std::getenv(name);
  return text == nullptr || *text == '\0' ? fallback : std::string(text);
}

long setting(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtol(text, nullptr, 10);
}

// Runs `command` and returns what it printed, or nullopt when it failed.
std::optional<std::string> run(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string output;
  char buffer[65536];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  if (pclose(pipe) != 0) return std::nullopt;
  return output;
}

TEST(DifferentialGeneratorTest, RandomTemplatesMatchJinja2) {
  const std::string python = text_setting("ZF_GENERATOR_PYTHON", "python3");
  if (std::system((python + " -c 'import jinja2' >/dev/null 2>&1").c_str()) != 0) {
    ZF_ORACLE_MISSING(
        "Python's Jinja2 is not available; install python3-jinja2 to run the random "
        "differential tests");
  }
  const long seed = setting("ZF_GENERATOR_SEED", kDefaultSeed);
  const long count = setting("ZF_GENERATOR_COUNT", kDefaultCount);
  auto output = run(python + " '" + kGenerator.string() + "' --seed " + std::to_string(seed) +
                    " --count " + std::to_string(count));
  ASSERT_TRUE(output.has_value()) << "the generator failed";
  const auto generated = nlohmann::ordered_json::parse(*output);
  const zf::Value values = zf::Value::from_json(generated.at("values"));
  const auto& cases = generated.at("cases");
  ASSERT_EQ(cases.size(), static_cast<std::size_t>(count));

  const std::string dump_path = text_setting("ZF_GENERATOR_DUMP", "");
  std::ofstream dump;
  if (!dump_path.empty()) {
    dump.open(dump_path);
    ASSERT_TRUE(dump) << "cannot write " << dump_path;
  }

  // The templates the generated ones import, on the search path as Jinja2's loader has them.
  const fs::path library =
      fs::temp_directory_path() /
      ("zf-generator-" + std::to_string(::getpid()) + "-" + std::to_string(seed));
  fs::create_directories(library);
  for (const auto& [name, text] : generated.at("templates").items()) {
    std::ofstream(library / name, std::ios::binary) << text.get<std::string>();
  }
  zf::EnvironmentOptions options;
  options.search_path = {library};
  zf::Environment environment(options);
  std::size_t agreed = 0, both_rendered = 0, shown = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string source = c.at("template").get<std::string>();
    const bool jinja_ok = c.at("ok").get<bool>();
    bool ok = false;
    std::string text;
    try {
      text = environment.from_string(source, "generated.j2")->render(values);
      ok = true;
    } catch (const zf::Error& error) {
      text = error.what();
    }
    const bool same = jinja_ok ? ok && text == c.at("output").get<std::string>() : !ok;
    if (same) {
      ++agreed;
      both_rendered += ok;
      continue;
    }
    if (dump.is_open()) {
      nlohmann::ordered_json line{{"case", i}, {"template", source}};
      line["jinja2"] = jinja_ok ? c.at("output") : c.at("error");
      line["jinja2_ok"] = jinja_ok;
      line["zeroforge"] = text;
      line["zeroforge_ok"] = ok;
      dump << line.dump() << '\n';
    }
    if (shown++ < 10) {
      ADD_FAILURE() << "seed " << seed << ", case " << i << ": zeroforge and Jinja2 disagree\n"
                    << "template: " << source << "\njinja2:    "
                    << (jinja_ok ? "rendered " + c.at("output").dump()
                                 : "failed: " + c.at("error").get<std::string>())
                    << "\nzeroforge: "
                    << (ok ? "rendered " + nlohmann::json(text).dump() : "failed: " + text);
    }
  }
  fs::remove_all(library);
  std::printf(
      "[ generator ] seed %ld, oracle %s: %zu templates, %zu agree (%zu rendered by "
      "both)\n",
      seed, generated.at("oracle").get<std::string>().c_str(), cases.size(), agreed, both_rendered);
  EXPECT_EQ(agreed, cases.size());
}

}  // namespace
