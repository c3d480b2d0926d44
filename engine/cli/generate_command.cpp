// SPDX-License-Identifier: MIT
// `zeroforge generate FAMILY -o DIR`: every config of a family plus DIR/manifest.json, streamed
// (render, write, forget) into a staging area that becomes DIR's files only when all succeeded;
// `--check` compares instead of writing and names each missing, changed and extra file.
#include <algorithm>
#include <boost/program_options.hpp>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

#include "batch_runner.hpp"
#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_printer.hpp"
#include "family_inputs.hpp"
#include "manifest_spool.hpp"
#include "output_dir.hpp"
#include "plugin_options.hpp"
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

struct GenerateOptions {
  CommonInputs inputs;
  PluginInputs plugin_inputs;
  std::string family;
  std::string output;
  bool check = false;
  bool no_validate = false;
  unsigned jobs = 0;  // threads; 0 = one per core
};

// One config on its way out: prepared in variant order on the main thread (values, contract,
// output path), then made (rendered, validated, written) on any thread.
struct ConfigJob {
  std::size_t index = 0;  // the variant
  Value values;           // what the template renders
  ValidateOptions validate;
  ManifestEntry entry;  // path, tier, variant and facts known before rendering
  Json context;         // with plugins: what their hooks are told about the config
  Json merged;          // with plugins: the values the output hooks see
  // Results:
  std::vector<Finding> findings;
  std::string entry_text;  // the manifest entry, empty when nothing was written
  std::exception_ptr failure;
};

// A template error while rendering one config: reported with the variant that hit it.
struct RenderFailure {
  Error error;
};

void make_config(ConfigJob& job, const Template& tpl, PluginHost& plugins, bool no_validate,
                 bool deepspeed, const std::string& finding_prefix, StagedOutput* staged,
                 DriftCheck* drift) {
  Json config;
  try {
    config = tpl.render_json(job.values);
  } catch (const Error& error) {
    throw RenderFailure{error};
  }
  job.values = Value();  // the values are shared with the next variant's; let them go early
  if (!plugins.empty()) {
    auto out = plugins.run_output_hooks(std::move(config), job.merged, job.context);
    config = std::move(out.config);
    for (auto& [key, value] : out.manifest.items()) job.entry.plugins[key] = value;
  }
  if (!no_validate && (deepspeed || is_deepspeed_config(config))) {
    job.findings = validate_config(config, job.validate, finding_prefix + job.entry.path);
    if (has_errors(job.findings)) return;
  }
  std::string text = to_json_text(config);
  job.entry.sha256 = sha256_hex(text);
  if (drift) {
    drift->compare(job.entry.path, text);
  } else {
    staged->write(job.entry.path, text);
  }
  job.entry_text = manifest_entry_text(job.entry);
}

// Errors about values repeat for every variant that shares the offending layer: report each
// once, with the first variant that hit it and how many others did.
class ProblemLog {
 public:
  void add(const Error& error, const std::string& variant) {
    auto [it, inserted] = index_.try_emplace(error.what(), entries_.size());
    if (inserted) {
      entries_.push_back({error, variant, 0});
    } else {
      ++entries_[it->second].others;
    }
  }
  bool empty() const noexcept { return entries_.empty(); }
  void print(std::ostream& out) const {
    for (const auto& entry : entries_) {
      std::string where = "variant '" + entry.variant + "'";
      if (entry.others > 0) where += " (and " + std::to_string(entry.others) + " more)";
      const Error& e = entry.error;
      Error shown =
          e.has_location()
              ? Error(e.kind(), where + ": " + e.message(), e.where().file, e.json_pointer())
              : Error(e.kind(), where + ": " + e.message(), "", e.json_pointer());
      print_error(out, e.where().line != 0 ? e : shown);
    }
  }

