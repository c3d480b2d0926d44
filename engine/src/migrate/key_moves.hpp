// SPDX-License-Identifier: MIT
// The keys DeepSpeed renamed, replaced or stopped reading between the releases zeroforge knows,
// as one table (key_moves.cpp): what `migrate` rewrites when a config crosses the release that
// changed them. Each entry says where in DeepSpeed's source the change is.
#pragma once

#include <span>
#include <string_view>

namespace zf::migrate {

/// How the old key's value becomes the new key's.
enum class ValueMap {
  Same,             ///< carried over as written
  CpuDeviceIfTrue,  ///< true: `{"device": "cpu"}`; false: no offload, the key is removed
  NoEffect,         ///< DeepSpeed only warns about the key: removed
};

/// One key whose name or place changed. Both pointers share their parent section.
struct KeyMove {
  std::string_view from;  ///< the old key (a JSON pointer into a config)
  std::string_view to;    ///< the new key; empty for ValueMap::NoEffect
  /// The release that reads `to` instead of `from` (a config crossing it either way is
  /// rewritten, back to `from` when it goes to an older one); empty: every release zeroforge
  /// knows reads both and deprecates `from`, which is always rewritten.
  std::string_view since;
  ValueMap map;
  std::string_view change;  ///< what DeepSpeed changed, for the note
  std::string_view source;  ///< the DeepSpeed source file that says so
};

/// Every entry, in the order the notes are made.
std::span<const KeyMove> key_moves();

}  // namespace zf::migrate
