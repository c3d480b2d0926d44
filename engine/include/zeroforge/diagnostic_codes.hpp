// SPDX-License-Identifier: MIT
// The registry of diagnostic codes: every code a zf::Diagnostic (or a CodedError) carries is
// spelled here once, as a constant that the code which reports it uses, and listed in
// diagnostic_codes() with the severities it is reported at and what it means. docs/cli.md's
// table ("Diagnostic codes") is checked against this list both ways, and a test fails on a
// code spelled anywhere else in the product's sources (tests/diagnostic_codes_test.cpp).
#pragma once

#include <span>
#include <string_view>

#include "zeroforge/diagnostic.hpp"

namespace zf {

/// The codes, `AREA.NAME` (zf::Diagnostic::code). A published code keeps its meaning.
///
///     if (diagnostic.code == zf::codes::values_contract) ...
namespace codes {
inline constexpr char values_contract[] = "values.contract";
inline constexpr char values_pinned[] = "values.pinned";
inline constexpr char values_invalid[] = "values.invalid";
inline constexpr char values_not_object[] = "values.not-object";
inline constexpr char values_plugin_replaced[] = "values.plugin-replaced";
inline constexpr char values_unread[] = "values.unread";
inline constexpr char values_overridden_block[] = "values.overridden-block";
inline constexpr char family_invalid[] = "family.invalid";
inline constexpr char family_template_dir[] = "family.template-dir";
inline constexpr char tier_not_found[] = "tier.not-found";
inline constexpr char tier_shadowed[] = "tier.shadowed";
inline constexpr char tier_unknown_key[] = "tier.unknown-key";
inline constexpr char output_path[] = "output.path";
inline constexpr char output_shared_path[] = "output.shared-path";
inline constexpr char companion_values[] = "companion.values";
inline constexpr char companion_slurm_cpus[] = "companion.slurm-cpus";
inline constexpr char companion_no_contract[] = "companion.no-contract";
inline constexpr char generate_not_generated[] = "generate.not-generated";
inline constexpr char generate_variant[] = "generate.variant";
inline constexpr char report_variant[] = "report.variant";
inline constexpr char generate_waiting[] = "generate.waiting";
inline constexpr char generate_stale_staging[] = "generate.stale-staging";
inline constexpr char generate_check_staging[] = "generate.check-staging";
inline constexpr char generate_check_no_manifest[] = "generate.check-no-manifest";
inline constexpr char generate_unknown_tier[] = "generate.unknown-tier";
inline constexpr char generate_tier_manifest[] = "generate.tier-manifest";
inline constexpr char output_not_atomic[] = "output.not-atomic";
inline constexpr char report_inside_output[] = "report.inside-output";
inline constexpr char report_baseline[] = "report.baseline";
inline constexpr char report_not_reported[] = "report.not-reported";
inline constexpr char render_not_rendered[] = "render.not-rendered";
inline constexpr char migrate_not_migrated[] = "migrate.not-migrated";
inline constexpr char validate_finding[] = "validate.finding";
inline constexpr char plugin_refused[] = "plugin.refused";
inline constexpr char plugin_message[] = "plugin.message";
inline constexpr char plugin_skipped[] = "plugin.skipped";
inline constexpr char plugin_failed[] = "plugin.failed";
inline constexpr char template_syntax[] = "template.syntax";
inline constexpr char template_undefined[] = "template.undefined";
inline constexpr char template_render[] = "template.render";
inline constexpr char template_load[] = "template.load";
inline constexpr char json_syntax[] = "json.syntax";
inline constexpr char output_json[] = "output.json";
inline constexpr char import_limit[] = "import.limit";
inline constexpr char migrate_renamed[] = "migrate.renamed";
inline constexpr char migrate_integer[] = "migrate.integer";
inline constexpr char migrate_misplaced[] = "migrate.misplaced";
inline constexpr char migrate_dropped[] = "migrate.dropped";
inline constexpr char migrate_default[] = "migrate.default";
inline constexpr char migrate_version[] = "migrate.version";
inline constexpr char migrate_unknown_key[] = "migrate.unknown-key";
inline constexpr char migrate_no_equivalent[] = "migrate.no-equivalent";
inline constexpr char migrate_conflict[] = "migrate.conflict";
inline constexpr char migrate_invalid_source[] = "migrate.invalid-source";
inline constexpr char migrate_target_refuses[] = "migrate.target-refuses";
inline constexpr char io_failed[] = "io.failed";
inline constexpr char usage_invalid[] = "usage.invalid";
inline constexpr char probe_cuda_visible_ignored[] = "probe.cuda-visible-ignored";
inline constexpr char probe_cuda_visible_order[] = "probe.cuda-visible-order";
inline constexpr char probe_mixed_gpus[] = "probe.mixed-gpus";
inline constexpr char explain_choose_config[] = "explain.choose-config";
inline constexpr char explain_no_such_config[] = "explain.no-such-config";
}  // namespace codes

/// A bit of DiagnosticCodeInfo::severities.
constexpr unsigned severity_bit(Severity severity) noexcept {
  return 1U << static_cast<unsigned>(severity);
}

/// One registered code.
struct DiagnosticCodeInfo {
  std::string_view code;
  /// The severities it is reported at: severity_bit()s or'ed (validate.finding has all three).
  unsigned severities = 0;
  /// What it says, in one line (docs/cli.md has an example and the fix of each).
  std::string_view meaning;
};

/// Every code, in the order of docs/cli.md's table.
std::span<const DiagnosticCodeInfo> diagnostic_codes() noexcept;

/// The registered code `code`, or nullptr.
const DiagnosticCodeInfo* find_diagnostic_code(std::string_view code) noexcept;

}  // namespace zf
