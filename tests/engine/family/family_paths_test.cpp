// SPDX-License-Identifier: MIT
// Where a family's files are (engine/src/family/family_paths.cpp): the file a family name or path
// means, and its template_dirs, whose entries that are not directories have their own code.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/family_file.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Paths longer than std::string's small buffer, as a team's repository has them.
const std::string kFolder = "platform-team-deepspeed-configurations/families-under-review/";

TEST(FamilyPathsTest, TemplateDirsAreRelativeToTheFamilyFile) {
  test::TempDir dir;
  dir.write(kFolder + "site-templates-of-the-platform-team/notes.txt.j2", "x");
  const std::string file = (dir.path() / kFolder / "llama-70b-finetune.json").string();
  const Family family = parse_family(Json::parse(R"({"name": "a", "template": "t",
                      "template_dirs": ["site-templates-of-the-platform-team"]})"),
                                     file);
  EXPECT_EQ(family_template_dirs(family),
            std::vector<fs::path>{dir.path() / kFolder / "site-templates-of-the-platform-team"});
}

// An entry that is no directory is `family.template-dir` (docs/cli.md), at its pointer, with
// the text it always had.
TEST(FamilyPathsTest, ATemplateDirThatIsNoDirectoryHasItsOwnCode) {
  test::TempDir dir;
  dir.write(kFolder + "site-templates-of-the-platform-team/notes.txt.j2", "x");
  dir.write(kFolder + "a-file-where-a-template-directory-belongs.txt", "x");
  const std::string file = (dir.path() / kFolder / "llama-70b-finetune.json").string();
  struct Case {
    const char* name;
    const char* dirs;  // the family's template_dirs
    const char* pointer;
    std::string entry;  // the entry named in the message
  };
  const Case cases[] = {
      {"missing", R"(["no-such-template-directory-of-the-team"])", "/template_dirs/0",
       "no-such-template-directory-of-the-team"},
      {"a file, after a good one",
       R"(["site-templates-of-the-platform-team", "a-file-where-a-template-directory-belongs.txt"])",
       "/template_dirs/1", "a-file-where-a-template-directory-belongs.txt"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Family family = parse_family(
        Json::parse(std::string(R"({"name": "a", "template": "t", "template_dirs": )") + c.dirs +
                    "}"),
        file);
    try {
      family_template_dirs(family);
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      const Diagnostic d = to_diagnostic(error);
      EXPECT_EQ(d.code, "family.template-dir");
      EXPECT_EQ(d.kind, ErrorKind::Values);
      EXPECT_EQ(d.json_pointer, c.pointer);
      EXPECT_EQ(to_string(d), file + ": " + c.pointer + ": error: template directory '" + c.entry +
                                  "' is not a directory (" +
                                  (dir.path() / kFolder / c.entry).string() +
                                  "; template_dirs are relative to the family file)");
      EXPECT_EQ(to_string(d), error.what());
    }
  }
}

TEST(FamilyPathsTest, AFamilyIsAPathOrAShippedName) {
  test::TempDir dir;
  const std::string file = dir.write(kFolder + "llama-70b-finetune.json", "{}").string();
  const fs::path data_dir = dir.path() / "share-zeroforge-of-this-installation";
  const std::string shipped = dir.write(
                                     "share-zeroforge-of-this-installation/presets/families/"
                                     "llama-7b.json",
                                     "{}")
                                  .string();
  EXPECT_EQ(resolve_family(file, data_dir), fs::path(file));
  EXPECT_EQ(resolve_family("llama-7b", data_dir), fs::path(shipped));
  struct Case {
    std::string family;
    std::string expected;
  };
  const std::string missing = (dir.path() / kFolder / "no-such-family-of-the-team.json").string();
  const Case cases[] = {
      {missing, "zeroforge: error: family file '" + missing + "' not found"},
      {"no-such-shipped-family",
       "zeroforge: error: unknown family 'no-such-shipped-family' (no " +
           (data_dir / "presets" / "families" / "no-such-shipped-family.json").string() +
           "; 'zeroforge list presets' shows the shipped ones)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.family);
    try {
      resolve_family(c.family, data_dir);
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::Usage);
      EXPECT_EQ(to_diagnostic(error).code, "usage.invalid");
      EXPECT_EQ(to_string(to_diagnostic(error)), c.expected);
    }
  }
}

}  // namespace
}  // namespace zf
