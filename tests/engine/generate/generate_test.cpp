// SPDX-License-Identifier: MIT
// zf::generate, the library behind `zeroforge generate` (zeroforge/generate.hpp): what the
// result says was written, kept, removed or differs, the files the run read, messages, and the
// depfile text.
#include "zeroforge/generate.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr const char* kFamily = R"({
  "name": "small",
  "template": "deepspeed/zero3.json.j2",
  "values": {"offload_optimizer": "none", "offload_param": "none"},
  "axes": {"precision": ["bf16", "fp16"]},
  "tiers": ["medium"],
  "output": "{{ tier }}/zero3-{{ precision }}.json"
})";

class GenerateTest : public ::testing::Test {
 protected:
  GenerateRequest request(const std::string& family_text = kFamily) const {
    GenerateRequest r;
    r.family = dir.write("family.json", family_text).string();
    r.output_dir = dir.path() / "out";
    r.data_dir = test::source_dir();  // templates/ and presets/ as shipped
    r.builtin_plugin_dir = fs::path(ZF_BINARY_DIR) / "lib" / "zeroforge" / "plugins";
    r.jobs = 1;
    return r;
  }
  static std::vector<std::string> paths(const GenerateResult& result, FileChange change) {
    std::vector<std::string> out;
    for (const auto& file : result.files)
      if (file.change == change) out.push_back(file.path);
    return out;
  }
  // The lines the CLI prints for `messages` (zf::to_string).
  static std::vector<std::string> lines(const std::vector<Diagnostic>& messages) {
    std::vector<std::string> out;
    for (const auto& d : messages) out.push_back(to_string(d));
    return out;
  }
  static bool lists(const GenerateResult& result, const std::string& ending) {
    return std::any_of(result.inputs.begin(), result.inputs.end(),
                       [&](const fs::path& p) { return p.generic_string().ends_with(ending); });
  }
  TempDir dir;
};

TEST_F(GenerateTest, WritesEveryConfigAndSaysSo) {
  GenerateRequest r = request();
  r.list_files = true;
  GenerateResult result = generate(r);
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_EQ(result.family_name, "small");
  EXPECT_EQ(result.configs, 2u);
  EXPECT_EQ(result.written, 2u);
  EXPECT_EQ(result.unchanged, 0u);
  EXPECT_EQ(paths(result, FileChange::Written),
            (std::vector<std::string>{"medium/zero3-bf16.json", "medium/zero3-fp16.json"}));
  EXPECT_EQ(result.manifest, r.output_dir / "manifest.json");
  EXPECT_TRUE(fs::is_regular_file(result.manifest));
  EXPECT_TRUE(result.findings.empty());
}

TEST_F(GenerateTest, ASecondRunKeepsUnchangedFilesAndTheirTimes) {
  GenerateRequest r = request();
  r.list_files = true;
  ASSERT_EQ(generate(r).outcome, Outcome::Done);
  const fs::path config = r.output_dir / "medium" / "zero3-bf16.json";
  const auto before = fs::last_write_time(config);
  GenerateResult again = generate(r);
  ASSERT_EQ(again.outcome, Outcome::Done);
  EXPECT_EQ(again.written, 0u);
  EXPECT_EQ(again.unchanged, 2u);
  EXPECT_EQ(paths(again, FileChange::Unchanged).size(), 2u);
  EXPECT_EQ(fs::last_write_time(config), before);

  // One variant changes (a --set that only fp16 reads is not possible; change both), one goes.
  r.sets = {"global_batch_size=1024"};
  GenerateResult changed = generate(r);
  ASSERT_EQ(changed.outcome, Outcome::Done);
  EXPECT_EQ(changed.written, 2u);
  EXPECT_EQ(changed.unchanged, 0u);
}

TEST_F(GenerateTest, ReportsRemovedFiles) {
  GenerateRequest r = request();
  ASSERT_EQ(generate(r).outcome, Outcome::Done);
  std::string narrower = kFamily;
  narrower.replace(narrower.find(R"(["bf16", "fp16"])"), 16, R"(["bf16"])");
  GenerateRequest fewer = request(narrower);
  fewer.list_files = true;
  GenerateResult result = generate(fewer);
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_EQ(result.removed, 1u);
  EXPECT_EQ(paths(result, FileChange::Removed), std::vector<std::string>{"medium/zero3-fp16.json"});
  EXPECT_FALSE(fs::exists(r.output_dir / "medium" / "zero3-fp16.json"));
}

