// SPDX-License-Identifier: MIT
// zf::migrate_config and zf::migrate_family: a DeepSpeed config (or a family) written for one
// DeepSpeed release rewritten into what another release reads, every rewrite a note with its
// reason, what has no equivalent refused (docs/migrate.md). Nothing here writes the result.
//
//     zf::MigrateOptions options;
//     options.to = "0.19.6";                      // from: inferred
//     zf::ConfigMigration m = zf::migrate_config(zf::read_file("ds.json"), "ds.json", options);
//     if (!m.refusals.empty()) { /* print them, write nothing, exit 2 */ }
//     for (const auto& note : m.notes) std::cout << zf::format_migration_note(note) << '\n';
//     write(m.text);                             // the input's bytes when nothing changed
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>  // full type: notes and migrations hold ordered_json members
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/finding.hpp"
#include "zeroforge/validate_options.hpp"

namespace zf {

/// Which release to migrate to, from which, and how a config is judged on the way.
struct MigrateOptions {
  /// The target release, one of deepspeed_versions() (required).
  std::string to;
  /// The source release; empty: a config's is inferred (the newest release under which it
  /// validates and that reads every key some release reads), a family's is its
  /// `deepspeed_version` (else the newest).
  std::string from;
  /// Drop keys the source reads and the target does not know (a `migrate.dropped` note each)
  /// instead of refusing them.
  bool drop_unknown = false;
  /// How a config is validated at both ends, as `validate` judges it (world size, --hf,
  /// strict); `deepspeed_version` is ignored. A config that says "auto" anywhere is judged as
  /// the HF Trainer loads it (hf), as `import` judges its inputs.
  ValidateOptions validate;
};

/// One rewrite. Codes (docs/migrate.md): `migrate.renamed` (a key renamed or replaced, its
/// value carried over or converted), `migrate.integer` (a float the target refuses where it
/// needs an integer, written as the integer the source used), `migrate.misplaced` (a key the
/// source ignored in a section the target validates strictly, removed), `migrate.dropped`
/// (with drop_unknown: a key the target does not know, removed), `migrate.default` (a default
/// that differs between the releases, written out as the source had it), `migrate.version`
/// (a family's `deepspeed_version`).
struct MigrationNote {
  std::string file;
  std::string code;
  /// Where in the input (a JSON pointer): the old key, or the section a key was added to.
  std::string pointer;
  /// The key and value before (`old_pointer` empty and `old_value` null: the key was absent).
  std::string old_pointer;
  nlohmann::ordered_json old_value;
  /// The key and value after (`new_pointer` empty: removed).
  std::string new_pointer;
  nlohmann::ordered_json new_value;
  /// The release change that needs it, and where DeepSpeed says so.
  std::string reason;
};

/// One config, migrated (or refused).
struct ConfigMigration {
  std::string file;
  /// The source release, and whether it was inferred (MigrateOptions::from empty).
  std::string from;
  bool inferred = false;
  std::string to;
  /// The rewrites: renamed keys first (key_moves' order), then the others in the config's key
  /// order, then written-out defaults; empty: nothing to change.
  std::vector<MigrationNote> notes;
  /// Why it cannot be migrated (code `migrate.*`, file and JSON pointer): when any, `text` and
  /// `config` are the input's and nothing may be written.
  std::vector<Diagnostic> refusals;
  /// The migrated config, and its text: the input's own bytes when there are no notes, else
  /// zeroforge's JSON writer's text of `config`.
  nlohmann::ordered_json config;
  std::string text;
  /// The target's findings on the migrated config (no errors when there are no refusals).
  std::vector<Finding> findings;
  bool changed() const noexcept { return !notes.empty(); }
};

/// Migrates the config `text` (JSON, numbers kept as written) named `file`. Throws zf::Error:
/// Usage for an unknown release in `options`, Json (file:line:column) for text that is not
/// JSON, Values for a document that is not an object. Everything else (a key with no
/// equivalent, a config no release accepts, a result the target refuses) is a refusal.
ConfigMigration migrate_config(std::string_view text, const std::string& file,
                               const MigrateOptions& options);

/// One family file, migrated (or refused).
struct FamilyMigration {
  std::string file;
  std::string from;
  std::string to;
  /// `migrate.version`, then the rewrites of each `extra` (its `values`' and each include
  /// entry's), pointers into the family file.
  std::vector<MigrationNote> notes;
  /// Keys of `extra` with no equivalent, and what the target refuses when the migrated family
  /// is expanded, rendered and validated as `generate` does; any: nothing may be written.
  std::vector<Diagnostic> refusals;
  nlohmann::ordered_json family;
  /// The input's bytes when there are no notes, else the JSON writer's text of `family`.
  std::string text;
  bool changed() const noexcept { return !notes.empty(); }
};

/// Migrates the family file `family_file` to `options.to`: its `values.deepspeed_version`, the
/// DeepSpeed keys its `extra` values carry, and floats in its `zero` values where the target
/// needs an integer. The result is checked by rendering and
/// validating every member as `generate --dry-run` would, from a temporary copy in the
/// directory of `destination` (where the family will live, so its relative tier and template
/// paths resolve as they will), removed afterwards; `data_dir` is the shipped templates'
/// (empty: the default). Throws zf::Error as load_family does for a file that is not a family.
FamilyMigration migrate_family(const std::filesystem::path& family_file,
                               const std::filesystem::path& destination,
                               const MigrateOptions& options,
                               const std::filesystem::path& data_dir = {});

/// True when `document` is a family file rather than a DeepSpeed config: an object with a
/// string `template` and no key DeepSpeed reads at the top level.
bool is_family_document(const nlohmann::ordered_json& document);

/// `FILE: POINTER: note [CODE]: OLD -> NEW: REASON`, OLD and NEW as `/key VALUE`, `(absent)`
/// or `(removed)`:
/// `ds.json: /aio/thread_count: note [migrate.renamed]: /aio/thread_count 4 ->
/// /aio/intra_op_parallelism 4: DeepSpeed 0.16.4 renamed aio.thread_count ...`.
std::string format_migration_note(const MigrationNote& note);

/// `{"file", "code", "pointer", "old": {"pointer", "value"} | null, "new": ... | null,
/// "reason"}`.
nlohmann::ordered_json migration_note_to_json(const MigrationNote& note);

}  // namespace zf