 private:
  struct Entry {
    Error error;
    std::string variant;
    std::size_t others;
  };
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

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
      "threads that render, validate and write configs (default: one per core; families with "
      "plugins use one)")("values", po::value(&opt.inputs.values_files)->composing(),
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
  if (!vm.count("jobs")) opt.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (opt.jobs == 0) throw Error(ErrorKind::Usage, "generate: --jobs must be at least 1");

  // Everything that can be checked without rendering happens before DIR is touched.
  FamilySetup setup = load_family_setup(opt.family, opt.inputs, opt.plugin_inputs);
  const Expansion& expansion = *setup.expansion;
  const Family& family = expansion.family();
  auto output_path = setup.environment->from_string(family.output, family.file + " /output");
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
  bool deepspeed = setup.contract == "deepspeed";
  // `DIR/` as fs::path(DIR) / path would begin: how findings name a config.
  const std::string finding_prefix = (fs::path(opt.output) / "").string();

  // Configs are made in batches. This thread prepares each config's values, checks them and
  // names its file, in variant order (values are patched from one variant to the next); the
  // rendering, validation and writing of a batch runs on every thread while this one prepares
  // the next batch. Results are taken in variant order, so output and messages do not depend
  // on the number of threads. Plugins' hooks are not promised to be thread-safe: with plugins
  // everything runs on this thread.
  unsigned threads = setup.plugins->empty() ? opt.jobs : 1;
  BatchRunner runner(threads);
  constexpr std::size_t kBatch = 256;
  std::vector<ConfigJob> batch, next_batch;
  auto produce = [&](ConfigJob& job) {
    try {
      make_config(job, *setup.template_, *setup.plugins, opt.no_validate, deepspeed, finding_prefix,
                  staged.get(), drift.get());
    } catch (...) {
      job.failure = std::current_exception();
    }
  };

  // Prepares variants from `index` on until `out` holds a batch or the variants run out.
  VariantValues current(expansion);
  std::size_t index = 0;
  auto prepare = [&](std::vector<ConfigJob>& out) {
    out.clear();
    for (; index < expansion.size() && out.size() < kBatch; ++index) {
      Variant variant = expansion.variant(index);
      const std::string& tier = expansion.tier_name(variant);
      ConfigJob job;
      job.index = index;
      if (!setup.plugins->empty()) {
        job.context = {{"template", family.template_name},
                       {"family", family.name},
                       {"tier", tier},
                       {"variant", variant.choice}};
      }
      Json hooked;
      if (setup.plugins->empty()) {
        current.load(variant);
      } else {
        SourcedValues values = expansion.values(variant);
        auto hooks = setup.plugins->run_values_hooks(values.layered_for_hooks(), job.context);
        if (!hooks.findings.empty()) {
          // Well-formed values the plugin cannot honour (e.g. a model that does not fit):
          // reported with every other such config, and nothing is written.
          for (auto& finding : hooks.findings) refusals.push_back(std::move(finding));
          continue;
        }
        job.entry.plugins = std::move(hooks.manifest);
        hooked = values.merged();
      }
      // The variant's values: read by the contract now, and (with the three names below
      // added) by the output hooks and the validator.
      const Json& merged = setup.plugins->empty() ? current.json() : hooked;

      if (deepspeed) {
        ContractCheck check = check_deepspeed_values(merged);
        if (!check.ok()) {
          // Rebuild with provenance so each error names the file and pointer of the value.
          SourcedValues values = expansion.values(variant);
          if (!setup.plugins->empty())
            setup.plugins->run_values_hooks(values.layered_for_hooks(), job.context);
          for (const auto& problem : check_deepspeed_values(values.merged(), &values).problems) {
            problems.add(problem, expansion.describe(variant));
          }
          continue;
        }
        job.entry.facts = facts_to_json(check.facts);
        job.validate = validate_options_from_values(merged);
        job.validate.world_size = check.facts.world_size;
        job.validate.hf = check.facts.hf_auto;
      } else {
        job.entry.facts = {{"world_size", world_size_of(merged)}};
        job.validate = validate_options_from_values(merged);
      }

      // The values plus the names the output pattern (and the template) may use: the values
      // hooks and the contract have seen the values; these three names are generate's own.
      if (setup.plugins->empty()) {
        current.set("tier", tier);
        current.set("family", family.name);
        current.set("variant", variant.slug);
        job.values = current.value();
      } else {
        job.merged = hooked;
        hooked["tier"] = tier;
        hooked["family"] = family.name;
        hooked["variant"] = variant.slug;
        job.values = Value::from_json(hooked);
      }
      std::string path;
      try {
        path = check_output_path(output_path->render(job.values), family);
      } catch (const Error& error) {
        if (error.kind() != ErrorKind::Values) throw;
        problems.add(error, expansion.describe(variant));
        continue;
      }
      if (!problems.empty() || !refusals.empty()) continue;  // keep checking; render nothing more
      job.entry.path = std::move(path);
      job.entry.tier = tier;
      job.entry.variant = std::move(variant.choice);
      out.push_back(std::move(job));
    }
  };

  prepare(batch);
  while (!batch.empty()) {
    runner.start(batch.size(), [&](std::size_t i) { produce(batch[i]); });
    prepare(next_batch);
    runner.finish();
    for (auto& job : batch) {
      if (job.failure) {
        try {
          std::rethrow_exception(job.failure);
        } catch (const RenderFailure& failure) {
          print_error(std::cerr, failure.error);
          std::cerr << "zeroforge: note: while rendering variant '"
                    << expansion.describe(expansion.variant(job.index)) << "' of " << family.file
                    << "; nothing was written\n";
          return kError;
        }
      }
      for (auto& finding : job.findings) findings.push_back(std::move(finding));
      // Configs the validator refused are listed too (with no text), so that a path two
      // variants share is reported even then; with refusals nothing is written anyway.
      manifest.add(job.entry.path, job.index, job.entry_text);
    }
    std::swap(batch, next_batch);
  }

  // Two variants that write the same path: adjacent once the entries are in path order.
  {
    std::string last_path;
    std::uint64_t last_variant = 0;
    bool first = true;
    manifest.merge([&](std::string_view path, std::uint64_t variant, std::string_view) {
      if (!first && path == last_path) {
        problems.add(
            Error(ErrorKind::Values,
                  "writes \"" + std::string(path) + "\", the same output path as variant '" +
                      expansion.describe(expansion.variant(last_variant)) +
                      "': make the output pattern tell them apart",
                  family.file, "/output"),
            expansion.describe(expansion.variant(variant)));
        return;
      }
      first = false;
      last_path.assign(path);
      last_variant = variant;
    });
  }
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
    manifest.merge([&](std::string_view, std::uint64_t, std::string_view entry_text) {
      sink(manifest_separator(i++));
      sink(entry_text);
    });
    sink(manifest_tail(count));
  };
  if (drift) {
    std::string manifest_text;
    write_manifest([&](std::string_view piece) { manifest_text += piece; });
    Drift found = drift->finish(manifest_text);
    std::string dir = opt.output;
    for (const auto& path : found.missing) std::cout << dir << '/' << path << ": missing\n";
    for (const auto& path : found.changed) std::cout << dir << '/' << path << ": changed\n";
    for (const auto& path : found.extra) std::cout << dir << '/' << path << ": extra\n";
    if (!found.empty()) {
      std::cerr << "zeroforge: " << dir << " differs from family '" << family.name << "' ("
                << found.missing.size() << " missing, " << found.changed.size() << " changed, "
                << found.extra.size() << " extra); run zeroforge generate without --check to "
                << "update it\n";
      return kFindings;
    }
    std::cout << "zeroforge: " << dir << " is up to date (" << count << " configs of family '"
              << family.name << "')\n";
    return kSuccess;
  }
  staged->commit(write_manifest);
  std::cout << "zeroforge: wrote " << count << " configs of family '" << family.name << "' to "
            << opt.output << " (index: " << (fs::path(opt.output) / "manifest.json").string()
            << ")\n";
  return kSuccess;
}

}  // namespace zf::cli