TEST_F(GenerateTest, CheckListsMissingChangedAndExtraAndWritesNothing) {
  GenerateRequest r = request();
  ASSERT_EQ(generate(r).outcome, Outcome::Done);
  write_file_atomically(r.output_dir / "medium" / "zero3-fp16.json", "{}\n");
  fs::remove(r.output_dir / "medium" / "zero3-bf16.json");
  write_file_atomically(r.output_dir / "notes.txt", "mine\n");
  r.check = true;
  GenerateResult result = generate(r);
  EXPECT_EQ(result.outcome, Outcome::Stale);
  EXPECT_EQ(result.missing, 1u);
  EXPECT_EQ(result.changed, 1u);
  EXPECT_EQ(result.extra, 1u);
  EXPECT_EQ(paths(result, FileChange::Missing), std::vector<std::string>{"medium/zero3-bf16.json"});
  EXPECT_EQ(paths(result, FileChange::Changed), std::vector<std::string>{"medium/zero3-fp16.json"});
  EXPECT_EQ(paths(result, FileChange::Extra), std::vector<std::string>{"notes.txt"});
  EXPECT_FALSE(fs::exists(r.output_dir / "medium" / "zero3-bf16.json"));
}

TEST_F(GenerateTest, ListsEveryFileTheRunRead) {
  GenerateRequest r = request();
  r.values_files = {dir.write("team.json", R"({"global_batch_size": 512})")};
  GenerateResult result = generate(r);
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_TRUE(lists(result, "family.json"));
  EXPECT_TRUE(lists(result, "team.json"));
  EXPECT_TRUE(lists(result, "presets/tiers/medium.json"));
  EXPECT_TRUE(lists(result, "templates/deepspeed/zero3.json.j2"));
  EXPECT_TRUE(lists(result, "templates/deepspeed/config.json.j2")) << "the parent it extends";
  EXPECT_TRUE(lists(result, "templates/deepspeed/partials/zero.j2")) << "an include";
  EXPECT_TRUE(lists(result, "templates/deepspeed/defaults.json"));
  EXPECT_TRUE(std::is_sorted(result.inputs.begin(), result.inputs.end()));
  EXPECT_EQ(std::adjacent_find(result.inputs.begin(), result.inputs.end()), result.inputs.end());
}

TEST_F(GenerateTest, ListsWhatPluginsRead) {
  const std::string family = R"({
    "name": "fit",
    "template": "deepspeed/config.json.j2",
    "plugins": ["memory"],
    "values": {"auto_fit": {"model": "llama-2-7b"}, "global_batch_size": 64},
    "tiers": ["medium"],
    "output": "{{ tier }}.json"
  })";
  GenerateResult result = generate(request(family));
  ASSERT_EQ(result.outcome, Outcome::Done);
  EXPECT_TRUE(lists(result, "presets/models/llama-2-7b.json")) << "the model preset";
  EXPECT_TRUE(lists(result, "memory.so")) << "the plugin library";
}

TEST_F(GenerateTest, KeepsMessagesWithoutASinkAndPassesThemToOne) {
  GenerateRequest r = request();
  ASSERT_EQ(generate(r).outcome, Outcome::Done);
  // A killed run's staging beside DIR: the next run removes it and says so.
  fs::create_directories(dir.path() / ".out.zeroforge-staging-999999" / "tree");
  GenerateResult kept = generate(r);
  ASSERT_EQ(kept.messages.size(), 1u);
  EXPECT_NE(to_string(kept.messages[0]).find("removed 1 staging directory"), std::string::npos);

  fs::create_directories(dir.path() / ".out.zeroforge-staging-999999" / "tree");
  std::vector<Diagnostic> seen;
  r.on_message = [&](const Diagnostic& d) { seen.push_back(d); };
  GenerateResult passed = generate(r);
  EXPECT_TRUE(passed.messages.empty());
  EXPECT_EQ(seen.size(), 1u);
}

