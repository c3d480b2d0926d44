// SPDX-License-Identifier: MIT
// Families and the values contract, all of it: includes one header per concern. Prefer the
// narrow header for new code; this one stays for callers that include everything at once.
#pragma once

#include "zeroforge/deepspeed_contract.hpp"  // DeepSpeedFacts, check_deepspeed_values
#include "zeroforge/expansion.hpp"           // Variant, Expansion, VariantValues, expand_family
#include "zeroforge/family_file.hpp"         // Family, Axis, TierRef, PluginRef, load_family
#include "zeroforge/manifest.hpp"            // ManifestEntry, make_manifest, check_output_path
#include "zeroforge/output.hpp"              // sha256_hex, declared here before
#include "zeroforge/sourced_values.hpp"      // Layer, SourcedValues
#include "zeroforge/template_defaults.hpp"   // TemplateDefaults, TemplatePins, pinned values
#include "zeroforge/tiers.hpp"               // Tier, tier search path, check_tier_keys
