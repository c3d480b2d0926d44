// SPDX-License-Identifier: MIT
// The family report: one self-contained HTML page (inline CSS and SVG, no scripts) showing
// per tier what each config got and why: per-GPU and host memory against the tier's
// capacities (the memory plugin's estimates), stage, offload and batch arithmetic, auto-fit's
// trail, validator findings, links to the configs, and what changed against the manifest
// already in the output directory. `zeroforge report` and `zeroforge generate --report`.
//
//     zf::ReportRequest request;
//     request.generate.family = "example";
//     request.generate.output_dir = "configs";        // where the configs are (or will be)
//     request.file = "configs/report.html";
//     request.model = "llama-2-7b";                    // estimate configs that name no model
//     zf::GenerateResult result = zf::report_family(request);   // outcome as generate's
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "zeroforge/generate.hpp"

namespace zf {

/// The manifest already in an output directory, read before a run replaces it: what the
/// report marks changes against.
struct ManifestBaseline {
  /// DIR/manifest.json existed.
  bool present = false;
  /// Why it could not be read (the parser's `file:line:col: error: ...`), or "". Generate
  /// replaces a broken manifest, so this is not an error: the report says changes are not
  /// marked.
  std::string problem;
  /// Each listed config's sha256, by path.
  std::map<std::string, std::string> sha256;
};

/// Reads `dir/manifest.json` when there is one.
ManifestBaseline read_manifest_baseline(const std::filesystem::path& dir);

/// The warning that `baseline` could not be read (its `problem` is not empty), code
/// `report.baseline`: `zeroforge: warning: PROBLEM (no changes are marked)` as zf::to_string
/// prints it.
Diagnostic baseline_warning(const ManifestBaseline& baseline);

/// The note that follows the error which stopped a report while it made one config
/// (`result.failure` is set), code `report.variant`, with the failure's kind: as zf::to_string
/// prints it, `zeroforge: note: while rendering variant 'medium' of team/family.json; no report
/// was written`. generate's counterpart is `generate.variant` (failure_diagnostics).
Diagnostic report_variant_note(const GenerateResult& result);

/// The error that closes a report stopped after making its configs (values problems, plugin
/// refusals or validator errors; `result.failure` is not set), code `report.not-reported`:
/// `zeroforge: error: family 'NAME' not reported: its values are wrong; no report was
/// written` (or `N config(s) cannot be made as asked`, or `the validator found errors in its
/// configs (--no-validate reports them anyway)`). generate's counterpart is
/// `generate.not-generated` (failure_diagnostics).
Diagnostic not_reported_error(const GenerateResult& result);

/// What to report, and where.
struct ReportRequest {
  /// The family and its options, as for generate. `output_dir` is where the configs are (or
  /// `zeroforge generate` writes them): the links point there and its manifest.json is what
  /// changes are marked against. Nothing is written there.
  GenerateRequest generate;
  /// Where the page goes (written atomically; missing directories are created).
  std::filesystem::path file;
  /// When set, receives the page instead of `file` (`zeroforge report -o -` prints it); its
  /// links are then relative to the working directory.
  std::function<void(std::string_view html)> sink;
  /// A model preset name or file: the memory plugin (loaded when the family does not load
  /// it) estimates every config that auto-fit does not fit with it, as the config stands
  /// (its plugin option `estimate.model`). The configs do not change. "" for none.
  std::string model;
};

/// `zeroforge report`: makes every config of the family in memory (validated as generate
/// does) and, when that succeeds (outcome Done), writes the report to `request.file` (or hands
/// it to `request.sink`).
/// Returns what generate would have returned; throws zf::Error like generate, and for a
/// report that cannot be written. Warns (on_message, else the result's messages) when the
/// old manifest cannot be read (`report.baseline`), and notes a report written inside an
/// output directory that holds a manifest (`report.inside-output`: `generate --check` counts
/// it as an extra file there).
GenerateResult report_family(const ReportRequest& request);

/// `zeroforge generate --report FILE`: the report of a generate that succeeded and was made
/// with `keep_manifest` (`result.manifest_text`), its changes marked against `baseline` (read
/// before the generate). Written atomically to `file`. Throws zf::Error (Io) when it cannot
/// be written. Notes (request.on_message) a report inside the output directory
/// (`report.inside-output`).
void write_report(const std::filesystem::path& file, const GenerateRequest& request,
                  const GenerateResult& result, const ManifestBaseline& baseline);

/// The report's HTML for the same inputs as write_report, with the configs `written` to the
/// output directory or not (a dry run): the same inputs give the same bytes.
std::string report_html(const std::filesystem::path& file, const GenerateRequest& request,
                        const GenerateResult& result, const ManifestBaseline& baseline,
                        bool written);

}  // namespace zf