// Each note and warning generate has to say is a diagnostic with its own code and severity
// (docs/cli.md, "Diagnostic codes"), with the text the CLI has always printed. The output
// directory sits under a long folder (a path past std::string's small buffer).
TEST_F(GenerateTest, EachNoteHasItsCodeAndSeverity) {
  const fs::path parent = dir.path() / "platform-team-deepspeed-configurations-under-review";
  GenerateRequest r = request();
  r.output_dir = parent / "generated-configs";
  const std::string out = r.output_dir.string();
  const fs::path staging = parent / ".generated-configs.zeroforge-staging-999999";
  struct Expected {
    const char* code;
    Severity severity;
    std::string line;
  };
  auto expect = [](const std::vector<Diagnostic>& got, const std::vector<Expected>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      SCOPED_TRACE(want[i].code);
      EXPECT_EQ(got[i].code, want[i].code);
      EXPECT_EQ(got[i].severity, want[i].severity);
      EXPECT_EQ(got[i].kind, ErrorKind::Io);
      EXPECT_TRUE(got[i].where.file.empty());
      EXPECT_EQ(to_string(got[i]), want[i].line);
    }
  };

  // A check of a directory that is not there yet.
  r.check = true;
  GenerateResult fresh = generate(r);
  EXPECT_EQ(fresh.outcome, Outcome::Stale);
  expect(fresh.messages,
         {{"generate.check-no-manifest", Severity::Note,
           "zeroforge: note: " + out +
               " has no manifest.json; files the family does not write are not listed"}});

  // A killed run's staging: a check names it, the next generate removes it.
  r.check = false;
  ASSERT_EQ(generate(r).outcome, Outcome::Done);
  fs::create_directories(staging / "tree");
  r.check = true;
  GenerateResult checked = generate(r);
  EXPECT_EQ(checked.outcome, Outcome::Done);
  expect(checked.messages, {{"generate.check-staging", Severity::Note,
                             "zeroforge: note: " + staging.string() +
                                 " is the staging of a killed run; the next generate removes it"}});
  r.check = false;
  GenerateResult removed = generate(r);
  EXPECT_EQ(removed.outcome, Outcome::Done);
  expect(removed.messages,
         {{"generate.stale-staging", Severity::Note,
           "zeroforge: note: removed 1 staging directory of " + out + " left by killed runs"}});

  // Another run holds the lock on the parent: this one says it waits, then goes on once the
  // lock is released (here, by the sink itself).
  int lock = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  std::vector<Diagnostic> seen;
  r.on_message = [&](const Diagnostic& d) {
    seen.push_back(d);
    if (d.code == "generate.waiting" && lock >= 0) {
      ::close(lock);
      lock = -1;
    }
  };
  GenerateResult waited = generate(r);
  if (lock >= 0) ::close(lock);
  EXPECT_EQ(waited.outcome, Outcome::Done);
  EXPECT_TRUE(waited.messages.empty()) << "they went to on_message";
  expect(seen, {{"generate.waiting", Severity::Note,
                 "zeroforge: note: waiting for another zeroforge generate into " + parent.string() +
                     " to finish"}});
}

TEST_F(GenerateTest, RefusedValuesAreReportedPerVariantAndNothingIsWritten) {
  GenerateRequest r = request();
  r.sets = {"precision=fp64"};
  GenerateResult result = generate(r);
  EXPECT_EQ(result.outcome, Outcome::Failed);
  ASSERT_FALSE(result.problems.empty());
  EXPECT_NE(std::string(to_string(result.problems[0].diagnostic)).find("fp64"), std::string::npos);
  EXPECT_FALSE(fs::exists(r.output_dir));
}

TEST_F(GenerateTest, ATemplateErrorNamesTheVariant) {
  dir.write("tpl/broken.json.j2", "{ \"x\": {{ 1 / 0 }} }");
  GenerateRequest r = request(R"({"name": "b", "template": "broken.json.j2",
    "tiers": ["medium"], "output": "{{ tier }}.json"})");
  r.template_dirs = {dir.path() / "tpl"};
  GenerateResult result = generate(r);
  EXPECT_EQ(result.outcome, Outcome::Failed);
  ASSERT_TRUE(result.failure.has_value());
  EXPECT_EQ(result.failure->variant, "medium");
  EXPECT_EQ(result.failure->doing, "rendering");
}

