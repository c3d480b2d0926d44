// SPDX-License-Identifier: MIT
// Splitting imported members into shared family values and include entries (see
// family_builder.hpp).
#include "import/family_builder.hpp"

#include "json_members.hpp"

namespace zf::importer {
namespace {

const Json kNothing;  // what a member without the object at a path has there

// A leaf: not an object, or an empty one (merged as a whole by the layering).
bool is_leaf(const Json& value) { return !value.is_object() || value.empty(); }

// Exactly as written (nlohmann's == calls 1 and 1.0 equal), so a member's 1.0 stays 1.0 and a
// value the fit checked as an integer stays one.
// `a_text` is a.dump() for an array or object (compared as text, once per member).
bool same_as_written(const Json& a, const std::string& a_text, const Json& b) {
  if (a.is_number() && b.is_number()) {
    // Integers (signed or not) by value, as their text; a float only as its own text.
    return a.is_number_float() || b.is_number_float() ? a.dump() == b.dump() : a == b;
  }
  if (a.type() != b.type()) return false;
  return a.is_structured() ? b.dump() == a_text : a == b;
}

// The leaves below `first` (the first member's object at some path) that every member has
// alike, as an object in the first member's order: `others` are the other members' objects at
// the same path (nullptr where a member has none). Each member is visited once per path, with
// its keys indexed, so this is linear in the members' size (a look-up per member per leaf of
// ordered_json's own find was quadratic).
Json shared_below(const Json& first, const std::vector<const Json*>& others) {
  std::vector<detail::MemberIndex> indexes;
  indexes.reserve(others.size());
  for (const Json* other : others) indexes.emplace_back(other ? *other : kNothing, first.size());
  Json out = Json::object();
  detail::MemberIndex out_index(out, 0);
  std::vector<const Json*> below(others.size());
  for (const auto& [key, value] : first.items()) {
    bool present_everywhere = true;
    for (std::size_t m = 0; m < others.size(); ++m) {
      below[m] = others[m] != nullptr ? indexes[m].find(key) : nullptr;
      if (below[m] == nullptr) present_everywhere = false;
    }
    if (is_leaf(value)) {
      if (!present_everywhere) continue;
      const std::string text = value.is_structured() ? value.dump() : std::string();
      bool everyone = true;
      for (const Json* other : below) {
        if (!same_as_written(value, text, *other)) {
          everyone = false;
          break;
        }
      }
      if (everyone) detail::append_member(out, out_index, key, value);
    } else {
      for (const Json*& other : below) {
        if (other != nullptr && !other->is_object()) other = nullptr;
      }
      Json inside = shared_below(value, below);
      if (!inside.empty()) detail::append_member(out, out_index, key, std::move(inside));
    }
  }
  return out;
}

// `values` (one member's) less the leaves in `shared`, in the member's order.
Json own_below(const Json& values, const Json* shared) {
  const detail::MemberIndex index(shared ? *shared : kNothing, values.size());
  Json out = Json::object();
  detail::MemberIndex out_index(out, 0);
  for (const auto& [key, value] : values.items()) {
    const Json* there = shared != nullptr ? index.find(key) : nullptr;
    if (is_leaf(value)) {
      if (there == nullptr) detail::append_member(out, out_index, key, value);
    } else {
      Json inside = own_below(value, there != nullptr && there->is_object() ? there : nullptr);
      if (!inside.empty()) detail::append_member(out, out_index, key, std::move(inside));
    }
  }
  return out;
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
  if (!members.empty()) {
    std::vector<const Json*> others;
    for (std::size_t m = 1; m < members.size(); ++m) others.push_back(&members[m].values);
    shared = shared_below(members.front().values, others);
  }
  Json include = Json::array();
  for (const MemberValues& member : members) {
    Json entry = Json::object();
    entry["imported_from"] = member.output;
    Json own = own_below(member.values, &shared);
    for (auto& [key, value] : own.items()) entry[key] = std::move(value);
    include.push_back(std::move(entry));
  }
  family["values"] = std::move(shared);
  family["include"] = std::move(include);
  family["output"] = "{{ imported_from }}";
  return family;
}

}  // namespace zf::importer
