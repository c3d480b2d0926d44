// SPDX-License-Identifier: MIT
// The table behind zf::diagnostic_codes(): one row per code of zeroforge/diagnostic_codes.hpp.
#include "zeroforge/diagnostic_codes.hpp"

#include <algorithm>
#include <array>

namespace zf {
namespace {

constexpr std::array kCodes{
    DiagnosticCodeInfo{
        codes::values_contract, severity_bit(Severity::Error),
        "a value the DeepSpeed values contract refuses (type, range, or a combination)"},
    DiagnosticCodeInfo{
        codes::values_pinned, severity_bit(Severity::Error),
        "a value the template pins (defaults.json /pinned) was set to something else"},
    DiagnosticCodeInfo{codes::values_invalid, severity_bit(Severity::Error),
                       "a values file, --set or tier that is not a well-formed values object"},
    DiagnosticCodeInfo{codes::values_not_object, severity_bit(Severity::Error),
                       "a values object handed to the library is not a JSON object"},
    DiagnosticCodeInfo{codes::values_plugin_replaced, severity_bit(Severity::Note),
                       "a plugin's values hook replaced a value the family file wrote"},
    DiagnosticCodeInfo{codes::values_unread, severity_bit(Severity::Warning),
                       "a value was set that the template never reads"},
    DiagnosticCodeInfo{codes::values_overridden_block, severity_bit(Severity::Warning),
                       "a value was set that only an overridden block reads"},
    DiagnosticCodeInfo{codes::family_invalid, severity_bit(Severity::Error),
                       "the family file itself is wrong: a missing, misspelt or mistyped field"},
    DiagnosticCodeInfo{codes::family_template_dir, severity_bit(Severity::Error),
                       "a family's template directory is missing or not a directory"},
    DiagnosticCodeInfo{codes::tier_not_found, severity_bit(Severity::Error),
                       "a tier name or file found nowhere on the tier search path"},
    DiagnosticCodeInfo{codes::tier_shadowed, severity_bit(Severity::Warning),
                       "a tier name that an earlier directory of the tier search path shadows"},
    DiagnosticCodeInfo{codes::tier_unknown_key,
                       severity_bit(Severity::Error) | severity_bit(Severity::Warning),
                       "a tier key that is not in the tier format"},
    DiagnosticCodeInfo{
        codes::output_path, severity_bit(Severity::Error),
        "an output path that leaves the output directory or has an empty, '.' or '..' segment"},
    DiagnosticCodeInfo{codes::output_shared_path, severity_bit(Severity::Error),
                       "two variants of a family write the same output path"},
    DiagnosticCodeInfo{codes::companion_values, severity_bit(Severity::Error),
                       "a launch value the companions cannot write safely"},
    DiagnosticCodeInfo{codes::companion_slurm_cpus, severity_bit(Severity::Warning),
                       "a SLURM job that gives its GPU ranks fewer than 2 CPUs each"},
    DiagnosticCodeInfo{codes::companion_no_contract, severity_bit(Severity::Error),
                       "companions asked of a template without the DeepSpeed values contract"},
    DiagnosticCodeInfo{codes::generate_not_generated, severity_bit(Severity::Error),
                       "the line after the problems that stopped generate: nothing was written"},
    DiagnosticCodeInfo{codes::generate_variant, severity_bit(Severity::Note),
                       "the variant a template error was found in"},
    DiagnosticCodeInfo{codes::report_variant, severity_bit(Severity::Note),
                       "the variant a template error was found in while reporting"},
    DiagnosticCodeInfo{codes::generate_waiting, severity_bit(Severity::Note),
                       "another generate holds the lock on the output's parent directory"},
    DiagnosticCodeInfo{codes::generate_stale_staging, severity_bit(Severity::Note),
                       "generate removed staging directories that killed runs left"},
    DiagnosticCodeInfo{codes::generate_check_staging, severity_bit(Severity::Note),
                       "generate --check found the staging directory of a killed run"},
    DiagnosticCodeInfo{codes::generate_check_no_manifest, severity_bit(Severity::Note),
                       "generate --check into a directory without manifest.json"},
    DiagnosticCodeInfo{codes::generate_unknown_tier, severity_bit(Severity::Error),
                       "a --tier that is not one of the family's tiers"},
    DiagnosticCodeInfo{codes::generate_tier_manifest, severity_bit(Severity::Error),
                       "generate --tier into a directory whose manifest is not this family's"},
    DiagnosticCodeInfo{codes::output_not_atomic, severity_bit(Severity::Warning),
                       "an output directory that cannot be replaced in one rename"},
    DiagnosticCodeInfo{codes::report_inside_output, severity_bit(Severity::Note),
                       "a report written inside the output directory it reports on"},
    DiagnosticCodeInfo{codes::report_baseline, severity_bit(Severity::Warning),
                       "a previous manifest that cannot be read, so no changes are marked"},
    DiagnosticCodeInfo{codes::report_not_reported, severity_bit(Severity::Error),
                       "the validator found errors in the configs, so no report was written"},
    DiagnosticCodeInfo{codes::render_not_rendered, severity_bit(Severity::Error),
                       "the line after the refusals that stopped render: nothing was written"},
    DiagnosticCodeInfo{codes::migrate_not_migrated, severity_bit(Severity::Error),
                       "the line after the refusals that stopped migrate: nothing was written"},
    DiagnosticCodeInfo{codes::validate_finding,
                       severity_bit(Severity::Error) | severity_bit(Severity::Warning) |
                           severity_bit(Severity::Note),
                       "a validator finding in a generated config (the rule id in brackets)"},
    DiagnosticCodeInfo{codes::plugin_refused, severity_bit(Severity::Error),
                       "a plugin's values hook refused the input"},
    DiagnosticCodeInfo{codes::plugin_message,
                       severity_bit(Severity::Warning) | severity_bit(Severity::Error),
                       "a message a plugin logged"},
    DiagnosticCodeInfo{codes::plugin_skipped, severity_bit(Severity::Warning),
                       "a plugin file in a plugin directory that could not be loaded"},
    DiagnosticCodeInfo{codes::plugin_failed, severity_bit(Severity::Error),
                       "a plugin that could not be loaded or failed"},
    DiagnosticCodeInfo{codes::template_syntax, severity_bit(Severity::Error),
                       "a template that does not parse"},
    DiagnosticCodeInfo{codes::template_undefined, severity_bit(Severity::Error),
                       "a template that uses an undefined value"},
    DiagnosticCodeInfo{codes::template_render, severity_bit(Severity::Error),
                       "a template that fails while rendering"},
    DiagnosticCodeInfo{codes::template_load, severity_bit(Severity::Error),
                       "a template that cannot be found or read"},
    DiagnosticCodeInfo{codes::json_syntax, severity_bit(Severity::Error),
                       "a JSON file zeroforge reads that is not valid JSON"},
    DiagnosticCodeInfo{codes::output_json, severity_bit(Severity::Error),
                       "a rendered config that is not valid JSON"},
    DiagnosticCodeInfo{
        codes::import_limit, severity_bit(Severity::Error),
        "an import input that would make a family deeper or larger than generate reads"},
    DiagnosticCodeInfo{codes::migrate_renamed, severity_bit(Severity::Note),
                       "a key DeepSpeed renamed, or a deprecated key, written as its replacement"},
    DiagnosticCodeInfo{codes::migrate_integer, severity_bit(Severity::Note),
                       "a float the target refuses where it needs an integer, written as the "
                       "integer the source used"},
    DiagnosticCodeInfo{
        codes::migrate_misplaced, severity_bit(Severity::Note),
        "a key the source ignored in a section the target validates strictly, removed"},
    DiagnosticCodeInfo{codes::migrate_dropped, severity_bit(Severity::Note),
                       "with --drop-unknown: a key the target does not know, removed"},
    DiagnosticCodeInfo{
        codes::migrate_default, severity_bit(Severity::Note),
        "a default that differs between the releases, written out as the source had it"},
    DiagnosticCodeInfo{codes::migrate_version, severity_bit(Severity::Note),
                       "a family's pinned release, moved to the target"},
    DiagnosticCodeInfo{codes::migrate_unknown_key, severity_bit(Severity::Error),
                       "a key the target release does not know, with no equivalent"},
    DiagnosticCodeInfo{codes::migrate_no_equivalent, severity_bit(Severity::Error),
                       "a value the target release reads differently, with no equivalent"},
    DiagnosticCodeInfo{codes::migrate_conflict, severity_bit(Severity::Error),
                       "two spellings of one key that the target release reads one of"},
    DiagnosticCodeInfo{codes::migrate_invalid_source, severity_bit(Severity::Error),
                       "no known release accepts the input to migrate"},
    DiagnosticCodeInfo{codes::migrate_target_refuses, severity_bit(Severity::Error),
                       "the target release still refuses the config after migrating it"},
    DiagnosticCodeInfo{codes::io_failed, severity_bit(Severity::Error),
                       "a file that cannot be read or written"},
    DiagnosticCodeInfo{codes::usage_invalid, severity_bit(Severity::Error),
                       "a command line that is not valid"},
    DiagnosticCodeInfo{codes::probe_cuda_visible_ignored, severity_bit(Severity::Warning),
                       "CUDA_VISIBLE_DEVICES names a GPU this machine lacks"},
    DiagnosticCodeInfo{codes::probe_cuda_visible_order, severity_bit(Severity::Warning),
                       "CUDA_VISIBLE_DEVICES indices on a machine whose GPUs differ"},
    DiagnosticCodeInfo{codes::probe_mixed_gpus, severity_bit(Severity::Warning),
                       "a machine that mixes GPU models"},
    DiagnosticCodeInfo{codes::explain_choose_config, severity_bit(Severity::Error),
                       "explain of a family with several configs and no --config"},
    DiagnosticCodeInfo{codes::explain_no_such_config, severity_bit(Severity::Error),
                       "explain --config names no config of the family"},
};

}  // namespace

std::span<const DiagnosticCodeInfo> diagnostic_codes() noexcept { return kCodes; }

const DiagnosticCodeInfo* find_diagnostic_code(std::string_view code) noexcept {
  const auto* found =
      std::find_if(kCodes.begin(), kCodes.end(),
                   [code](const DiagnosticCodeInfo& info) { return info.code == code; });
  return found == kCodes.end() ? nullptr : &*found;
}

}  // namespace zf
