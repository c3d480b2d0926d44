// SPDX-License-Identifier: MIT
// zf::generate (zeroforge/generate.hpp): every config of a family plus DIR/manifest.json,
// streamed (render, write, forget) into a staging area that becomes DIR's files only when all
// succeeded; `check` compares instead of writing and names each missing, changed and extra file.
#include "zeroforge/generate.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "batch_runner.hpp"
#include "companions.hpp"
#include "config_pipeline.hpp"
#include "drift_check.hpp"
#include "family_inputs.hpp"
#include "manifest_spool.hpp"
#include "output_dir.hpp"
#include "problem_log.hpp"
#include "remark.hpp"
#include "tier_subset.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/manifest.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace fs = std::filesystem;
using namespace pipeline;

namespace {

// Configs are made in batches of kBatch; more threads than that would have nothing to do.
constexpr std::size_t kBatch = 256;
constexpr unsigned kMaxJobs = kBatch;

// The spool's tag: a file's drift status, plus this bit for a companion (listed in its
// config's manifest entry, not as an entry of its own).
constexpr std::uint32_t kCompanionTag = 1u << 8;
// And this bit for an entry of a tier the run does not make (`--tier`), kept from DIR's
// manifest: listed, never written or compared; its variant is kKeptVariant.
constexpr std::uint32_t kKeptTag = 1u << 9;
constexpr std::uint64_t kKeptVariant = ~std::uint64_t{0};
DriftStatus drift_of(std::uint32_t tag) { return static_cast<DriftStatus>(tag & 0xff); }

// Two variants that write the same path: adjacent once the entries are in path order. A kept
// entry (added before any made one) comes first among equal paths.
void report_shared_paths(ManifestSpool& manifest, const Expansion& expansion,
                         const std::string& manifest_file, ProblemLog& problems) {
  std::string last_path;
  std::uint64_t last_variant = 0;
  bool first = true;
  manifest.merge([&](const SpoolEntry& entry) {
    std::string_view path = entry.path;
    std::uint64_t variant = entry.variant;
    if (!first && path == last_path) {
      if (variant == kKeptVariant) return;  // listed twice by the old manifest: not this run's
      const std::string other =
          last_variant == kKeptVariant
              ? "a file of another tier that " + manifest_file + " lists (kept by --tier)"
              : "variant '" + expansion.describe(expansion.variant(last_variant)) + "'";
      problems.add(
          to_diagnostic(Error(ErrorKind::Values,
                              "writes \"" + std::string(path) + "\", the same output path as " +
                                  other + ": make the output pattern tell them apart",
                              expansion.family().file, "/output"),
                        codes::output_shared_path),
          expansion.describe(expansion.variant(variant)));
      return;
    }
    first = false;
    last_path.assign(path);
    last_variant = variant;
  });
}

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
    visit(entry.path, drift_of(entry.tag));
  });
  if (!manifest_done) visit(kManifest, manifest_status);
}

// `check`'s report: every missing file, then every changed one, then every extra one, each in
// path order (manifest.json among them), one merge of the entries per list. With `--tier`
// (`replaced` not null: the paths DIR's manifest lists for the tiers made), the extra files
// are those of `replaced` that the run no longer writes: files of other tiers, and files no
// manifest lists, are a whole check's business.
void compare_with_dir(const DriftCheck& drift, ManifestSpool& manifest,
                      const std::function<void(const DriftCheck::Sink&)>& write_manifest,
                      const GenerateRequest& request, const MessageSink& messages,
                      std::set<std::string>* replaced, GenerateResult& result) {
  const std::string dir = request.output_dir.string();
  const DriftStatus manifest_status = drift.compare_manifest(write_manifest);
  for (DriftStatus kind : {DriftStatus::Missing, DriftStatus::Changed}) {
    const FileChange change =
        kind == DriftStatus::Missing ? FileChange::Missing : FileChange::Changed;
    std::size_t& count = kind == DriftStatus::Missing ? result.missing : result.changed;
    each_path(manifest, manifest_status, [&](std::string_view path, DriftStatus status) {
      if (status != kind) return;
      result.files.push_back({std::string(path), change});
      ++count;
    });
  }
  // Staging of runs that were killed: the next generate removes it; say so here.
  std::error_code ec;
  const fs::path absolute = fs::absolute(request.output_dir, ec).lexically_normal();
  const fs::path target = absolute.has_filename() ? absolute : absolute.parent_path();
  const std::string prefix = fs::path(staging_prefix(target)).filename().string();
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix)) {
      messages(remark(
          codes::generate_check_staging, Severity::Note,
          it->path().string() + " is the staging of a killed run; the next generate removes it"));
    }
  }
  if (!fs::exists(request.output_dir / "manifest.json")) {
    // Not an output directory of zeroforge (or not yet): its other files are not looked
    // for, so that `--check -o /` does not walk the file system.
    messages(remark(codes::generate_check_no_manifest, Severity::Note,
                    dir + " has no manifest.json; files the family does not write are not "
                          "listed"));
  } else if (replaced != nullptr) {
    manifest.merge([&](const SpoolEntry& entry) { replaced->erase(std::string(entry.path)); });
    for (const auto& path : *replaced) {
      struct stat info {};
      if (::lstat((request.output_dir / path).c_str(), &info) != 0) continue;
      result.files.push_back({path, FileChange::Extra});
      ++result.extra;
    }
  } else {
    drift.extras(
        [&](const std::function<void(std::string_view)>& expect) {
          each_path(manifest, manifest_status,
                    [&](std::string_view path, DriftStatus) { expect(path); });
        },
        [&](const std::string& path) {
          result.files.push_back({path, FileChange::Extra});
          ++result.extra;
        });
  }
  result.outcome =
      result.missing + result.changed + result.extra > 0 ? Outcome::Stale : Outcome::Done;
}