// A program reads what went wrong as data: each diagnostic with its code, severity and place,
// in the order the CLI prints them (failure_diagnostics).
TEST_F(GenerateTest, FailureDiagnosticsCarryTheirCodes) {
  const std::string nested = "vision-team-training-configurations/families/";
  dir.write(nested + "tpl/broken.json.j2", "{ \"x\": {{ 1 / 0 }} }");
  struct Case {
    const char* what;
    const char* family;
    std::vector<std::pair<std::string, Severity>> expected;  // code, severity
    const char* pointer;                                     // of the first
  };
  const Case cases[] = {
      {"a pinned value",
       R"({"name": "p", "template": "deepspeed/zero3.json.j2", "axes": {"stage": [3, 2]},
           "tiers": ["medium"], "output": "{{ tier }}/z{{ stage }}.json"})",
       {{"values.pinned", Severity::Error}, {"generate.not-generated", Severity::Error}},
       "/axes/stage/1"},
      {"a contract value and a shared output path",
       R"({"name": "c", "template": "deepspeed/config.json.j2",
           "axes": {"precision": ["bf16", "fp16", "fp64"]}, "output": "same.json"})",
       {{"values.contract", Severity::Error},
        {"output.shared-path", Severity::Error},
        {"generate.not-generated", Severity::Error}},
       "/axes/precision/2"},
      {"a template error",
       R"({"name": "broken", "template": "broken.json.j2", "template_dirs": ["tpl"],
           "tiers": ["medium"], "output": "{{ tier }}.json"})",
       {{"template.render", Severity::Error}, {"generate.variant", Severity::Note}},
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    GenerateRequest r = request();
    r.family = dir.write(nested + "family.json", c.family).string();
    GenerateResult result = generate(r);
    EXPECT_EQ(result.outcome, Outcome::Failed);
    const std::vector<Diagnostic> diagnostics = failure_diagnostics(result);
    std::vector<std::pair<std::string, Severity>> seen;
    for (const auto& d : diagnostics) seen.emplace_back(d.code, d.severity);
    EXPECT_EQ(seen, c.expected);
    ASSERT_FALSE(diagnostics.empty());
    EXPECT_EQ(diagnostics.front().json_pointer, c.pointer);
    std::vector<std::string> lines;
    for (const auto& d : diagnostics) lines.push_back(to_string(d));
    EXPECT_EQ(diagnostic_lines(result), lines);
  }
}

// What stops a run before any config is made is thrown, still with its own code.
TEST_F(GenerateTest, ProblemsThatStopTheRunAreThrownWithTheirCodes) {
  const std::string nested = "vision-team-training-configurations/families/";
  dir.write(nested + "tiers/h100-site-tier-with-a-typo.json",
            R"({"gpus_per_node": 8, "gpu_mem_gib": 80})");
  dir.write(nested + "tpl/plain-site-notes.txt.j2", "x");
  struct Case {
    const char* code;
    const char* family;
    const char* pointer;
  };
  const Case cases[] = {
      {"tier.not-found",
       R"({"name": "t", "template": "deepspeed/config.json.j2", "tiers": ["no-such-tier-here"]})",
       "/tiers/0"},
      {"tier.unknown-key",
       R"({"name": "t", "template": "deepspeed/config.json.j2",
           "tiers": ["tiers/h100-site-tier-with-a-typo.json"]})",
       "/gpu_mem_gib"},
      {"template.load", R"({"name": "t", "template": "deepspeed/no-such-template.json.j2"})",
       "/template"},
      {"companion.no-contract",
       R"({"name": "t", "template": "plain-site-notes.txt.j2", "template_dirs": ["tpl"],
           "companions": ["hf-args"]})",
       "/companions"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    GenerateRequest r = request();
    r.family = dir.write(nested + "family.json", c.family).string();
    try {
      generate(r);
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      const Diagnostic d = to_diagnostic(error);
      EXPECT_EQ(d.code, c.code);
      EXPECT_EQ(d.kind, ErrorKind::Values);
      EXPECT_EQ(d.json_pointer, c.pointer);
      EXPECT_EQ(to_string(d), error.what()) << "the text the CLI always printed";
    }
    EXPECT_FALSE(fs::exists(r.output_dir));
  }
}

