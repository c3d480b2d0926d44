// SPDX-License-Identifier: MIT
// Constant-time key lookup in an nlohmann::ordered_json object. ordered_json keeps its members
// in a vector and finds a key by comparing it with each member in turn, so find, contains and
// operator[] cost the object's size, and code that visits every key of a large object (a
// config with a million keys) with them is quadratic. A MemberIndex is a hash table of member
// positions beside the object: it stores positions, not pointers, so the object's vector may
// grow under it as long as members are only appended through it (append_member).
//
//     detail::MemberIndex index(target);
//     for (const auto& [key, value] : patch.items()) {
//       if (Json* member = index.find(key)) *member = value;
//       else detail::append_member(target, index, key, value);
//     }
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zf::detail {

class MemberIndex {
 public:
  using Json = nlohmann::ordered_json;
  using Members = std::vector<std::pair<const std::string, Json>>;

  /// Indexes `object` (a JSON object; anything else indexes as empty). Objects of up to
  /// kLinear members are searched member by member, as ordered_json does. An index of a const
  /// object hands out members that the caller must not change.
  /// `lookups`: about how many keys the caller will look up; a few lookups in a large object
  /// are cheaper one by one than hashing all its keys.
  explicit MemberIndex(const Json& object, std::size_t lookups = SIZE_MAX)
      : members_(object.is_object()
                     ? &const_cast<Json&>(object).get_ref<Json::object_t&>()  // see above
                     : nullptr),
        hashed_(lookups > kLinear) {
    if (members_ != nullptr && hashed_ && members_->size() > kLinear) rebuild(members_->size());
  }

  /// The member named `key`, or nullptr.
  Json* find(std::string_view key) const {
    if (members_ == nullptr) return nullptr;
    Members& members = *members_;
    if (slots_.empty()) {
      for (auto& member : members) {
        if (member.first == key) return &member.second;
      }
      return nullptr;
    }
    for (std::size_t slot = hash(key) & mask();; slot = (slot + 1) & mask()) {
      const std::uint32_t at = slots_[slot];
      if (at == 0) return nullptr;
      if (members[at - 1].first == key) return &members[at - 1].second;
    }
  }

  /// Records the member just appended at the end of the object.
  void appended() {
    const std::size_t n = members_->size();
    if (slots_.empty()) {
      if (hashed_ && n > kLinear) rebuild(n);
      return;
    }
    if (2 * n > slots_.size()) {
      rebuild(n);
      return;
    }
    insert(n - 1);
  }

  static constexpr std::size_t kLinear = 8;

 private:
  static std::size_t hash(std::string_view key) { return std::hash<std::string_view>{}(key); }
  std::size_t mask() const { return slots_.size() - 1; }

  void rebuild(std::size_t n) {
    std::size_t size = 16;
    while (size < 2 * n + 2) size *= 2;
    slots_.assign(size, 0);
    for (std::size_t i = 0; i < members_->size(); ++i) insert(i);
  }

  void insert(std::size_t position) {
    std::size_t slot = hash((*members_)[position].first) & mask();
    while (slots_[slot] != 0) slot = (slot + 1) & mask();
    slots_[slot] = static_cast<std::uint32_t>(position + 1);
  }

  Members* members_;
  bool hashed_;
  std::vector<std::uint32_t> slots_;  // member position + 1; 0 is an empty slot
};

/// Appends `key` (which `object` must not have yet) with `value` to `object` and to `index`,
/// without ordered_json's search for the key; returns the new member. `object` becomes an
/// object if it is null.
inline nlohmann::ordered_json& append_member(nlohmann::ordered_json& object, MemberIndex& index,
                                             std::string key, nlohmann::ordered_json value) {
  auto& members =
      static_cast<MemberIndex::Members&>(object.get_ref<nlohmann::ordered_json::object_t&>());
  members.emplace_back(std::move(key), std::move(value));
  index.appended();
  return members.back().second;
}

}  // namespace zf::detail