// The writer of the companions the request (or else the family) asks for, or null for none.
std::unique_ptr<CompanionWriter> make_companion_writer(const GenerateRequest& request,
                                                       const FamilySetup& setup) {
  const Family& family = setup.expansion->family();
  const std::vector<std::string>& kinds =
      request.companions ? *request.companions : family.companions;
  if (kinds.empty()) return nullptr;
  const auto& known = companion_kinds();
  std::string expected;
  for (const auto& kind : known) expected += (expected.empty() ? "" : ", ") + kind;
  for (const auto& kind : kinds) {
    if (std::find(known.begin(), known.end(), kind) == known.end()) {
      throw Error(ErrorKind::Usage,
                  "generate: unknown companion '" + kind + "' (expected " + expected + ")");
    }
  }
  if (setup.contract != "deepspeed") {
    const std::string why =
        "companions need a template under the DeepSpeed values contract "
        "(their batch, precision and world size come from it), and '" +
        family.template_name + "' has none";
    if (request.companions) throw Error(ErrorKind::Usage, "generate: --companions: " + why);
    throw CodedError(Error(ErrorKind::Values, why, family.file, "/companions"),
                     codes::companion_no_contract);
  }
  return std::make_unique<CompanionWriter>(*setup.environment, kinds);
}

// Every file the run read, each once, sorted.
std::vector<fs::path> inputs_of(const FamilySetup& setup) {
  std::set<fs::path> all;
  for (const auto& path : setup.inputs) all.insert(path.lexically_normal());
  for (const auto& path : setup.environment->files_found()) all.insert(path.lexically_normal());
  for (const auto& path : setup.plugins->files_read()) all.insert(path.lexically_normal());
  return {all.begin(), all.end()};
}

// A failed result says why in its messages too, where a program that prints them finds it.
void add_diagnostics(GenerateResult& result) {
  for (auto& d : failure_diagnostics(result)) result.messages.push_back(std::move(d));
}

// One run of zf::generate, step by step: check the request, read the inputs, get the output
// ready, make every config, judge what was made, then write (or compare) the files and the
// manifest. Lives on the stack of generate(): its message sink points at it.
class Generation {
 public:
  explicit Generation(const GenerateRequest& request) : request_(request) {}
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;

  GenerateResult run() {
    check_request();
    read_inputs();
    prepare_output();
    if (std::optional<RenderFailure> failure = make_configs()) return failed(*failure);
    result_.inputs = inputs_of(*setup_);
    if (!judge()) return std::move(result_);
    // And a depfile that cannot name an input or a file of the set, before DIR changes.
    if (request_.depfile) {
      // The files this run makes: another tier's (`--tier`) are no output of it, so a build
      // system does not rerun it for a hand edit it would leave as it is.
      manifest_->merge([&](const SpoolEntry& entry) {
        if (entry.tag & kKeptTag) return;
        result_.outputs.push_back(request_.output_dir / std::string(entry.path));
      });
      depfile_text(result_.manifest.string(), result_);
    }
    plan_manifest();
    if (drift_) {
      compare_with_dir(*drift_, *manifest_, write_manifest_, request_, messages_,
                       selection_.all() ? nullptr : &replaced_, result_);
    } else if (staged_) {  // neither: a dry run
      write_output();
    }
    return std::move(result_);
  }

