// SPDX-License-Identifier: MIT
// Scopes and slots: what the resolver (resolver.cpp) works out once per template so that the
// renderer reads and writes most variables by index instead of searching frames by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zf::detail {

/// A name's bit in a 64-bit name mask (Scope::mask, Frame's masks): a frame whose mask lacks
/// the bit cannot hold the name, so a search by name skips it without comparing anything.
constexpr std::uint64_t name_bit(std::uint64_t hash) noexcept {
  return std::uint64_t{1} << (hash >> 58);
}

/// No slot: the scope does not assign the name (or has no slot left for it).
constexpr std::uint16_t kNoSlot = 0xFFFF;

/// The variables one scope assigns: a template's top level, a for body, a macro, a block, a
/// `with`, a set or filter block. Each gets a slot in the scope's Frame, in the order the
/// resolver meets them (a macro's parameters first, in order).
struct Scope {
  /// Slots a frame can index (a frame's "assigned" bits fit one word). A scope that assigns
  /// more names keeps the others by name.
  static constexpr std::size_t kMaxSlots = 64;

  /// Where the scope's frame is attached. A template's top level and a block are attached at
  /// render time (to an includer's frame, the template level, ...), so the scopes of their
  /// template around them end there; any other scope's frame is attached to the frame of the
  /// scope around it.
  enum class Kind : std::uint8_t { Nested, Block, Template };

  std::vector<std::string_view> names;  // slot i's name; views into the tree's nodes
  std::vector<std::uint64_t> hashes;    // ValueDict::hash(names[i])
  std::uint64_t mask = 0;               // name_bit of every slot's name
  /// Bit i: until slot i is assigned, its name reads as undefined rather than as the name
  /// outside the scope. Jinja2 (idtracking.py) starts a variable as `missing` when its scope
  /// assigns it before reading it and no scope of the template around it knows the name: a
  /// macro called before a later top-level `set x` does not see the values' `x`.
  std::uint64_t unset_is_undefined = 0;
  Kind kind = Kind::Nested;

  bool starts_undefined(std::uint16_t slot) const noexcept {
    return (unset_is_undefined >> slot) & 1;
  }

  /// The slot of `name`, or kNoSlot.
  std::uint16_t slot_of(std::string_view name, std::uint64_t hash) const {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (hashes[i] == hash && names[i] == name) return static_cast<std::uint16_t>(i);
    }
    return kNoSlot;
  }
};

/// Where the resolver found a name, counted from the frame of the scope the name is used in:
/// `hops` frames out is the frame of `scope`, and the name is in `slot` there. A name that no
/// enclosing scope of its template assigns stops where the template stops knowing its frames
/// (its top level, or a block, whose parent frame is picked at render time) with kNoSlot: from
/// there it is looked for by name, as is anything whose frame turns out not to be laid out
/// for `scope`.
struct Resolved {
  const Scope* scope = nullptr;
  std::uint16_t hops = 0;
  std::uint16_t slot = kNoSlot;
};

/// A name a statement assigns (`set`, `for`, `import ... as`, ...): `where.hops` is 0.
struct Target {
  std::string name;
  std::uint64_t hash = 0;  // ValueDict::hash(name), computed when parsing
  Resolved where;
};

}  // namespace zf::detail
