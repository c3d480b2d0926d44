// SPDX-License-Identifier: MIT
// Fuzz target: family files, parsed and expanded into members (tiers come from the family's
// own tier list, with no values), with each of the first members' values made and checked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    zf::Family family =
        zf::parse_family(zf::parse_json_text(text, "family.json"), "presets/families/fuzz.json");
    std::vector<zf::Tier> tiers;
    for (const auto& ref : family.tiers) {
      tiers.push_back({ref.name, "presets/tiers/" + ref.name + ".json", {{"gpus_per_node", 8}}});
    }
    std::vector<zf::Layer> defaults = {{{zf::LayerKind::TemplateDefault, "defaults.json"},
                                        {{"stage", 2}},
                                        "defaults.json",
                                        "/values",
                                        ""}};
    std::vector<zf::Layer> overrides = {{{zf::LayerKind::Set, "--set precision=fp16"},
                                         {{"precision", "fp16"}},
                                         "--set precision=fp16",
                                         "",
                                         "/precision"}};
    const zf::Expansion expansion = zf::expand_family(std::move(family), std::move(tiers),
                                                      std::move(defaults), std::move(overrides));
    const zf::VariantValues all(expansion);
    for (std::size_t i = 0; i < std::min<std::size_t>(expansion.size(), 16); ++i) {
      const zf::Variant variant = expansion.variant(i);
      expansion.describe(variant);
      expansion.tier_name(variant);
      const zf::SourcedValues sourced = expansion.values(variant);
      zf::check_deepspeed_values(sourced.merged(), &sourced);
      auto layers = all.values(variant);
      zf::check_deepspeed_values(layers.top, layers.base->as_dict());
      layers.merged();
    }
  } catch (const zf::Error&) {
    // A malformed family is a zf::Error; anything else escapes.
  }
  return 0;
}
