// SPDX-License-Identifier: MIT
// How `generate` makes one config: prepared in variant order on the main thread (values,
// contract, output path: ConfigPreparer), then made on any thread (rendered, validated,
// written: make_config). Results stay in the job and are taken in variant order.
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <vector>

#include "drift_check.hpp"
#include "family_inputs.hpp"
#include "output_dir.hpp"
#include "problem_log.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/plugin_host.hpp"
#include "zeroforge/template.hpp"
#include "zeroforge/validator.hpp"

namespace zf::cli {

/// One config on its way out.
struct ConfigJob {
  std::size_t index = 0;  ///< the variant
  Value values;           ///< what the template renders
  ValidateOptions validate;
  ManifestEntry entry;             ///< path, tier, variant and facts known before rendering
  nlohmann::ordered_json context;  ///< with plugins: what their hooks are told about the config
  nlohmann::ordered_json merged;   ///< with plugins: the values the output hooks see
  // Results:
  std::vector<Finding> findings;
  std::string entry_text;  ///< the manifest entry; empty when the validator refused the config
  DriftStatus drift = DriftStatus::Same;  ///< with --check: how DIR's file compares
  std::exception_ptr failure;             ///< a RenderFailure, or whatever else went wrong
};

/// A template error while making one config (rendering it, or rendering its output path):
/// reported with the variant that hit it.
struct RenderFailure {
  Error error;
  std::size_t variant;
  const char* doing;  ///< "rendering" or "naming the file of"
};

/// Walks a family's variants in order and prepares a job for each one that passes the values
/// contract and the plugins' values hooks. Values are patched from one variant to the next
/// (VariantValues), so this runs on one thread.
class ConfigPreparer {
 public:
  /// Value problems go to `problems`, plugins' refusals to `refusals`; once there is either,
  /// variants are still checked but no more jobs are made.
  ConfigPreparer(const FamilySetup& setup, ProblemLog& problems,
                 std::vector<PluginFinding>& refusals);
  /// Replaces `out` with the jobs of the next variants, at most `limit`; empty at the end.
  /// Throws RenderFailure when the output pattern fails other than with a bad path.
  void next(std::vector<ConfigJob>& out, std::size_t limit);

 private:
  const FamilySetup& setup_;
  const Expansion& expansion_;
  std::shared_ptr<const Template> output_path_;
  ProblemLog& problems_;
  std::vector<PluginFinding>& refusals_;
  VariantValues current_;
  bool deepspeed_;
  std::size_t index_ = 0;
};

/// Where and how configs are made; shared by every thread.
struct ConfigMaker {
  const Template& tpl;
  PluginHost& plugins;             ///< output hooks run only when it is not empty (one thread then)
  bool validate = true;            ///< validate DeepSpeed configs (generate --no-validate: false)
  bool deepspeed = false;          ///< the template has the DeepSpeed values contract
  std::string finding_prefix;      ///< `DIR/`: how findings name a config
  StagedOutput* staged = nullptr;  ///< one of these two receives the text
  DriftCheck* drift = nullptr;

  /// Renders, runs output hooks, validates, and writes (or compares) one config, filling the
  /// job's results. Throws RenderFailure for a template error.
  void make(ConfigJob& job) const;
};

}  // namespace zf::cli
