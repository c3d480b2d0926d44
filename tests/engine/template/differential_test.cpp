// SPDX-License-Identifier: MIT
// The differential corpus: every case under tests/corpus/template/ is rendered by zeroforge and by
// Python's Jinja2 (tests/corpus/jinja2_oracle.py, run once) and the two results must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/oracle.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/value.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

const fs::path kCorpusDir = fs::path(ZF_SOURCE_DIR) / "tests" / "corpus" / "template";
const fs::path kOracle = fs::path(ZF_SOURCE_DIR) / "tests" / "corpus" / "jinja2_oracle.py";
constexpr std::size_t kMinCases = 150;
constexpr std::size_t kMinErrorCases = 25;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> corpus_cases() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kCorpusDir, ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The entry template of a case: `template.json.j2` for JSON output, else `template.j2`.
std::string entry_template(const fs::path& case_dir) {
  return fs::exists(case_dir / "template.json.j2") ? "template.json.j2" : "template.j2";
}

// GoogleTest names allow only letters, digits and '_': `loop-revindex` becomes `loop_revindex`.
std::string test_name(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// What Jinja2 did with every case, computed once for the whole run.
struct Oracle {
  bool available = false;
  std::string skip_reason;
  std::string failure;  // the oracle itself did not run or printed something unreadable
  nlohmann::json results;
};

const Oracle& oracle() {
  static const Oracle cached = [] {
    Oracle oracle;
    if (std::system("python3 -c 'import jinja2' >/dev/null 2>&1") != 0) {
      oracle.skip_reason =
          "Python's Jinja2 is not available (`python3 -c 'import jinja2'` failed); "
          "install python3-jinja2 to run the differential corpus";
      return oracle;
    }
    oracle.available = true;
    std::string command = "python3 '" + kOracle.string() + "' '" + kCorpusDir.string() + "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
      oracle.failure = "cannot run " + command;
      return oracle;
    }
    std::string output;
    char buffer[65536];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    int status = pclose(pipe);
    if (status != 0) {
      oracle.failure = command + " exited with status " + std::to_string(status);
      return oracle;
    }
    try {
      oracle.results = nlohmann::json::parse(output);
    } catch (const std::exception& e) {
      oracle.failure = "the oracle printed invalid JSON: " + std::string(e.what());
    }
    return oracle;
  }();
  return cached;
}

// What zeroforge did with one case.
struct EngineResult {
  bool ok = false;
  bool foreign_exception = false;  // failed with an exception that is not zf::Error
  std::string error;
  std::string text;
  ordered_json json;
};

EngineResult render_with_zeroforge(const fs::path& case_dir, bool is_json) {
  EngineResult result;
  try {
    zf::EnvironmentOptions options;
    options.search_path = {case_dir};
    if (fs::exists(case_dir / "options.json")) {
      auto json = ordered_json::parse(read_text(case_dir / "options.json"));
      options.trim_blocks = json.value("trim_blocks", false);
      options.lstrip_blocks = json.value("lstrip_blocks", false);
    }
    ordered_json values = ordered_json::object();
    if (fs::exists(case_dir / "values.json"))
      values = ordered_json::parse(read_text(case_dir / "values.json"));
    zf::Environment environment(std::move(options));
    auto tpl = environment.load(entry_template(case_dir));
    zf::Value context = zf::Value::from_json(values);
    if (is_json) {
      result.json = tpl->render_json(context);
    } else {
      result.text = tpl->render(context);
    }
    result.ok = true;
  } catch (const zf::Error& e) {
    result.error = e.what();
  } catch (const std::exception& e) {
    result.foreign_exception = true;
    result.error = std::string("exception that is not zf::Error: ") + e.what();
  }
  return result;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      return lines;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

// A line with its invisible characters spelled out, so trailing spaces and tabs show.
std::string visible(const std::string& line) {
  std::string out = "\"";
  for (char c : line) {
    switch (c) {
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

std::string describe_difference(const std::string& expected, const std::string& actual) {
  auto want = split_lines(expected);
  auto got = split_lines(actual);
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  std::ostringstream out;
  out << "first difference at line " << i + 1 << ":\n"
      << "  jinja2:    " << (i < want.size() ? visible(want[i]) : "<no more lines>") << "\n"
      << "  zeroforge: " << (i < got.size() ? visible(got[i]) : "<no more lines>") << "\n"
      << "--- jinja2 output ---\n"
      << expected << "\n--- zeroforge output ---\n"
      << actual << "\n--- end ---";
  return out.str();
}

class DifferentialTest : public testing::TestWithParam<std::string> {};

TEST_P(DifferentialTest, MatchesJinja2) {
  const Oracle& jinja = oracle();
  if (!jinja.available) ZF_ORACLE_MISSING(jinja.skip_reason);
  ASSERT_TRUE(jinja.failure.empty()) << jinja.failure;

  const std::string& name = GetParam();
  const fs::path case_dir = kCorpusDir / name;
  ASSERT_TRUE(jinja.results.contains(name)) << "the oracle has no result for " << name;
  const auto& reference = jinja.results.at(name);
  const bool jinja_ok = reference.at("ok").get<bool>();
  const bool expect_error = fs::exists(case_dir / "expect_error");
  const bool is_json = entry_template(case_dir) == "template.json.j2";
  SCOPED_TRACE("case " + case_dir.string());

  EngineResult engine = render_with_zeroforge(case_dir, is_json);
  if (engine.foreign_exception) {
    ADD_FAILURE() << "zeroforge must report every failure as zf::Error; got " << engine.error;
  }
  if (expect_error) {
    EXPECT_FALSE(jinja_ok) << "corpus error: the case has expect_error but Jinja2 rendered:\n"
                           << reference.value("output", "");
    EXPECT_FALSE(engine.ok) << "Jinja2 fails (" << reference.value("error", "")
                            << ") but zeroforge rendered:\n"
                            << (is_json ? engine.json.dump(2) : engine.text);
    return;
  }
  ASSERT_TRUE(jinja_ok) << "corpus error: Jinja2 fails on a case without expect_error: "
                        << reference.value("error", "");
  const std::string expected = reference.at("output").get<std::string>();
  ASSERT_TRUE(engine.ok) << "zeroforge failed: " << engine.error << "\nJinja2 rendered:\n"
                         << expected;

  if (is_json) {
    // Compared as JSON values: key order counts, numbers compare by value (5e8 == 500000000).
    ordered_json want = ordered_json::parse(expected);
    EXPECT_TRUE(want == engine.json) << describe_difference(want.dump(2), engine.json.dump(2));
  } else {
    EXPECT_TRUE(expected == engine.text) << describe_difference(expected, engine.text);
  }
}

INSTANTIATE_TEST_SUITE_P(Differential, DifferentialTest, testing::ValuesIn(corpus_cases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return test_name(info.param);
                         });

TEST(DifferentialCorpusTest, IsLargeAndWellFormed) {
  auto names = corpus_cases();
  EXPECT_GE(names.size(), kMinCases);
  std::size_t errors = 0;
  std::map<std::string, std::string> gtest_names;
  for (const auto& name : names) {
    const fs::path dir = kCorpusDir / name;
    EXPECT_TRUE(fs::exists(dir / "template.j2") || fs::exists(dir / "template.json.j2"))
        << name << " has no template.j2 or template.json.j2";
    if (fs::exists(dir / "expect_error")) ++errors;
    auto [it, inserted] = gtest_names.emplace(test_name(name), name);
    EXPECT_TRUE(inserted) << name << " and " << it->second << " get the same test name";
  }
  EXPECT_GE(errors, kMinErrorCases);
}

}  // namespace
