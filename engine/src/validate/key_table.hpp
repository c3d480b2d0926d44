// SPDX-License-Identifier: MIT
// KeyTable: the keys of one schema section by name, filled once when the schema is compiled
// and probed for every key of every config the validator walks.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace zf::validate {

/// Open addressing with linear probing, at most half full. The hash reads a name's length and
/// its first and last eight bytes, where the schema's names differ, instead of every byte as
/// std::hash does: a lookup costs about half of an unordered_map's. The names are borrowed and
/// must outlive the table; `Value` is a pointer, nullptr marking an empty slot.
template <typename Value>
class KeyTable {
 public:
  /// Adds `name`, which must not be in the table yet, with a non-null `value`.
  void insert(std::string_view name, Value value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(name, value);
    ++count_;
  }

  /// The value of `name`, or nullptr.
  Value find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = index(name);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (slot.value == nullptr || slot.name == name) return slot.value;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    Value value = nullptr;
  };

  std::size_t index(std::string_view name) const {
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
    return static_cast<std::size_t>((mixed * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  void place(std::string_view name, Value value) {
    std::size_t i = index(name);
    while (slots_[i].value != nullptr) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = Slot{name, value};
  }

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 8 : slots_.size() * 2);
    old.swap(slots_);
    shift_ = 64 - std::countr_zero(slots_.size());
    for (const Slot& slot : old) {
      if (slot.value != nullptr) place(slot.name, slot.value);
    }
  }

  std::vector<Slot> slots_;  // a power of two in size
  int shift_ = 64;           // 64 - log2(slots_.size()): the hash's top bits index a slot
  std::size_t count_ = 0;
};

}  // namespace zf::validate
