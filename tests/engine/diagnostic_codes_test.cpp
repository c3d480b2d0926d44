// SPDX-License-Identifier: MIT
// Tests for the diagnostic code registry (zeroforge/diagnostic_codes.hpp): docs/cli.md's table
// lists exactly the registered codes at exactly their severities, and no source file of the
// product spells a code outside the registry (it uses the zf::codes constants), so a new code
// cannot be added without its row here, in the docs, and its meaning.
#include "zeroforge/diagnostic_codes.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace zf {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = ZF_SOURCE_DIR;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned severities_named_in(const std::string& text) {
  unsigned bits = 0;
  if (text.find("error") != std::string::npos) bits |= severity_bit(Severity::Error);
  if (text.find("warning") != std::string::npos) bits |= severity_bit(Severity::Warning);
  if (text.find("note") != std::string::npos) bits |= severity_bit(Severity::Note);
  return bits;
}

// The rows of docs/cli.md's "Diagnostic codes" table: code -> its severity column.
std::map<std::string, std::string> documented_codes() {
  std::istringstream doc(read_file(kSource / "docs/cli.md"));
  std::map<std::string, std::string> rows;
  bool in_section = false;
  const std::regex row(R"(^\| `([a-z]+\.[a-z0-9-]+)` \| ([^|]*) \|)");
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Diagnostic codes";
    std::smatch m;
    if (in_section && std::regex_search(line, m, row)) rows[m[1]] = m[2];
  }
  return rows;
}

TEST(DiagnosticCodesTest, TheDocsTableListsEveryCodeAtItsSeveritiesAndNoOther) {
  const auto documented = documented_codes();
  ASSERT_FALSE(documented.empty()) << "no table under '## Diagnostic codes' in docs/cli.md";
  std::set<std::string_view> registered;
  for (const auto& info : diagnostic_codes()) {
    SCOPED_TRACE(std::string(info.code));
    EXPECT_TRUE(registered.insert(info.code).second) << "registered twice";
    EXPECT_FALSE(info.meaning.empty());
    EXPECT_NE(info.severities, 0U);
    const auto row = documented.find(std::string(info.code));
    if (row == documented.end()) {
      ADD_FAILURE() << "registered but not in docs/cli.md's table";
      continue;
    }
    EXPECT_EQ(severities_named_in(row->second), info.severities)
        << "docs/cli.md says '" << row->second << "'";
  }
  for (const auto& [code, severity] : documented)
    EXPECT_TRUE(registered.count(code)) << code << " is in docs/cli.md but not registered";
}

TEST(DiagnosticCodesTest, EveryCodeIsFoundByName) {
  for (const auto& info : diagnostic_codes()) {
    const DiagnosticCodeInfo* found = find_diagnostic_code(info.code);
    ASSERT_NE(found, nullptr) << info.code;
    EXPECT_EQ(found->code, info.code);
  }
  EXPECT_EQ(find_diagnostic_code("values.nope"), nullptr);
  EXPECT_EQ(find_diagnostic_code(""), nullptr);
}

TEST(DiagnosticCodesTest, EveryErrorKindsCodeIsRegistered) {
  for (ErrorKind kind :
       {ErrorKind::Syntax, ErrorKind::Undefined, ErrorKind::Render, ErrorKind::Template,
        ErrorKind::Json, ErrorKind::Values, ErrorKind::Io, ErrorKind::Plugin, ErrorKind::Usage}) {
    const DiagnosticCodeInfo* info = find_diagnostic_code(error_code(kind));
    ASSERT_NE(info, nullptr) << error_code(kind);
    EXPECT_TRUE(info->severities & severity_bit(Severity::Error)) << error_code(kind);
  }
}

// A string literal of the code's shape, AREA.NAME with a registered AREA, is a code: in the
// C++ sources it must not appear outside the registry's header (use zf::codes::...), and in
// the Python package (which matches on codes from the C++ module) it must be registered.
// File names (`family.json`) have that shape too; a name ending in an extension is one.
struct SpelledCode {
  fs::path file;
  int line;
  std::string code;
};