 private:
  // Usage problems, before anything is read; a depfile that cannot name the manifest too.
  void check_request() {
    if (request_.family.empty()) throw Error(ErrorKind::Usage, "generate: missing FAMILY");
    if (request_.output_dir.empty()) throw Error(ErrorKind::Usage, "generate: missing -o DIR");
    jobs_ = request_.jobs;
    if (jobs_ == 0) jobs_ = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxJobs);
    if (jobs_ > kMaxJobs) {
      throw Error(ErrorKind::Usage, "generate: --jobs must be 1-" + std::to_string(kMaxJobs) +
                                        ", got " + std::to_string(jobs_));
    }
    if (request_.depfile) depfile_text((request_.output_dir / "manifest.json").string(), result_);
  }

  // The family, its tiers, template, plugins and companions: everything that can be checked
  // without rendering happens before DIR is touched.
  void read_inputs() {
    setup_ = load_family_setup(request_, [this](const Diagnostic& d) { messages_(d); });
    const Family& family = setup_->expansion->family();
    result_.family_name = family.name;
    result_.family_file = family.file;
    result_.manifest = request_.output_dir / "manifest.json";
    selection_ = TierSelection(family, request_.tiers);
    result_.tiers = selection_.names(family);
    companions_ = make_companion_writer(request_, *setup_);
  }

  // Where the configs go: a staging area beside DIR, or a comparison with it (check), or
  // nowhere (a dry run). Manifest entries are serialised as soon as they are known and spilled
  // to a file in sorted runs, so memory stays flat in the number of configs.
  void prepare_output() {
    if (request_.check) {
      drift_ = std::make_unique<DriftCheck>(request_.output_dir);
    } else if (!request_.dry_run) {
      staged_ = std::make_unique<StagedOutput>(request_.output_dir, messages_, request_.list_files);
    }
    manifest_.emplace(staged_ ? staged_->staging() : fs::temp_directory_path());
    if (!selection_.all()) keep_other_tiers();
  }

  // `--tier`: the entries DIR's manifest lists for the other tiers go into this run's manifest
  // as they are (first, so that a made config sharing a kept path comes after it), and what it
  // lists for the tiers made is remembered for check's extra files. Read after StagedOutput
  // took DIR's lock, so that no other run replaces the manifest meanwhile.
  void keep_other_tiers() {
    read_other_tiers(
        result_.manifest, setup_->expansion->family(), selection_, ZEROFORGE_VERSION,
        [this](KeptEntry&& entry) {
          manifest_->add({entry.path, kKeptVariant, kKeptTag, entry.text});
          ++kept_configs_;
          for (const auto& companion : entry.companions) {
            manifest_->add({companion, kKeptVariant, kKeptTag | kCompanionTag, {}});
            ++kept_companions_;
          }
        },
        [this](const std::string& path) {
          if (drift_) replaced_.insert(path);
        });
  }

  // Configs are made in batches, each config wholly by one thread (values, checks, file
  // name, rendering, validation, writing), while this thread takes the previous batch's
  // results. Results are taken in variant order, so output and messages do not depend on the
  // number of threads. Plugins' hooks are not promised to be thread-safe: with plugins
  // everything runs on this thread. Returns the first template error, if any.
  std::optional<RenderFailure> make_configs() {
    // `DIR/` as fs::path(DIR) / path would begin: how findings name a config.
    const std::string finding_prefix = (request_.output_dir / "").string();
    const ConfigMaker maker(*setup_, ConfigTarget{request_.validation, finding_prefix,
                                                  staged_.get(), drift_.get(), companions_.get()});
    const Expansion& expansion = *setup_->expansion;
    std::vector<ConfigJob> batch, done;
    std::size_t next = 0;  // the next variant to hand out
    auto fill = [&](std::vector<ConfigJob>& jobs_out) {
      jobs_out.clear();
      for (; next < expansion.size() && jobs_out.size() < kBatch; ++next)
        if (selection_.contains(expansion.tier_of(next))) jobs_out.emplace_back().index = next;
    };
    // Declared after everything its tasks use: if this thread throws while a batch runs, the
    // runner is destroyed (and waits for the running tasks) first.
    BatchRunner runner(setup_->plugins->empty() ? jobs_ : 1);
    fill(batch);
    while (!batch.empty()) {
      runner.start(batch.size(), [&](std::size_t i) {
        try {
          maker.make(batch[i]);
        } catch (...) {
          batch[i].failure = std::current_exception();
        }
      });
      for (auto& job : done) {
        if (auto failure = take(job)) return failure;
      }
      runner.finish();
      std::swap(batch, done);
      fill(batch);
    }
    for (auto& job : done) {
      if (auto failure = take(job)) return failure;
    }
    return std::nullopt;
  }

  // One made config, as if made one by one in variant order, stopping at the first template
  // error: once a variant's values are refused, later ones are still checked (so every
  // problem is reported) but what is made of them is dropped, and so is a template error while
  // rendering them (never a bad output pattern, which every variant shares).
  std::optional<RenderFailure> take(ConfigJob& job) {
    const Expansion& expansion = *setup_->expansion;
    const bool refused_before = !problems_.empty() || !refusals_.empty();
    if (job.failure) {
      try {
        std::rethrow_exception(job.failure);
      } catch (const RenderFailure& failure) {
        if (!refused_before || !std::string_view(failure.doing).starts_with("rendering"))
          return failure;
      }
      return std::nullopt;
    }
    if (!job.problems.empty()) {
      const std::string variant = expansion.describe(expansion.variant(job.index));
      for (const auto& problem : job.problems) problems_.add(problem, variant);
    }
    for (auto& refusal : job.refusals) refusals_.push_back(std::move(refusal));
    if (!job.made || refused_before) return std::nullopt;
    for (auto& finding : job.findings) findings_.push_back(std::move(finding));
    // A companion's warning is the same for every config that shares the value: said once.
    for (auto& warning : job.warnings)
      if (warned_.insert(to_string(warning)).second) messages_(warning);
    // Configs the validator refused are listed too (with no text), so that a path two
    // variants share is reported even then; with refusals nothing is written anyway.
    manifest_->add({job.path, job.index, static_cast<std::uint32_t>(job.drift), job.entry_text});
    for (const auto& [path, status] : job.companions) {
      manifest_->add({path, job.index, kCompanionTag | static_cast<std::uint32_t>(status), {}});
      ++companion_files_;
    }
    return std::nullopt;
  }

  GenerateResult failed(const RenderFailure& failure) {
    const Expansion& expansion = *setup_->expansion;
    result_.failure =
        VariantFailure{to_diagnostic(failure.error),
                       expansion.describe(expansion.variant(failure.variant)), failure.doing};
    result_.outcome = Outcome::Failed;
    result_.inputs = inputs_of(*setup_);
    add_diagnostics(result_);
    return std::move(result_);
  }

  // Whether what was made may be written: no two variants share a path, no values problem, no
  // refusal, no validator error. Otherwise the result says why.
  bool judge() {
    report_shared_paths(*manifest_, *setup_->expansion, result_.manifest.string(), problems_);
    result_.refusals = std::move(refusals_);
    result_.findings = std::move(findings_);
    if (!problems_.empty()) {
      result_.problems = problems_.take();
      result_.outcome = Outcome::Failed;
      add_diagnostics(result_);
      return false;
    }
    if (!result_.refusals.empty() || has_errors(result_.findings)) {
      result_.outcome = Outcome::Refused;
      add_diagnostics(result_);
      return false;
    }
    return true;
  }

  // The counts, and how the manifest's text is made: merged from the spool (once, with
  // keep_manifest, and kept).
  void plan_manifest() {
    result_.companions = companion_files_;
    result_.configs = manifest_->size() - companion_files_ - kept_configs_ - kept_companions_;
    result_.kept = kept_configs_;
    const Family& family = setup_->expansion->family();
    write_manifest_ = [this, &family](const StagedOutput::Sink& sink) {
      sink(manifest_head(ZEROFORGE_VERSION, family));
      std::size_t i = 0;
      manifest_->merge([&](const SpoolEntry& entry) {
        if (entry.tag & kCompanionTag) return;  // listed in its config's entry
        sink(manifest_separator(i++));
        sink(entry.text);
      });
      sink(manifest_tail(result_.configs + kept_configs_));
    };
    if (request_.keep_manifest) {
      write_manifest_([this](std::string_view text) { result_.manifest_text += text; });
      write_manifest_ = [this](const StagedOutput::Sink& sink) { sink(result_.manifest_text); };
    }
  }

  // The staged set becomes DIR's files, and the result says what changed.
  void write_output() {
    staged_->commit(write_manifest_);
    result_.unchanged = staged_->unchanged_count();
    result_.written = result_.configs + result_.companions - result_.unchanged;
    std::vector<std::string> removed = staged_->removed_paths();
    result_.removed = removed.size();
    if (!request_.list_files) return;
    std::vector<std::string> unchanged = staged_->unchanged_paths();
    std::size_t u = 0;
    manifest_->merge([&](const SpoolEntry& entry) {
      if (entry.tag & kKeptTag) return;  // another tier's: neither written nor compared
      if (u < unchanged.size() && unchanged[u] == entry.path) {
        ++u;
        return;
      }
      result_.files.push_back({std::string(entry.path), FileChange::Written});
    });
    for (auto& path : unchanged) result_.files.push_back({std::move(path), FileChange::Unchanged});
    for (auto& path : removed) result_.files.push_back({std::move(path), FileChange::Removed});
  }

  const GenerateRequest& request_;
  GenerateResult result_;
  // Notes and warnings: to the request's on_message, else kept in the result.
  const MessageSink messages_ = [this](const Diagnostic& d) {
    if (request_.on_message) {
      request_.on_message(d);
    } else {
      result_.messages.push_back(d);
    }
  };
  unsigned jobs_ = 0;
  std::optional<FamilySetup> setup_;
  std::unique_ptr<CompanionWriter> companions_;
  // Declared before the spool, which may live in the staging area, so destroyed after it.
  std::unique_ptr<StagedOutput> staged_;
  std::unique_ptr<DriftCheck> drift_;
  std::optional<ManifestSpool> manifest_;
  ProblemLog problems_;
  std::vector<PluginFinding> refusals_;
  std::vector<Finding> findings_;
  std::set<std::string> warned_;  // the companions' warnings already said
  std::size_t companion_files_ = 0;
  TierSelection selection_;          // the tiers made (`--tier`), by default all
  std::size_t kept_configs_ = 0;     // entries kept from DIR's manifest (`--tier`)
  std::size_t kept_companions_ = 0;  // and their companions
  std::set<std::string> replaced_;   // check: the paths it lists for the tiers made
  std::function<void(const StagedOutput::Sink&)> write_manifest_;
};

}  // namespace

