// SPDX-License-Identifier: MIT
// `zeroforge generate FAMILY -o DIR`: every config of a family plus DIR/manifest.json, streamed
// (render, write, forget) into a staging area that becomes DIR's files only when all succeeded;
// `--check` compares instead of writing and names each missing, changed and extra file.
#include <algorithm>
#include <boost/program_options.hpp>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "batch_runner.hpp"
#include "command.hpp"
#include "common_options.hpp"
#include "config_pipeline.hpp"
#include "diagnostic_printer.hpp"
#include "drift_check.hpp"
#include "family_inputs.hpp"
#include "manifest_spool.hpp"
#include "output_dir.hpp"
#include "plugin_options.hpp"
#include "problem_log.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/validator.hpp"

namespace zf::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// Configs are made in batches of kBatch; more threads than that would have nothing to do.
constexpr std::size_t kBatch = 256;
constexpr unsigned kMaxJobs = kBatch;

struct GenerateOptions {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string family;
  std::string output;
  bool check = false;
  bool no_validate = false;
  unsigned jobs = 0;  // threads; 0 = one per core
};

// Two variants that write the same path: adjacent once the entries are in path order.
void report_shared_paths(ManifestSpool& manifest, const Expansion& expansion,
                         ProblemLog& problems) {
  std::string last_path;
  std::uint64_t last_variant = 0;
  bool first = true;
  manifest.merge([&](const SpoolEntry& entry) {
    std::string_view path = entry.path;
    std::uint64_t variant = entry.variant;
    if (!first && path == last_path) {
      problems.add(Error(ErrorKind::Values,
                         "writes \"" + std::string(path) + "\", the same output path as variant '" +
                             expansion.describe(expansion.variant(last_variant)) +
                             "': make the output pattern tell them apart",
                         expansion.family().file, "/output"),
                   expansion.describe(expansion.variant(variant)));
      return;
    }
    first = false;
    last_path.assign(path);
    last_variant = variant;
  });
}

// `--check`'s report: every missing file, then every changed one, then every extra one, each
// in path order (manifest.json among them), one merge of the entries per list.
// Every path generate would write, in path order, with its drift status: the spool's entries
// and manifest.json at its place among them.
void each_path(ManifestSpool& manifest, DriftStatus manifest_status,
               const std::function<void(std::string_view, DriftStatus)>& visit) {
  constexpr std::string_view kManifest = "manifest.json";
  bool manifest_done = false;
  manifest.merge([&](const SpoolEntry& entry) {
    if (!manifest_done && kManifest < entry.path) {
      visit(kManifest, manifest_status);
      manifest_done = true;
    }
    visit(entry.path, static_cast<DriftStatus>(entry.tag));
  });
  if (!manifest_done) visit(kManifest, manifest_status);
}

int report_drift(const DriftCheck& drift, ManifestSpool& manifest,
                 const std::function<void(const DriftCheck::Sink&)>& write_manifest,
                 const std::string& dir, const Family& family) {
  const DriftStatus manifest_status = drift.compare_manifest(write_manifest);
  std::size_t counts[3] = {0, 0, 0};
  for (DriftStatus kind : {DriftStatus::Missing, DriftStatus::Changed}) {
    const char* word = kind == DriftStatus::Missing ? "missing" : "changed";
    each_path(manifest, manifest_status, [&](std::string_view path, DriftStatus status) {
      if (status != kind) return;
      std::cout << dir << '/' << path << ": " << word << '\n';
      ++counts[static_cast<int>(kind)];
    });
  }
  std::size_t extra = 0;
  // Staging of runs that were killed: the next generate removes it; say so here.
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec).lexically_normal();
  const fs::path target = absolute.has_filename() ? absolute : absolute.parent_path();
  const std::string prefix = fs::path(staging_prefix(target)).filename().string();
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix)) {
      std::cerr << "zeroforge: note: " << it->path().string()
                << " is the staging of a killed run; the next generate removes it\n";
    }
  }
  if (!fs::exists(fs::path(dir) / "manifest.json")) {
    // Not an output directory of zeroforge (or not yet): its other files are not looked
    // for, so that `--check -o /` does not walk the file system.
    std::cerr << "zeroforge: note: " << dir
              << " has no manifest.json; files the family does not write are not listed\n";
  } else
    drift.extras(
        [&](const std::function<void(std::string_view)>& expect) {
          each_path(manifest, manifest_status,
                    [&](std::string_view path, DriftStatus) { expect(path); });
        },
        [&](const std::string& path) {
          std::cout << dir << '/' << path << ": extra\n";
          ++extra;
        });
  std::size_t missing = counts[1], changed = counts[2];
  if (missing + changed + extra > 0) {
    std::cerr << "zeroforge: " << dir << " differs from family '" << family.name << "' (" << missing
              << " missing, " << changed << " changed, " << extra
              << " extra); run zeroforge generate without --check to update it"
              << (extra > 0 ? " (it keeps files no manifest listed: delete the extra ones yourself)"
                            : "")
              << "\n";
    return kFindings;
  }
  std::cout << "zeroforge: " << dir << " is up to date (" << manifest.size()
            << " configs of family '" << family.name << "')\n";
  return kSuccess;
}