std::vector<SpelledCode> spelled_codes(const std::vector<fs::path>& roots,
                                       const std::set<std::string>& extensions) {
  std::set<std::string> areas;
  for (const auto& info : diagnostic_codes())
    areas.insert(std::string(info.code.substr(0, info.code.find('.'))));
  std::string alternatives;
  for (const auto& area : areas) alternatives += (alternatives.empty() ? "" : "|") + area;
  const std::regex literal("[\"'](" + alternatives + R"()\.([a-z][a-z0-9-]*)["'])");
  const std::set<std::string> file_extensions = {"json", "j2", "hpp", "cpp", "h",    "c",  "yaml",
                                                 "txt",  "sh", "py",  "md",  "html", "so", "toml"};
  std::vector<SpelledCode> found;
  for (const auto& root : roots) {
    for (const auto& entry : fs::recursive_directory_iterator(kSource / root)) {
      if (!entry.is_regular_file() || !extensions.count(entry.path().extension().string()))
        continue;
      std::istringstream text(read_file(entry.path()));
      int number = 0;
      for (std::string line; std::getline(text, line);) {
        ++number;
        // A comment may quote a code (an example); Python's comments start with '#'.
        const auto first = line.find_first_not_of(" \t");
        const bool python = entry.path().extension() == ".py";
        if (first != std::string::npos &&
            (line.compare(first, 2, "//") == 0 || (python && line[first] == '#')))
          continue;
        // std::regex is slow (and slower under the sanitizers): only lines with a quoted
        // dotted word can hold a code.
        if (line.find('.') == std::string::npos || line.find_first_of("\"'") == std::string::npos)
          continue;
        for (auto it = std::sregex_iterator(line.begin(), line.end(), literal);
             it != std::sregex_iterator(); ++it) {
          if (file_extensions.count((*it)[2]) &&
              !find_diagnostic_code((*it)[1].str() + "." + (*it)[2].str()))
            continue;
          found.push_back(
              {fs::relative(entry.path(), kSource), number, (*it)[1].str() + "." + (*it)[2].str()});
        }
      }
    }
  }
  return found;
}

TEST(DiagnosticCodesTest, TheProductsSourcesSpellNoCodeOutsideTheRegistry) {
  const auto spelled =
      spelled_codes({"engine", "plugins", "python/src"}, {".cpp", ".hpp", ".h", ".c", ".in"});
  for (const auto& s : spelled) {
    if (s.file == fs::path("engine/include/zeroforge/diagnostic_codes.hpp")) continue;
    ADD_FAILURE() << s.file.string() << ":" << s.line << ": '" << s.code
                  << "' spelled outside the registry: use zf::codes:: (and register a new code "
                     "in zeroforge/diagnostic_codes.hpp, src/diagnostic_codes.cpp and docs/cli.md)";
  }
}

TEST(DiagnosticCodesTest, ThePythonPackageNamesOnlyRegisteredCodes) {
  for (const auto& s : spelled_codes({"python/zeroforge"}, {".py", ".pyi"}))
    EXPECT_NE(find_diagnostic_code(s.code), nullptr)
        << s.file.string() << ":" << s.line << ": '" << s.code << "' is not a registered code";
}

TEST(DiagnosticCodesTest, TheScanFindsACodeSpelledInALiteral) {
  // The scan above must see what it looks for: the registry's own header spells every code.
  const auto spelled = spelled_codes({"engine/include/zeroforge"}, {".hpp"});
  std::set<std::string> codes;
  for (const auto& s : spelled) codes.insert(s.code);
  for (const auto& info : diagnostic_codes())
    EXPECT_TRUE(codes.count(std::string(info.code))) << info.code;
}

}  // namespace
}  // namespace zf
