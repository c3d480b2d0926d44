// SPDX-License-Identifier: MIT
// A tier file's keys: what the values contract knows or the template reads; anything else is a
// typo that would otherwise be carried silently (`gpu_mem_gib` left gpu_memory_gib unset).
#include <algorithm>

#include "deepspeed/value_names.hpp"
#include "text_helpers.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/tiers.hpp"
#include "zeroforge/values.hpp"

namespace zf {

std::vector<Error> check_tier_keys(const nlohmann::ordered_json& tier, const std::string& file,
                                   const std::vector<std::string>& template_reads) {
  std::vector<Error> problems;
  if (!tier.is_object()) return problems;  // load_values_file refuses it first
  const auto known = detail::contract_value_names();
  for (const auto& [key, value] : tier.items()) {
    const std::string pointer = "/" + escape_pointer_segment(key);
    if (key == "tier") {
      problems.emplace_back(
          ErrorKind::Values,
          "'tier' is reserved: a tier is named after its file ('" + tier_name_of(file) + "')", file,
          pointer);
      continue;
    }
    if (std::find(known.begin(), known.end(), key) != known.end() ||
        std::find(template_reads.begin(), template_reads.end(), key) != template_reads.end()) {
      continue;
    }
    std::vector<std::string_view> candidates;
    for (std::string_view name : known) {
      if (name != "tier") candidates.push_back(name);
    }
    for (const auto& name : template_reads) candidates.push_back(name);
    const std::string guess = detail::nearest_name(key, candidates);
    problems.emplace_back(
        ErrorKind::Values,
        "unknown key '" + key + "' in a tier" +
            (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
            " (a tier holds the cluster facts and values of docs/tiers.md, and values its "
            "template reads)",
        file, pointer);
  }
  return problems;
}

}  // namespace zf
