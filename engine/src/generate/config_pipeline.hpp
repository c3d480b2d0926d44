// SPDX-License-Identifier: MIT
// How `generate` makes one config, on any thread: the variant's values are layered and checked,
// its file is named, and it is rendered, validated and written (or compared). Results stay in
// the job and are taken in variant order.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "companions.hpp"
#include "drift_check.hpp"
#include "family_inputs.hpp"
#include "output_dir.hpp"
#include "prepare/prepare_config.hpp"
#include "zeroforge/deepspeed_contract.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/expansion.hpp"
#include "zeroforge/generate.hpp"
#include "zeroforge/manifest.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/validator.hpp"

namespace zf::pipeline {

/// One config on its way out: the variant, and what became of it.
struct ConfigJob {
  std::size_t index = 0;  ///< the variant
  // Results:
  /// What the pinned values, the values contract or a companion refused, or a bad output
  /// path (`values.pinned`, `values.contract`, `companion.values`, `output.path`); nothing
  /// was made.
  std::vector<Diagnostic> problems;
  /// What plugins' values hooks refused (e.g. a model that does not fit); nothing was made.
  std::vector<PluginFinding> refusals;
  /// What its companions warn of (`companion.slurm-cpus`), placed where the value was written.
  std::vector<Diagnostic> warnings;
  bool made = false;  ///< rendered, and written or compared
  std::string path;   ///< relative to DIR, once named
  std::vector<Finding> findings;
  std::string entry_text;  ///< the manifest entry; empty when the validator refused the config
  DriftStatus drift = DriftStatus::Same;  ///< with --check: how DIR's file compares
  /// Its companion files (relative to DIR) and how each compares (Same when written).
  std::vector<std::pair<std::string, DriftStatus>> companions;
  std::exception_ptr failure;  ///< a RenderFailure, or whatever else went wrong
};

/// A template error while making one config (rendering it, or rendering its output path):
/// reported with the variant that hit it.
struct RenderFailure {
  Error error;
  std::size_t variant;
  const char* doing;  ///< "rendering" or "naming the file of"
};

/// What a config is made from and where it goes; one is shared by every thread.
struct ConfigTarget {
  Validation validation = Validation::ByContract;  ///< which configs the validator checks
  std::string finding_prefix;                      ///< `DIR/`: how findings name a config
  StagedOutput* staged = nullptr;                  ///< one of these two receives the text,
                                                   ///< or neither in a dry run
  DriftCheck* drift = nullptr;
  const CompanionWriter* companions = nullptr;  ///< writes each config's companions, if any
};

/// What a config's template renders: `values`, over `globals` when the variant's values are
/// kept in two layers (the tier's, shared, under the variant's own).
struct RenderValues {
  Value values;
  const Value* globals = nullptr;
};

/// Makes the configs of one family. `make` may run on several threads at once, except with
/// plugins, whose hooks are not promised to be thread-safe.
class ConfigMaker {
 public:
  /// `setup` must outlive the maker.
  ConfigMaker(const FamilySetup& setup, ConfigTarget target);

  /// Makes the config of variant `job.index`, filling the job's results. Throws
  /// RenderFailure for a template error.
  void make(ConfigJob& job) const;

 private:
  // A variant's values, prepared and named.
  struct Member {
    ManifestEntry entry;             // path, tier, facts and the hooks' manifest records so far
    ValidateOptions validate;        // what the rendered config is validated with
    RenderValues values;             // what the template renders
    nlohmann::ordered_json merged;   // with plugins: the values the output hooks get
    nlohmann::ordered_json context;  // with plugins: the config's description for hooks
    DeepSpeedFacts facts;
  };
  // The variant's values prepared (prepare/prepare_config.hpp) and named, or nothing with the
  // job's problems or refusals filled.
  std::optional<Member> prepare(ConfigJob& job, const Variant& variant) const;
  // Plans, renders and writes (or compares) the companions of a made config; false with the
  // job's problems filled when its values cannot make them.
  bool make_companions(ConfigJob& job, const Variant& variant, Member& member,
                       const nlohmann::ordered_json& config) const;
  // The hooks' context of a variant (what generate tells plugins about the config).
  nlohmann::ordered_json hook_context(const Variant& variant) const;
  // Each pinned-value and contract problem of `variant`, placed at the file and pointer where its
  // value was written (the values are layered again, with provenance: only for a refused variant).
  std::vector<Diagnostic> problems_with_sources(const Variant& variant) const;

  const FamilySetup& setup_;
  const Expansion& expansion_;
  const VariantValues variant_values_;
  std::shared_ptr<const Template> output_path_;
  ConfigTarget target_;
  prepare::Checks checks_;  // the template's pins and contract, and the plugins
};

}  // namespace zf::pipeline
