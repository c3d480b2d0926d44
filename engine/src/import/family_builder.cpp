// SPDX-License-Identifier: MIT
// Splitting imported members into shared family values and include entries (see
// family_builder.hpp).
#include "import/family_builder.hpp"

namespace zf::importer {
namespace {

// A leaf: not an object, or an empty one (merged as a whole by the layering).
bool is_leaf(const Json& value) { return !value.is_object() || value.empty(); }

// `value` at `path` in `root`, or null when absent.
const Json* find(const Json& root, const Path& path) {
  const Json* node = &root;
  for (const auto& key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void put(Json& root, const Path& path, const Json& value) {
  Json* node = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) node = &(*node)[path[i]];
  (*node)[path.back()] = value;
}

// Splits `values` (one member's) at `path` into `shared` (leaves every member has alike) and
// `own` (the rest), walking the first member's order.
void split(const Json& values, Path& path, const std::vector<MemberValues>& members, Json& shared,
           Json& own) {
  for (const auto& [key, value] : values.items()) {
    path.push_back(key);
    if (is_leaf(value)) {
      bool everyone = true;
      for (const MemberValues& member : members) {
        const Json* other = find(member.values, path);
        // Exactly as written (nlohmann's == calls 1 and 1.0 equal), so a member's 1.0 stays
        // 1.0 and a value the fit checked as an integer stays one.
        if (other == nullptr || other->dump() != value.dump()) {
          everyone = false;
          break;
        }
      }
      put(everyone ? shared : own, path, value);
    } else {
      split(value, path, members, shared, own);
    }
    path.pop_back();
  }
}

void count(const Json& node, std::size_t& n) {
  if (is_leaf(node)) {
    ++n;
    return;
  }
  for (const auto& [key, value] : node.items()) count(value, n);
}

}  // namespace

std::size_t count_leaves(const Json& values) {
  std::size_t n = 0;
  for (const auto& [key, value] : values.items()) count(value, n);
  return n;
}

Json build_family(const FamilyHead& head, const std::vector<MemberValues>& members) {
  Json family = Json::object();
  family["name"] = head.name;
  family["description"] = head.description;
  family["template"] = head.template_name;
  if (!head.tier.empty()) family["tiers"] = Json::array({head.tier});
  Json shared = Json::object();
  Json include = Json::array();
  for (const MemberValues& member : members) {
    Json own = Json::object();
    Path path;
    Json member_shared = Json::object();
    split(member.values, path, members, member_shared, own);
    if (shared.empty()) shared = std::move(member_shared);
    Json entry = Json::object();
    entry["imported_from"] = member.output;
    for (auto& [key, value] : own.items()) entry[key] = value;
    include.push_back(std::move(entry));
  }
  family["values"] = std::move(shared);
  family["include"] = std::move(include);
  family["output"] = "{{ imported_from }}";
  return family;
}

}  // namespace zf::importer
