// SPDX-License-Identifier: MIT
// The property migrate promises, over every real config the tests hold (tests/data/peer-configs
// and tests/data/collected-configs, sources in their READMEs): a config some release accepts,
// migrated to each target (the oldest release, middle ones, the newest), is accepted by the
// target's validator, and every value the notes do not name is where it was, unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "zeroforge/migrate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<fs::path> real_configs() {
  std::set<fs::path> files;
  for (const char* folder : {"tests/data/peer-configs", "tests/data/collected-configs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ZF_SOURCE_DIR) / folder)) {
      if (entry.path().extension() == ".json") files.insert(entry.path());
    }
  }
  return {files.begin(), files.end()};
}

const std::vector<std::string> kTargets = {"0.12.0", "0.14.5", "0.16.2", "0.17.1", "0.19.6"};

// True when a note moved, removed or rewrote the key at `pointer` or a key above it.
bool named_by_notes(const std::vector<MigrationNote>& notes, const std::string& pointer) {
  for (const auto& note : notes) {
    if (note.old_pointer.empty()) continue;
    if (pointer == note.old_pointer || pointer.starts_with(note.old_pointer + "/")) return true;
  }
  return false;
}

TEST(MigrateCorpusTest, EveryAcceptedRealConfigMigratesToEveryTarget) {
  std::size_t accepted = 0, refused = 0, rewritten = 0;
  const auto configs = real_configs();
  ASSERT_GE(configs.size(), 28u);
  for (const fs::path& file : configs) {
    const std::string text = read_file(file);
    const std::string name = file.filename().string();
    const Json source = parse_json_text(text, name, JsonNumbers::AsWritten);
    const bool hf = text.find("\"auto\"") != std::string::npos;
    bool some_release_accepts = true;
    for (const std::string& target : kTargets) {
      SCOPED_TRACE(file.string() + " -> " + target);
      MigrateOptions options;
      options.to = target;
      options.drop_unknown = true;
      const ConfigMigration m = migrate_config(text, name, options);
      if (!m.refusals.empty() && m.refusals.front().code == "migrate.invalid-source") {
        // No release accepts it: refused the same whatever the target.
        EXPECT_TRUE(m.from.empty());
        some_release_accepts = false;
        continue;
      }
      ASSERT_TRUE(m.refusals.empty()) << to_string(m.refusals.front());
      ValidateOptions at_target;
      at_target.deepspeed_version = target;
      at_target.hf = hf;
      for (const Finding& f : validate_config(m.config, at_target, name)) {
        EXPECT_NE(f.severity, Severity::Error) << format_finding(f);
      }
      const Json migrated = m.config.flatten();
      const Json flat_source = source.flatten();
      for (const auto& [pointer, value] : flat_source.items()) {
        if (named_by_notes(m.notes, pointer)) continue;
        ASSERT_TRUE(migrated.contains(pointer)) << pointer << " is gone";
        EXPECT_EQ(migrated[pointer], value) << pointer;
      }
      for (const auto& note : m.notes) {
        if (note.new_pointer.empty()) continue;
        EXPECT_EQ(m.config.at(Json::json_pointer(note.new_pointer)), note.new_value)
            << format_migration_note(note);
      }
      if (m.changed()) {
        ++rewritten;
      } else {
        EXPECT_EQ(m.text, text) << "nothing to change: written byte for byte";
      }
      // Without drop_unknown only the keys the target does not know are refused.
      options.drop_unknown = false;
      for (const auto& d : migrate_config(text, name, options).refusals) {
        EXPECT_EQ(d.code, "migrate.unknown-key") << to_string(d);
        EXPECT_TRUE(source.contains(Json::json_pointer(d.json_pointer))) << d.json_pointer;
      }
    }
    (some_release_accepts ? accepted : refused) += 1;
  }
  // 21 of the 28 are accepted by some release; the rest have errors every release refuses
  // (DeepSpeed's autotuning templates have no batch size, "auto" where the Trainer fills none).
  EXPECT_GE(accepted, 20u);
  EXPECT_EQ(accepted + refused, configs.size());
  EXPECT_GT(rewritten, 10u) << "the targets cross renames and changed defaults";
}

}  // namespace
}  // namespace zf
