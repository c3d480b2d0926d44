// SPDX-License-Identifier: MIT
// KeyIndex: the keys of one schema section by name, laid out at build time (compile_schema
// writes the slots) and probed for every key of every config the validator walks.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace zf::deepspeed {

struct NodeFacts;

/// One slot of a KeyIndex: a name and its facts, or an empty slot (`facts` null).
struct KeySlot {
  std::string_view name;
  const NodeFacts* facts = nullptr;
};

/// The slot a name hashes to in a table of 2^(64 - shift) slots. The hash reads a name's
/// length and its first and last eight bytes, where the schema's names differ, instead of
/// every byte as std::hash does.
inline std::size_t key_slot(std::string_view name, int shift) {
  // Fixed-size loads, overlapping for short names; the shortest (< 4 bytes) byte by byte.
  std::uint64_t head = 0, tail = 0;
  if (name.size() >= 8) {
    std::memcpy(&head, name.data(), 8);
    std::memcpy(&tail, name.data() + name.size() - 8, 8);
  } else if (name.size() >= 4) {
    std::uint32_t first = 0, last = 0;
    std::memcpy(&first, name.data(), 4);
    std::memcpy(&last, name.data() + name.size() - 4, 4);
    head = first;
    tail = last;
  } else {
    for (char c : name) head = head << 8 | static_cast<unsigned char>(c);
  }
  // Fibonacci hashing: the multiplication carries every input bit into the top bits kept.
  std::uint64_t mixed = (head ^ name.size()) * 0x9E3779B97F4A7C15ULL ^ tail;
  return static_cast<std::size_t>((mixed * 0x9E3779B97F4A7C15ULL) >> shift);
}

/// Open addressing with linear probing, at most half full, over slots made once (by
/// key_slot_layout, at build time) and never changed: a lookup is a hash and a probe or two.
struct KeyIndex {
  std::span<const KeySlot> slots;    ///< a power of two of them (none for a section without keys)
  int shift = 64;                    ///< 64 - log2(slots.size())
  std::span<const KeySlot> ordered;  ///< the same keys in the schema's order

  /// The facts of `name`, or nullptr.
  const NodeFacts* find(std::string_view name) const {
    if (slots.empty()) return nullptr;
    for (std::size_t i = key_slot(name, shift);; i = (i + 1) & (slots.size() - 1)) {
      const KeySlot& slot = slots[i];
      if (slot.facts == nullptr || slot.name == name) return slot.facts;
    }
  }
};

/// Where each of `names` goes in a KeyIndex: `slot_of[i]` is the slot of `names[i]`, in a
/// table of `size` slots (a power of two, at least twice the names). Empty for no names.
struct KeySlotLayout {
  std::size_t size = 0;
  int shift = 64;
  std::vector<std::size_t> slot_of;
};

/// Lays `names` (distinct) out as KeyIndex::find probes them.
inline KeySlotLayout key_slot_layout(const std::vector<std::string_view>& names) {
  KeySlotLayout layout;
  if (names.empty()) return layout;
  layout.size = 8;
  while (layout.size < names.size() * 2) layout.size *= 2;
  layout.shift = 64 - std::countr_zero(layout.size);
  std::vector<bool> used(layout.size, false);
  for (std::string_view name : names) {
    std::size_t i = key_slot(name, layout.shift);
    while (used[i]) i = (i + 1) & (layout.size - 1);
    used[i] = true;
    layout.slot_of.push_back(i);
  }
  return layout;
}

}  // namespace zf::deepspeed
