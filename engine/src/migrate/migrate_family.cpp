// SPDX-License-Identifier: MIT
// zf::migrate_family: a family's pinned release moved to the target and the DeepSpeed keys its
// `extra` values carry rewritten; the values of the template's contract need no rewrite, since
// the template writes each in the spelling the pinned release reads (docs/values.md). The result
// is held to what generate would make of it: every member expanded, rendered and validated.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <system_error>
#include <utility>

#include "deepspeed/release.hpp"
#include "migrate/rewriter.hpp"
#include "zeroforge/deepspeed_release.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/migrate.hpp"
#include "zeroforge/output.hpp"

namespace zf {

namespace {

namespace fs = std::filesystem;
using migrate::Json;

// The copy generate reads: removed however the check ends.
class TemporaryFamily {
 public:
  TemporaryFamily(const fs::path& destination, const std::string& text) {
    static std::atomic<unsigned> counter{0};
    const fs::path dir =
        destination.parent_path().empty() ? fs::path(".") : destination.parent_path();
    path_ = dir / ("." + destination.filename().string() + ".migrate-" +
                   std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json");
    write_file_atomically(path_, text);
  }
  ~TemporaryFamily() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  TemporaryFamily(const TemporaryFamily&) = delete;
  TemporaryFamily& operator=(const TemporaryFamily&) = delete;
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

FamilyMigration migrate_family(const fs::path& family_file, const fs::path& destination,
                               const MigrateOptions& options, const fs::path& data_dir) {
  if (options.to.empty()) throw Error(ErrorKind::Usage, "migrate: the target release is missing");
  const deepspeed::ReleaseIndex to = deepspeed::require_release(options.to);
  FamilyMigration m;
  m.file = family_file.string();
  m.to = options.to;
  m.text = read_file(family_file);
  m.family = parse_json_text(m.text, m.file, JsonNumbers::AsWritten);
  (void)parse_family(m.family, m.file);  // a family generate can read, or its located error

  Json& values = m.family["values"];
  if (!values.is_object()) values = Json::object();
  const Json* pinned =
      values.contains("deepspeed_version") ? &values["deepspeed_version"] : nullptr;
  if (!options.from.empty()) {
    m.from = options.from;
  } else if (pinned != nullptr && pinned->is_string()) {
    m.from = pinned->get<std::string>();
  } else {
    m.from = deepspeed_versions().back();
  }
  const deepspeed::ReleaseIndex from = deepspeed::require_release(m.from);

  migrate::Rewriter rewriter(m.file, from, to, options.drop_unknown);
  const Json old_version = pinned != nullptr ? *pinned : Json();
  if (old_version != Json(m.to)) {
    rewriter.notes.push_back(MigrationNote{
        m.file, codes::migrate_version, "/values/deepspeed_version",
        pinned != nullptr ? "/values/deepspeed_version" : "", old_version,
        "/values/deepspeed_version", m.to,
        "the family's pinned release: generate, render and validate judge its configs by it, "
        "and the template writes the keys it reads"});
    values["deepspeed_version"] = m.to;
  }
  if (values.contains("zero"))
    rewriter.rewrite_values(values["zero"], "zero_optimization", "/values/zero");
  if (values.contains("extra") && values["extra"].is_object()) {
    rewriter.rewrite(values["extra"], "/values/extra");
  }
  if (m.family.contains("include") && m.family["include"].is_array()) {
    Json& include = m.family["include"];
    for (std::size_t i = 0; i < include.size(); ++i) {
      if (!include[i].is_object()) continue;
      const std::string entry = "/include/" + std::to_string(i);
      if (include[i].contains("zero"))
        rewriter.rewrite_values(include[i]["zero"], "zero_optimization", entry + "/zero");
      if (include[i].contains("extra") && include[i]["extra"].is_object())
        rewriter.rewrite(include[i]["extra"], entry + "/extra");
    }
  }
  if (m.family.contains("axes") && m.family["axes"].is_object() &&
      m.family["axes"].contains("extra") && m.family["axes"]["extra"].is_array()) {
    Json& axis = m.family["axes"]["extra"];
    for (std::size_t i = 0; i < axis.size(); ++i) {
      if (axis[i].is_object()) rewriter.rewrite(axis[i], "/axes/extra/" + std::to_string(i));
    }
  }
  m.refusals = std::move(rewriter.refusals);
  if (!m.refusals.empty() || rewriter.notes.empty()) {
    m.family = parse_json_text(m.text, m.file, JsonNumbers::AsWritten);
    return m;
  }
  const std::string text = to_json_text(m.family);

  // What generate makes of it at the target, from where the family will live.
  GenerateRequest request;
  {
    TemporaryFamily copy(destination, text);
    request.family = copy.path().string();
    request.output_dir = copy.path().parent_path() / "migrate-dry-run";
    request.dry_run = true;
    request.data_dir = data_dir;
    request.jobs = 1;
    request.on_message = [](const Diagnostic&) {};  // generate's notes: not the migration's
    const GenerateResult result = generate(request);
    if (result.outcome != Outcome::Done) {
      for (Diagnostic d : failure_diagnostics(result)) {
        if (d.code == codes::generate_not_generated) continue;  // migrate says that itself
        replace_all(d.message, request.family, m.file);
        if (d.where.file == request.family) d.where.file = m.file;
        m.refusals.push_back(std::move(d));
      }
      if (m.refusals.empty()) {
        Diagnostic d;
        d.code = codes::migrate_target_refuses;
        d.message = "generate does not make the migrated family";
        d.where.file = m.file;
        m.refusals.push_back(std::move(d));
      }
    }
  }
  if (!m.refusals.empty()) {
    m.family = parse_json_text(m.text, m.file, JsonNumbers::AsWritten);
    return m;
  }
  m.notes = std::move(rewriter.notes);
  m.text = text;
  return m;
}

}  // namespace zf