std::string_view to_string(FileChange change) noexcept {
  switch (change) {
    case FileChange::Written:
      return "written";
    case FileChange::Unchanged:
      return "unchanged";
    case FileChange::Removed:
      return "removed";
    case FileChange::Missing:
      return "missing";
    case FileChange::Changed:
      return "changed";
    case FileChange::Extra:
      return "extra";
  }
  return "";
}

GenerateResult generate(const GenerateRequest& request) {
  Generation generation(request);
  return generation.run();
}

std::string depfile_path_problem(std::string_view path, bool target) {
  // Make's and Ninja's (1.11 depfile_parser) readings agree on letters, digits, these, and
  // bytes of UTF-8 sequences; a space, '#', ':' and '$' have an escape both read.
  auto plain = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80 ||
           std::string_view("+,-./_@!~{}%").find(static_cast<char>(c)) != std::string_view::npos;
  };
  if (path.empty()) return "it is empty";
  if (path.front() == '~') return "it starts with '~', which Make reads as a home directory";
  if (path.back() == ':') return "it ends in ':', which Ninja cannot read escaped there";
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '%' && target) return "it holds '%', which makes Make read the rule as a pattern rule";
    if (plain(c) || c == ' ' || c == '#' || c == ':' || c == '$') continue;
    if (c == '\\') {
      if (i + 1 < path.size() && plain(static_cast<unsigned char>(path[i + 1]))) continue;
      return "it holds a '\\' before a character Make or Ninja would read it as escaping";
    }
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", c);
      return std::string("it holds a control character (") + code +
             "), which ends a name or the rule in Make and Ninja";
    }
    return std::string("it holds '") + static_cast<char>(c) +
           "', which Make or Ninja reads as syntax and cannot escape";
  }
  return "";
}

