// SPDX-License-Identifier: MIT
// The family an import writes: what every member's values agree on becomes the family's
// `values`, the rest one `include` entry per config, named by the output path it regenerates.
#pragma once

#include <string>
#include <vector>

#include "import/config_mapping.hpp"

namespace zf::importer {

/// One member: its output path (relative to generate's DIR) and its fitted values.
struct MemberValues {
  std::string output;
  Json values;
};

/// What the family file says besides its members.
struct FamilyHead {
  std::string name;
  std::string description;
  std::string template_name;
  std::string tier;  ///< a tier name or a path relative to the family file; "" for none
};

/// The family: `values` holds every leaf (a scalar, array, null or empty object, at any depth,
/// `extra` included) that all members have with the same value; each member's include entry
/// holds `imported_from` (its output path, which `output` renders) and its other leaves.
/// Layered as generate layers them, family values < include entry, each member's values come
/// back exactly.
Json build_family(const FamilyHead& head, const std::vector<MemberValues>& members);

/// The number of leaves in a values object (counted as build_family splits them).
std::size_t count_leaves(const Json& values);

}  // namespace zf::importer
