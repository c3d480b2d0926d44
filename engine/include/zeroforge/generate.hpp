// SPDX-License-Identifier: MIT
// zf::generate: a whole family into a directory, as `zeroforge generate` does it (the CLI is a
// thin adapter over this). Expansion, layering, plugins, rendering, validation, the all-at-once
// write and the manifest, or with `check` a comparison that writes nothing.
//
//     zf::GenerateRequest request;
//     request.family = "llama-finetune";              // or a path to a family file
//     request.output_dir = "configs";
//     request.data_dir = "/usr/share/zeroforge";      // the shipped templates and presets
//     zf::GenerateResult result = zf::generate(request);
//     if (result.outcome != zf::Outcome::Done) { /* result.findings, result.problems, ... */ }
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>  // full type: GenerateRequest holds ordered_json members
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/validator.hpp"

namespace zf {

/// Which configs the DeepSpeed validator checks (`--validate`).
enum class Validation {
  ByContract,  ///< those of templates under the DeepSpeed values contract (the default)
  DeepSpeed,   ///< every JSON config, whatever its template's contract
  Off,         ///< none (`--no-validate`)
};

/// Whether `validation` checks the JSON configs of a template under `contract` ("deepspeed",
/// or "" for none): the one rule generate, render and the library's render() apply.
constexpr bool validates(Validation validation, std::string_view contract) noexcept {
  return validation == Validation::DeepSpeed ||
         (validation == Validation::ByContract && contract == "deepspeed");
}

/// What to generate, and where. Paths are used as given (relative ones against the working
/// directory) and appear in messages as given.
struct GenerateRequest {
  /// A family file (a path: contains '/' or ends in `.json`) or the name of a shipped family
  /// (`DATA_DIR/presets/families/NAME.json`).
  std::string family;
  /// Where the configs and `manifest.json` go (created when missing).
  std::filesystem::path output_dir;
  /// Searched for templates, in order, before the shipped ones (`--template-dir`).
  std::vector<std::filesystem::path> template_dirs;
  /// JSON values files applied to every config, in order, over the tiers (`--values`).
  std::vector<std::filesystem::path> values_files;
  /// Values given as objects rather than files (the Python module's `values=`), applied after
  /// `values_files` and before `sets`, in order, as values-file layers: the label messages and
  /// `explain` name (a file's path, `values[1]`) and a JSON object.
  std::vector<std::pair<std::string, nlohmann::ordered_json>> values_objects;
  /// `KEY=VALUE` pairs applied last, in order (`--set`; VALUE is JSON if it parses).
  std::vector<std::string> sets;
  /// Plugins loaded after the family's own: names (found on the plugin search path) or paths.
  std::vector<std::string> plugins;
  /// Searched for plugins before ZEROFORGE_PLUGIN_PATH and the shipped ones (`--plugin-dir`).
  std::vector<std::filesystem::path> plugin_dirs;
  /// `NAME.KEY=VALUE` plugin options, merged over the family's (`--plugin-opt`).
  std::vector<std::string> plugin_options;
  bool trim_blocks = false;    ///< Jinja2's trim_blocks
  bool lstrip_blocks = false;  ///< Jinja2's lstrip_blocks
  /// Make only these of the family's tiers (`--tier`; a tier's name, or its reference as the
  /// family wrote it); empty: every tier. The other tiers' files stay as they are, and the
  /// manifest keeps their entries from `output_dir/manifest.json`, which must then be this
  /// family's, of its template and of this zeroforge version (else zf::CodedError
  /// `generate.tier-manifest`). With `check`, only these tiers' files are compared. A name that
  /// is not one of the family's tiers throws zf::CodedError (Usage, `generate.unknown-tier`).
  std::vector<std::string> tiers;
  /// Write nothing; compare what would be written with what `output_dir` holds.
  bool check = false;
  /// Write nothing and compare nothing: make and validate every config in memory (what
  /// `zeroforge report` does). `check` wins over it.
  bool dry_run = false;
  /// Also return the manifest's text in GenerateResult::manifest_text (the family report
  /// reads it), whether or not it is written.
  bool keep_manifest = false;
  /// Which configs are validated; nothing is written when the validator finds an error.
  Validation validation = Validation::ByContract;
  /// Threads that make configs (1-256); 0 is one per core. Families with plugins use one.
  unsigned jobs = 0;
  /// Companion kinds to write next to each config (`--companions`; see zf::companion_kinds()),
  /// replacing the family's `companions`; unset: the family's; empty: none.
  std::optional<std::vector<std::string>> companions;
  /// Where the shipped templates and presets are (`templates/`, `presets/`). Empty: the
  /// ZEROFORGE_DATA_DIR environment variable, else `<executable>/../share/zeroforge`. A
  /// program linking the library passes its install's (CMake: `${zeroforge_DATA_DIR}`).
  std::filesystem::path data_dir;
  /// Where the shipped plugins are. Empty: `<executable>/../lib/zeroforge/plugins` (CMake:
  /// `${zeroforge_PLUGIN_DIR}`).
  std::filesystem::path builtin_plugin_dir;
  /// Also list every path in GenerateResult::files (written, unchanged and removed ones, which
  /// memory then holds for every config). Missing, changed and extra paths of a `check` are
  /// always listed.
  bool list_files = false;
  /// A depfile will be written (`--depfile`): before anything is written, the manifest's path
  /// and every input's must be ones depfile_text can write (else zf::Error, Usage).
  bool depfile = false;
  /// Receives notes and warnings as they happen, as diagnostics with their codes (docs/cli.md,
  /// "Diagnostic codes"): waiting for another run into the same directory
  /// (`generate.waiting`), staging of killed runs removed (`generate.stale-staging`), a
  /// directory that cannot be replaced at once (`output.not-atomic`), check's notes
  /// (`generate.check-staging`, `generate.check-no-manifest`), plugin warnings (`plugin.message`).
  /// zf::to_string(d) is the line the CLI prints, less the ` [code]` that ends it. Unset: they
  /// are kept in GenerateResult::messages.
  DiagnosticSink on_message;
};

/// What became of one file under the output directory.
enum class FileChange {
  Written,    ///< new, or its content changed
  Unchanged,  ///< the same content: the file (and its modification time) was kept
  Removed,    ///< listed by the old manifest, no longer generated
  Missing,    ///< check: would be written, is absent
  Changed,    ///< check: would be written with other content
  Extra,      ///< check: present, but not generated and listed by no manifest
};

/// "written", "unchanged", "removed", "missing", "changed" or "extra".
std::string_view to_string(FileChange change) noexcept;

/// A file and what became of it; `path` is relative to the output directory, `/`-separated.
struct FileReport {
  std::string path;
  FileChange change;
};

/// A problem with a family's values: it is reported once, with the first variant that hit it
/// and how many other variants did. Its code says which (docs/cli.md, "Diagnostic codes"):
/// `values.pinned`, `values.contract`, `companion.values`, `output.path`,
/// `output.shared-path`.
struct VariantProblem {
  Diagnostic diagnostic;
  std::string variant;  ///< as `zeroforge explain` names it: `medium/zero3-bf16`
  std::size_t others = 0;
};

/// A template error while rendering one variant's config (or its file name, or its
/// companions): `template.syntax`, `template.undefined`, `template.render`, ...
struct VariantFailure {
  Diagnostic diagnostic;
  std::string variant;
  std::string doing;  ///< "rendering", "naming the file of", "rendering the companions of"
};

/// What a generate did, or why it did nothing.
struct GenerateResult {
  /// Done: written (or, with check, up to date); Refused: the validator or a plugin refused
  /// configs; Stale: (check) the directory differs; Failed: the values or a template are
  /// wrong. Nothing was written unless it is Done (and check writes nothing).
  Outcome outcome = Outcome::Done;
  std::string family_name;
  std::string family_file;  ///< as messages name it
  /// `output_dir/manifest.json`.
  std::filesystem::path manifest;
  /// Configs the family has (0 unless every config was made); with `tiers`, those of the
  /// tiers made.
  std::size_t configs = 0;
  /// The tiers made, by name in family order: every tier of the family without `tiers`.
  std::vector<std::string> tiers;
  /// With `tiers`: configs of the other tiers whose entries the manifest kept from the old one
  /// (their files, and their companions, are left as they were).
  std::size_t kept = 0;
  /// Companion files written (or, with check, compared) beside them.
  std::size_t companions = 0;
  /// Files by change; manifest.json counts among written/unchanged and missing/changed.
  std::size_t written = 0, unchanged = 0, removed = 0;
  std::size_t missing = 0, changed = 0, extra = 0;
  /// With `list_files`: every file, in path order per change (written, unchanged, removed);
  /// with `check`: the missing, then the changed, then the extra ones, in path order.
  std::vector<FileReport> files;
  /// What the validator found (warnings only, when the outcome is Done).
  std::vector<Finding> findings;
  /// Values the family refused (exit 2).
  std::vector<VariantProblem> problems;
  /// A template error (exit 2).
  std::optional<VariantFailure> failure;
  /// Configs plugins refused to make as asked (exit 1), e.g. a model that fits no GPU.
  std::vector<PluginFinding> refusals;
  /// Every file the run read (the family, tiers, templates and everything they include, import
  /// or extend, defaults.json files, values files, plugin libraries and what plugins reported
  /// reading), sorted, each once: a build system's dependencies.
  std::vector<std::filesystem::path> inputs;
  /// With `depfile`, once the set is written: its files (configs and companions, not
  /// manifest.json) under output_dir, in path order. A build system that depends on them
  /// regenerates a file edited or deleted by hand.
  std::vector<std::filesystem::path> outputs;
  /// Notes and warnings, when the request has no on_message; then, whenever the outcome is
  /// not Done (on_message or not), why: failure_diagnostics(result). Printing them is all a
  /// program needs to say what went wrong:
  ///
  ///     for (const auto& message : result.messages)
  ///       std::cerr << zf::to_string(message) << '\n';
  std::vector<Diagnostic> messages;
  /// With `keep_manifest`, once every config was made: the text of `manifest`, as this run
  /// wrote it (or would have).
  std::string manifest_text;
};

/// Generates (or checks) `request.family` into `request.output_dir`. Reports problems with
/// the family, its values, templates and configs in the result; throws zf::Error for a request
/// that cannot start (an unknown family, a missing file, bad JSON in an input, an unusable
/// output directory; a tier that is not found or has an unknown key, a CodedError with
/// `tier.not-found` or `tier.unknown-key`) and for I/O failures, leaving the directory as it
/// was.
GenerateResult generate(const GenerateRequest& request);

/// Why `result` failed, as diagnostics in the order the CLI prints them: the template error
/// and a note naming the variant it was rendering (`generate.variant`); or each plugin
/// refusal (`plugin.refused`), each values problem (one without a line of its own prefixed
/// with the variant(s) it was found in: `variant 'medium/zero3' (and 2 more): ...`) and
/// `zeroforge: error: family 'NAME' not generated; nothing was written`
/// (`generate.not-generated`); or the validator's findings (`validate.finding`, the rule id
/// as reporter) and the same closing error. Empty when the outcome is Done, and for a check
/// that found the directory out of date (`files` lists what differs).
///
///     for (const auto& d : zf::failure_diagnostics(result))
///       if (d.code == "values.pinned") ...
std::vector<Diagnostic> failure_diagnostics(const GenerateResult& result);

/// failure_diagnostics(result), one line each (zf::to_string; without the source line and
/// caret under a located error).
std::vector<std::string> diagnostic_lines(const GenerateResult& result);

/// The shipped templates and presets when a request names none: ZEROFORGE_DATA_DIR, else
/// `<executable>/../share/zeroforge` (the build tree and an install are laid out alike).
std::filesystem::path default_data_dir();
/// The shipped plugins when a request names none: `<executable>/../lib/zeroforge/plugins`.
std::filesystem::path default_plugin_dir();

/// Writes `result.inputs` and `result.outputs`, made absolute, as a Makefile rule for `target`
/// (what Ninja and Make read as a depfile, as GCC's -MD -MP writes it): `target: input ...
/// output ...`, then an empty rule for each output (`output:`), so that a generated file
/// edited by hand is newer than the manifest and one deleted by hand is remade, not an error. A
/// space, `#` and `:` are escaped with `\`, `$` is doubled. A path that Make and Ninja cannot both
/// read back as written is refused: throws zf::Error (Usage) naming it (depfile_path_problem).
std::string depfile_text(const std::string& target, const GenerateResult& result);

/// Why `path` cannot be written into a depfile, or "" when it can: a control character (a
/// newline, a tab), one of `"'`;&|<>*?[]()=^` and `` ` `` (Make or Ninja reads each as syntax
/// and neither can escape it), a `\` before anything but a letter, a digit or
/// `+,-./_@!~{}%`, a `:` at the end, a `~` at the start; in the `target` also a `%` (Make
/// reads the rule as a pattern rule).
std::string depfile_path_problem(std::string_view path, bool target);

}  // namespace zf
