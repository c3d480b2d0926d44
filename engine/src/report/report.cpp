// SPDX-License-Identifier: MIT
// zeroforge/report.hpp: the old manifest read as a baseline, a dry-run generate (with the
// memory plugin's estimate option when a model is named), the view and the page written
// atomically.
#include "zeroforge/report.hpp"

#include <algorithm>

#include "generate/family_inputs.hpp"
#include "generate/remark.hpp"
#include "report/html_text.hpp"
#include "report/report_page.hpp"
#include "report/report_view.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Family family_of(const GenerateRequest& request) {
  return load_family(pipeline::resolve_family(request.family, pipeline::data_dir_of(request)));
}

// A plugin named `memory` (or loaded from memory.so / libmemory.so). `--model` is the bundled
// plugin's convenience (docs/cli.md): its `estimate` option and model presets are no SDK
// contract another estimator could be configured through, so it names that plugin; the page
// itself reads any plugin's memory estimate record.
bool is_memory_plugin(const std::string& name_or_path) {
  const std::string stem = fs::path(name_or_path).stem().string();
  return name_or_path == "memory" || stem == "memory" || stem == "libmemory";
}

// A report in DIR (or below it) is a file no manifest lists: `generate --check` calls it extra.
bool inside(const fs::path& file, const fs::path& dir) {
  const std::string up = report::relative_dir(file, dir);  // from the report's directory to DIR
  for (std::size_t at = 0; at < up.size(); at += 3) {
    if (up.compare(at, 2, "..") != 0) return false;
  }
  return true;
}

void note_inside(const fs::path& file, const GenerateRequest& request,
                 std::vector<Diagnostic>* messages) {
  if (!inside(file, request.output_dir)) return;
  Diagnostic note = pipeline::remark(
      codes::report_inside_output, Severity::Note,
      "the report " + file.string() + " is inside " + request.output_dir.string() +
          ", where generate --check counts it as an extra file; write it beside the "
          "directory to avoid that");
  if (request.on_message) {
    request.on_message(note);
  } else if (messages) {
    messages->push_back(std::move(note));
  }
}

}  // namespace

Diagnostic baseline_warning(const ManifestBaseline& baseline) {
  // The manifest is replaced anyway: a warning of its own, naming the parser's error inside.
  Diagnostic d = pipeline::remark(codes::report_baseline, Severity::Warning,
                                  baseline.problem + " (no changes are marked)");
  d.kind = ErrorKind::Json;
  return d;
}

Diagnostic report_variant_note(const GenerateResult& result) {
  const VariantFailure& failure = *result.failure;
  Diagnostic d = pipeline::remark(codes::report_variant, Severity::Note,
                                  "while " + failure.doing + " variant '" + failure.variant +
                                      "' of " + result.family_file + "; no report was written");
  d.kind = failure.diagnostic.kind;
  return d;
}

Diagnostic not_reported_error(const GenerateResult& result) {
  const std::string why =
      !result.problems.empty() ? "its values are wrong"
      : !result.refusals.empty()
          ? std::to_string(result.refusals.size()) + " config(s) cannot be made as asked"
          : "the validator found errors in its configs (--no-validate "
            "reports them anyway)";
  Diagnostic d = pipeline::remark(
      codes::report_not_reported, Severity::Error,
      "family '" + result.family_name + "' not reported: " + why + "; no report was written");
  d.kind = ErrorKind::Values;  // as generate.not-generated
  return d;
}