int print_help(const po::options_description& options) {
  std::cout
      << "Generates every config of a family (a family file, or the name of one in\n"
         "presets/families/) into DIR, plus DIR/manifest.json. Nothing is written when any\n"
         "config fails. With --check, writes nothing and exits 1 naming every file under DIR\n"
         "that is missing, changed or extra.\n\n"
      << options << '\n';
  return kSuccess;
}

}  // namespace

int run_generate(const std::vector<std::string>& args) {
  GenerateOptions opt;
  po::options_description options("zeroforge generate FAMILY -o DIR [options]");
  options.add_options()("help,h", "show this help")(
      "output,o", po::value(&opt.output), "directory to write the configs and manifest.json to")(
      "check", po::bool_switch(&opt.check),
      "write nothing; exit 1 if DIR differs from what would be written")(
      "no-validate", po::bool_switch(&opt.no_validate),
      "write configs even when the validator finds errors in them")(
      "jobs,j", po::value(&opt.jobs),
      "threads (1-256) that render, validate and write configs (default: one per core; "
      "families with plugins use one)")(
      "values", po::value(&opt.inputs.values_files)->composing(),
      "JSON values file applied to every config, in order (repeatable)")(
      "set", po::value(&opt.inputs.sets)->composing(),
      "KEY=VALUE applied to every config (repeatable; see zeroforge render --help)");
  add_template_options(options, opt.inputs);
  add_plugin_options(options, opt.plugin_inputs);
  po::options_description hidden;
  hidden.add_options()("family", po::value(&opt.family));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("family", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) return print_help(options);
  po::notify(vm);
  if (opt.family.empty()) throw Error(ErrorKind::Usage, "generate: missing FAMILY");
  if (opt.output.empty()) throw Error(ErrorKind::Usage, "generate: missing -o DIR");
  if (!vm.count("jobs")) opt.jobs = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxJobs);
  if (opt.jobs == 0 || opt.jobs > kMaxJobs) {
    throw Error(ErrorKind::Usage, "generate: --jobs must be 1-" + std::to_string(kMaxJobs) +
                                      ", got " + std::to_string(opt.jobs));
  }

  // Everything that can be checked without rendering happens before DIR is touched.
  FamilySetup setup = load_family_setup(opt.family, opt.inputs, opt.plugin_inputs);
  const Expansion& expansion = *setup.expansion;
  const Family& family = expansion.family();
  std::unique_ptr<StagedOutput> staged;
  std::unique_ptr<DriftCheck> drift;
  if (opt.check) {
    drift = std::make_unique<DriftCheck>(opt.output);
  } else {
    staged = std::make_unique<StagedOutput>(opt.output);
  }

  ProblemLog problems;
  std::vector<PluginFinding> refusals;
  std::vector<Finding> findings;
  // Manifest entries are serialised as soon as they are known and spilled to a file in sorted
  // runs, so memory stays flat in the number of configs. Two variants writing the same path
  // are found when the runs are merged, before anything is written.
  ManifestSpool manifest(staged ? staged->staging() : fs::temp_directory_path());
  // `DIR/` as fs::path(DIR) / path would begin: how findings name a config.
  const std::string finding_prefix = (fs::path(opt.output) / "").string();

  // Configs are made in batches, each config wholly by one thread (values, checks, file
  // name, rendering, validation, writing), while this thread takes the previous batch's
  // results. Results are taken in variant order, so output and messages do not depend on the
  // number of threads. Plugins' hooks are not promised to be thread-safe: with plugins
  // everything runs on this thread.
  const ConfigMaker maker(
      setup, ConfigTarget{!opt.no_validate, finding_prefix, staged.get(), drift.get()});
  std::vector<ConfigJob> batch, done;
  auto produce = [&](ConfigJob& job) {
    try {
      maker.make(job);
    } catch (...) {
      job.failure = std::current_exception();
    }
  };
  std::size_t next = 0;  // the next variant to hand out
  auto fill = [&](std::vector<ConfigJob>& jobs) {
    jobs.clear();
    for (; next < expansion.size() && jobs.size() < kBatch; ++next)
      jobs.emplace_back().index = next;
  };
  auto report = [&](const RenderFailure& failure) {
    print_error(std::cerr, failure.error);
    std::cerr << "zeroforge: note: while " << failure.doing << " variant '"
              << expansion.describe(expansion.variant(failure.variant)) << "' of " << family.file
              << "; nothing was written\n";
    return kError;
  };
  // As if made one by one in variant order, stopping at the first template error: once a
  // variant's values are refused, later ones are still checked (so every problem is reported)
  // but what is made of them is dropped, and so is a template error while rendering them
  // (never a bad output pattern, which every variant shares).
  auto take = [&](ConfigJob& job) -> std::optional<RenderFailure> {
    const bool refused_before = !problems.empty() || !refusals.empty();
    if (job.failure) {
      try {
        std::rethrow_exception(job.failure);
      } catch (const RenderFailure& failure) {
        if (!refused_before || failure.doing != std::string_view("rendering")) return failure;
      }
      return std::nullopt;
    }
    if (!job.problems.empty()) {
      const std::string variant = expansion.describe(expansion.variant(job.index));
      for (const auto& problem : job.problems) problems.add(problem, variant);
    }
    for (auto& refusal : job.refusals) refusals.push_back(std::move(refusal));
    if (!job.made || refused_before) return std::nullopt;
    for (auto& finding : job.findings) findings.push_back(std::move(finding));
    // Configs the validator refused are listed too (with no text), so that a path two
    // variants share is reported even then; with refusals nothing is written anyway.
    manifest.add({job.path, job.index, static_cast<std::uint32_t>(job.drift), job.entry_text});
    return std::nullopt;
  };

  // Declared after everything its tasks use: if this thread throws while a batch runs, the
  // runner is destroyed (and waits for the running tasks) first.
  BatchRunner runner(setup.plugins->empty() ? opt.jobs : 1);
  fill(batch);
  while (!batch.empty()) {
    runner.start(batch.size(), [&](std::size_t i) { produce(batch[i]); });
    for (auto& job : done) {
      if (auto failure = take(job)) return report(*failure);
    }
    runner.finish();
    std::swap(batch, done);
    fill(batch);
  }
  for (auto& job : done) {
    if (auto failure = take(job)) return report(*failure);
  }

  report_shared_paths(manifest, expansion, problems);
  print_plugin_findings(std::cerr, family.file, refusals);
  if (!problems.empty()) {
    problems.print(std::cerr);
    std::cerr << "zeroforge: error: family '" << family.name
              << "' not generated; nothing was written\n";
    return kError;
  }
  if (!refusals.empty()) {
    std::cerr << "zeroforge: error: family '" << family.name
              << "' not generated: " << refusals.size()
              << " config(s) cannot be made as asked; nothing was written\n";
    return kFindings;
  }
  for (const auto& finding : findings) std::cerr << format_finding(finding) << '\n';
  if (has_errors(findings)) {
    std::cerr << "zeroforge: error: the validator found errors in generated configs; nothing was "
                 "written (--no-validate writes them anyway)\n";
    return kFindings;
  }

  std::size_t count = manifest.size();
  auto write_manifest = [&](const StagedOutput::Sink& sink) {
    sink(manifest_head(ZEROFORGE_VERSION, family));
    std::size_t i = 0;
    manifest.merge([&](const SpoolEntry& entry) {
      sink(manifest_separator(i++));
      sink(entry.text);
    });
    sink(manifest_tail(count));
  };
  if (drift) return report_drift(*drift, manifest, write_manifest, opt.output, family);
  staged->commit(write_manifest);
  std::cout << "zeroforge: wrote " << count << " configs of family '" << family.name << "' to "
            << opt.output << " (index: " << (fs::path(opt.output) / "manifest.json").string()
            << ")\n";
  return kSuccess;
}

}  // namespace zf::cli