// The family file's own mistakes, a template_dirs entry that is no directory and a values
// object that is not an object each have their own code (docs/cli.md), with the text they
// always had; nothing is written.
TEST_F(GenerateTest, FamilyAndValuesObjectProblemsHaveTheirOwnCodes) {
  const std::string nested = "vision-team-training-configurations/families-under-review/";
  const std::string family_file = (dir.path() / nested / "family.json").string();
  struct Case {
    const char* code;
    const char* family;
    nlohmann::ordered_json values_object;  // null: none
    std::string expected;
  };
  const Case cases[] = {
      {"family.invalid",
       R"({"name": "t", "template": "deepspeed/config.json.j2", "output_pattern": "x.json"})",
       nullptr,
       family_file +
           ": /output_pattern: error: unknown field 'output_pattern' (expected name, "
           "description, template, template_dirs, contract, output, values, values_files, "
           "axes, include, exclude, tiers, plugins, companions)"},
      {"family.invalid",
       R"({"name": "t", "template": "deepspeed/config.json.j2", "axes": {"stage": [2]},
           "exclude": [{"stage": 2}]})",
       nullptr, family_file + ": /exclude: error: the family expands to no variants"},
      {"family.template-dir",
       R"({"name": "t", "template": "deepspeed/config.json.j2",
           "template_dirs": ["site-templates-the-team-never-checked-in"]})",
       nullptr,
       family_file +
           ": /template_dirs/0: error: template directory "
           "'site-templates-the-team-never-checked-in' is not a directory (" +
           (dir.path() / nested / "site-templates-the-team-never-checked-in").string() +
           "; template_dirs are relative to the family file)"},
      {"values.not-object", R"({"name": "t", "template": "deepspeed/config.json.j2"})",
       nlohmann::ordered_json::array({"stage", 3}),
       "values-of-the-python-caller-for-the-vision-team: /: error: values must be an object, "
       "got array"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    GenerateRequest r = request();
    r.family = dir.write(nested + "family.json", c.family).string();
    if (!c.values_object.is_null())
      r.values_objects = {{"values-of-the-python-caller-for-the-vision-team", c.values_object}};
    try {
      generate(r);
      ADD_FAILURE() << "not thrown";
    } catch (const Error& error) {
      const Diagnostic d = to_diagnostic(error);
      EXPECT_EQ(d.code, c.code);
      EXPECT_EQ(d.kind, ErrorKind::Values);
      EXPECT_EQ(to_string(d), c.expected);
      EXPECT_EQ(to_string(d), error.what()) << "the text the CLI always printed";
    }
    EXPECT_FALSE(fs::exists(r.output_dir));
  }
}

// The documented pattern (docs/pipelines.md) prints result.messages: a family that fails
// says why there, with or without on_message, in the lines the CLI prints.
TEST_F(GenerateTest, AFailedRunSaysWhyInItsMessages) {
  const std::string nested = "vision-team-training-configurations/families/";
  dir.write(nested + "tpl/broken.json.j2", "{ \"x\": {{ 1 / 0 }} }");
  struct Case {
    const char* what;
    const char* family;
    std::vector<std::string> expected;  // `DIR/` stands for the family's directory
  };
  const Case cases[] = {
      {"refused values",
       R"({"name": "bad", "template": "deepspeed/zero3.json.j2",
           "values": {"offload_optimizer": "tape"}, "tiers": ["medium"]})",
       {"DIR/family.json: /values/offload_optimizer: error: variant 'medium': "
        "offload_optimizer must be one of none|cpu|nvme, got \"tape\"",
        "zeroforge: error: family 'bad' not generated; nothing was written"}},
      {"a template error",
       R"({"name": "broken", "template": "broken.json.j2", "template_dirs": ["tpl"],
           "tiers": ["medium"], "output": "{{ tier }}.json"})",
       {"DIR/tpl/broken.json.j2:1:13: error: division by zero",
        "zeroforge: note: while rendering variant 'medium' of DIR/family.json; nothing was "
        "written"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    GenerateRequest r = request();
    r.family = dir.write(nested + "family.json", c.family).string();
    std::vector<std::string> expected;
    const std::string family_dir = (dir.path() / nested).string();
    for (std::string line : c.expected) {
      if (auto at = line.find("DIR/"); at != std::string::npos) line.replace(at, 4, family_dir);
      expected.push_back(line);
    }
    GenerateResult result = generate(r);
    EXPECT_EQ(result.outcome, Outcome::Failed);
    EXPECT_EQ(lines(result.messages), expected);
    EXPECT_EQ(diagnostic_lines(result), expected);

    std::vector<Diagnostic> seen;
    r.on_message = [&](const Diagnostic& d) { seen.push_back(d); };
    EXPECT_EQ(lines(generate(r).messages), expected);
    EXPECT_TRUE(seen.empty());
  }
}