ManifestBaseline read_manifest_baseline(const fs::path& dir) {
  ManifestBaseline baseline;
  const fs::path file = dir / "manifest.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return baseline;
  baseline.present = true;
  const std::string name = file.string();
  try {
    const Json manifest = parse_json_text(read_file(file), name);
    auto problem = [&](const std::string& pointer, const std::string& message) {
      baseline.problem = Error(ErrorKind::Json, message, name, pointer).what();
      baseline.sha256.clear();
    };
    if (!manifest.is_object() || !manifest.contains("configs") || !manifest["configs"].is_array()) {
      problem("/configs", "expected a list of configs");
      return baseline;
    }
    const Json& configs = manifest["configs"];
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Json& entry = configs[i];
      const std::string at = "/configs/" + std::to_string(i);
      if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string() ||
          !entry.contains("sha256") || !entry["sha256"].is_string()) {
        problem(at, "expected an object with \"path\" and \"sha256\" strings");
        return baseline;
      }
      baseline.sha256[entry["path"].get<std::string>()] = entry["sha256"].get<std::string>();
    }
  } catch (const Error& e) {
    baseline.problem = e.what();
    baseline.sha256.clear();
  }
  return baseline;
}

std::string report_html(const fs::path& file, const GenerateRequest& request,
                        const GenerateResult& result, const ManifestBaseline& baseline,
                        bool written) {
  if (result.manifest_text.empty()) {
    throw Error(ErrorKind::Usage,
                "report: the generate was made without keep_manifest, or did not succeed");
  }
  const Family family = family_of(request);
  report::ViewInputs in;
  in.description = family.description;
  for (const auto& tier : family.tiers) in.tier_order.push_back(tier.name);
  in.manifest = parse_json_text(result.manifest_text, "manifest.json");
  in.findings = result.findings;
  in.finding_prefix = (request.output_dir / "").string();
  in.baseline.present = baseline.present;
  in.baseline.problem = baseline.problem;
  in.baseline.sha256 = baseline.sha256;
  in.link_dir = report::relative_dir(file, request.output_dir);
  in.manifest_written = written;
  return report::render_page(report::make_view(in));
}

void write_report(const fs::path& file, const GenerateRequest& request,
                  const GenerateResult& result, const ManifestBaseline& baseline) {
  write_file_atomically(file, report_html(file, request, result, baseline, true));
  note_inside(file, request, nullptr);
}

GenerateResult report_family(const ReportRequest& request) {
  if (request.generate.family.empty()) throw Error(ErrorKind::Usage, "report: missing FAMILY");
  if (request.file.empty() && !request.sink)
    throw Error(ErrorKind::Usage, "report: missing -o FILE");
  // A page on a stream links relative to the working directory, as if written there (only
  // the page's directory matters).
  const fs::path page = request.sink ? fs::path("-") : request.file;
  if (request.generate.output_dir.empty())
    throw Error(ErrorKind::Usage, "report: missing the output directory (--dir DIR)");
  const ManifestBaseline baseline = read_manifest_baseline(request.generate.output_dir);
  GenerateRequest dry = request.generate;
  dry.check = false;
  dry.dry_run = true;
  dry.keep_manifest = true;
  if (!request.model.empty()) {
    const Family family = family_of(dry);
    const bool loaded = std::any_of(family.plugins.begin(), family.plugins.end(),
                                    [](const PluginRef& p) { return is_memory_plugin(p.name); }) ||
                        std::any_of(dry.plugins.begin(), dry.plugins.end(), is_memory_plugin);
    if (!loaded) dry.plugins.push_back("memory");
    dry.plugin_options.push_back("memory.estimate.model=" + Json(request.model).dump());
  }
  GenerateResult result = generate(dry);
  if (result.outcome == Outcome::Done && baseline.present && !request.sink)
    note_inside(request.file, dry, &result.messages);
  if (!baseline.problem.empty()) {
    Diagnostic warning = baseline_warning(baseline);
    if (request.generate.on_message) {
      request.generate.on_message(warning);
    } else {
      result.messages.push_back(std::move(warning));
    }
  }
  if (result.outcome == Outcome::Done) {
    const std::string html = report_html(page, dry, result, baseline, false);
    if (request.sink) {
      request.sink(html);
    } else {
      write_file_atomically(request.file, html);
    }
  }
  return result;
}

}  // namespace zf