std::string depfile_text(const std::string& target, const GenerateResult& result) {
  // Make's rules, which Ninja reads too (as GCC writes them for -MD): a space, '#' and ':'
  // are escaped with '\', '$' is doubled; whatever else either reads as syntax is refused.
  auto escape = [](const std::string& path, bool is_target) {
    if (std::string problem = depfile_path_problem(path, is_target); !problem.empty()) {
      throw Error(ErrorKind::Usage, "--depfile: cannot write the path '" + path +
                                        "' into a depfile: " + problem +
                                        "; rename it, or leave out --depfile");
    }
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#' || c == ':') out += '\\';
      if (c == '$') out += '$';
      out += c;
    }
    return out;
  };
  std::string text = escape(target, true) + ":";
  for (const auto& input : result.inputs)
    text += " \\\n  " + escape(fs::absolute(input).lexically_normal().string(), false);
  std::vector<std::string> outputs;
  for (const auto& output : result.outputs)
    outputs.push_back(escape(fs::absolute(output).lexically_normal().string(), true));
  for (const auto& output : outputs) text += " \\\n  " + output;
  text += '\n';
  // As -MP writes them for headers: a prerequisite that is gone is remade by doing nothing.
  for (const auto& output : outputs) text += "\n" + output + ":\n";
  return text;
}

}  // namespace zf