TEST_F(GenerateTest, AnUnknownFamilyThrows) {
  GenerateRequest r = request();
  r.family = "no-such-family";
  EXPECT_THROW(generate(r), Error);
}

TEST(DepfileText, EscapesWhatMakeAndNinjaWouldMisread) {
  GenerateResult result;
  result.inputs = {
      "/a b/t.j2",      "/c#d/v.json", "/e$f/x.json", "/g:h/i.json", "/50%/j\\k/é!@{}~,+.json",
      "relative/l.json"};
  EXPECT_EQ(depfile_text("/out dir:1/manifest.json", result),
            "/out\\ dir\\:1/manifest.json: \\\n  /a\\ b/t.j2 \\\n  /c\\#d/v.json \\\n"
            "  /e$$f/x.json \\\n  /g\\:h/i.json \\\n  /50%/j\\k/é!@{}~,+.json \\\n  " +
                (fs::current_path() / "relative/l.json").string() + "\n");
}

// What neither can escape is refused, naming the path, instead of a rule that breaks the build
// or depends on something else.
TEST(DepfileText, RefusesWhatMakeOrNinjaCannotReadBack) {
  struct Case {
    std::string path;
    bool target;
    std::string problem;
  };
  const std::string syntax = ", which Make or Ninja reads as syntax and cannot escape";
  const std::vector<Case> cases = {
      {"/runs/50%/manifest.json", true,
       "it holds '%', which makes Make read the rule as a pattern rule"},
      {"~/runs/manifest.json", true, "it starts with '~', which Make reads as a home directory"},
      {"/runs/lr=1e-4/values.json", false, "it holds '='" + syntax},
      {"/runs/a;b.json", false, "it holds ';'" + syntax},
      {"/runs/(old)/v.json", false, "it holds '('" + syntax},
      {"/runs/v*.json", false, "it holds '*'" + syntax},
      {"/runs/it's.json", false, "it holds '''" + syntax},
      {"/runs/tab\there.json", false,
       "it holds a control character (U+0009), which ends a name or the rule in Make and Ninja"},
      {"/runs/new\nline.json", false,
       "it holds a control character (U+000A), which ends a name or the rule in Make and Ninja"},
      {"/runs/a\\ b.json", false,
       "it holds a '\\' before a character Make or Ninja would read it as escaping"},
      {"/runs/a\\", false,
       "it holds a '\\' before a character Make or Ninja would read it as escaping"},
      {"/runs/ends-in:", false, "it ends in ':', which Ninja cannot read escaped there"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    EXPECT_EQ(depfile_path_problem(c.path, c.target), c.problem);
    GenerateResult result;
    if (!c.target) result.inputs = {c.path};
    const std::string target = c.target ? c.path : "/out/manifest.json";
    try {
      depfile_text(target, result);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "--depfile: cannot write the path '" + c.path + "' into a depfile: " +
                                 c.problem + "; rename it, or leave out --depfile");
    }
  }
  // In a prerequisite, '%' is only a character.
  EXPECT_EQ(depfile_path_problem("/runs/50%/values.json", false), "");
}

}  // namespace
}  // namespace zf

namespace zf {
namespace {

TEST_F(GenerateTest, ValuesObjectsAreLayersNamedByTheirLabels) {
  GenerateRequest r = request();
  r.values_objects = {{"values-given-by-the-python-caller", {{"gradient_clipping", 0.25}}}};
  GenerateResult result = generate(r);
  ASSERT_EQ(result.outcome, Outcome::Done);
  const auto config = parse_json_text(read_file(r.output_dir / "medium/zero3-bf16.json"), "c");
  EXPECT_EQ(config["gradient_clipping"], 0.25);

  r.values_objects = {{"values-given-by-the-python-caller", {{"offload_optimizer", "tape"}}}};
  result = generate(r);
  ASSERT_EQ(result.outcome, Outcome::Failed);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].diagnostic.where.file, "values-given-by-the-python-caller");
  EXPECT_EQ(result.problems[0].diagnostic.json_pointer, "/offload_optimizer");
}

}  // namespace
}  // namespace zf
