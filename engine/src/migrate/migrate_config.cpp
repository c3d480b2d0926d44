// SPDX-License-Identifier: MIT
// zf::migrate_config: one config from its source release (given, or inferred as the newest
// release that accepts it and reads all of it) to the target, rewritten by the Rewriter and
// checked by the validator at the target; and the text and JSON forms of a note.
#include <algorithm>
#include <utility>

#include "deepspeed/release.hpp"
#include "deepspeed/rules.hpp"
#include "migrate/rewriter.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/migrate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf {

namespace {

using migrate::Json;

bool says_auto(const Json& value) {
  if (deepspeed::is_auto(value)) return true;
  if (value.is_object() || value.is_array()) {
    for (const auto& child : value) {
      if (says_auto(child)) return true;
    }
  }
  return false;
}

ValidateOptions options_at(const MigrateOptions& options, const Json& config,
                           deepspeed::ReleaseIndex release) {
  ValidateOptions v = options.validate;
  v.deepspeed_version = std::string(deepspeed::version_of(release));
  if (says_auto(config)) v.hf = true;
  return v;
}

// Keys of the config that some release reads and this one does not: fewer is a better guess
// of the release the config was written for.
std::size_t unread_keys(const std::vector<Finding>& findings) {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const auto& f) {
        return f.rule == "ignored-key" && deepspeed::node_at_pointer(f.pointer) != nullptr;
      }));
}

Diagnostic refusal(const std::string& file, std::string code, std::string pointer,
                   std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.kind = ErrorKind::Values;
  d.message = std::move(message);
  d.where.file = file;
  d.json_pointer = std::move(pointer);
  return d;
}

void refuse_source(ConfigMigration& m, const std::vector<Finding>& findings,
                   const std::string& why) {
  for (const Finding& f : findings) {
    if (f.severity != Severity::Error) continue;
    m.refusals.push_back(refusal(m.file, codes::migrate_invalid_source, f.pointer,
                                 why + ": [" + f.rule + "] " + f.message));
  }
}

std::string show_side(const std::string& pointer, const Json& value, const char* none) {
  if (pointer.empty()) return none;
  return pointer + " " + value.dump();
}

}  // namespace

ConfigMigration migrate_config(std::string_view text, const std::string& file,
                               const MigrateOptions& options) {
  if (options.to.empty()) throw Error(ErrorKind::Usage, "migrate: the target release is missing");
  const deepspeed::ReleaseIndex to = deepspeed::require_release(options.to);
  std::optional<deepspeed::ReleaseIndex> from;
  if (!options.from.empty()) from = deepspeed::require_release(options.from);

  ConfigMigration m;
  m.file = file;
  m.to = options.to;
  m.text = std::string(text);
  m.config = parse_json_text(text, file, JsonNumbers::AsWritten);
  if (!m.config.is_object()) {
    throw Error(ErrorKind::Values,
                "a DeepSpeed config is a JSON object, found " + std::string(m.config.type_name()),
                file, "/");
  }

  if (from) {
    const auto findings = validate_config(m.config, options_at(options, m.config, *from), file);
    m.from = options.from;
    if (has_errors(findings)) {
      refuse_source(m, findings,
                    "DeepSpeed " + m.from +
                        " (--from) refuses the input, so there is nothing "
                        "to migrate from; fix it first (zeroforge validate --deepspeed-version " +
                        m.from + ")");
      return m;
    }
  } else {
    m.inferred = true;
    std::optional<std::size_t> best_unread;
    const auto count = static_cast<int>(deepspeed::releases().size());
    for (int r = count - 1; r >= 0; --r) {
      const auto release = static_cast<deepspeed::ReleaseIndex>(r);
      const auto findings = validate_config(m.config, options_at(options, m.config, release), file);
      if (has_errors(findings)) continue;
      const std::size_t unread = unread_keys(findings);
      if (!best_unread || unread < *best_unread) {
        best_unread = unread;
        from = release;
        if (unread == 0) break;  // the newest that reads it all
      }
    }
    if (!from) {
      const auto newest = deepspeed::newest_release();
      refuse_source(m, validate_config(m.config, options_at(options, m.config, newest), file),
                    "no DeepSpeed release zeroforge knows (" + deepspeed::known_range() +
                        ") accepts the input, so there is no release to migrate from (" +
                        "DeepSpeed " + std::string(deepspeed::version_of(newest)) +
                        " says so here); fix it first (zeroforge validate)");
      return m;
    }
    m.from = std::string(deepspeed::version_of(*from));
  }

  migrate::Rewriter rewriter(file, *from, to, options.drop_unknown);
  Json config = m.config;
  rewriter.rewrite(config);
  if (!rewriter.refusals.empty()) {
    m.refusals = std::move(rewriter.refusals);
    return m;
  }
  rewriter.pin_defaults(config);
  const ValidateOptions at_target = options_at(options, config, to);
  auto findings = validate_config(config, at_target, file);
  // A pinned default the target finds fault with has no effect there: take it back.
  bool unpinned = false;
  for (const Finding& f : findings) unpinned = rewriter.unpin(config, f.pointer) || unpinned;
  if (unpinned) findings = validate_config(config, at_target, file);
  for (const Finding& f : findings) {
    if (f.severity != Severity::Error) continue;
    m.refusals.push_back(refusal(file, codes::migrate_target_refuses, f.pointer,
                                 "DeepSpeed " + m.from + " accepts the input, DeepSpeed " + m.to +
                                     " refuses it after " + std::to_string(rewriter.notes.size()) +
                                     " rewrite" + (rewriter.notes.size() == 1 ? "" : "s") + " ([" +
                                     f.rule + "] " + f.message +
                                     "), and migrate knows no rewrite that means the same"));
  }
  if (!m.refusals.empty()) return m;
  m.findings = std::move(findings);
  m.notes = std::move(rewriter.notes);
  if (!m.notes.empty()) {
    m.config = std::move(config);
    m.text = to_json_text(m.config);
  }
  return m;
}

bool is_family_document(const nlohmann::ordered_json& document) {
  if (!document.is_object()) return false;
  auto it = document.find("template");
  return it != document.end() && it->is_string() && !is_deepspeed_config(document);
}

std::string format_migration_note(const MigrationNote& note) {
  return note.file + ": " + (note.pointer.empty() ? "/" : note.pointer) + ": note [" + note.code +
         "]: " + show_side(note.old_pointer, note.old_value, "(absent)") + " -> " +
         show_side(note.new_pointer, note.new_value, "(removed)") + ": " + note.reason;
}

nlohmann::ordered_json migration_note_to_json(const MigrationNote& note) {
  auto side = [](const std::string& pointer, const Json& value) {
    return pointer.empty() ? Json() : Json{{"pointer", pointer}, {"value", value}};
  };
  return {{"file", note.file},
          {"code", note.code},
          {"pointer", note.pointer},
          {"old", side(note.old_pointer, note.old_value)},
          {"new", side(note.new_pointer, note.new_value)},
          {"reason", note.reason}};
}

}  // namespace zf
