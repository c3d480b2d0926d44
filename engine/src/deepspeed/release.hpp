// SPDX-License-Identifier: MIT
// The DeepSpeed release a validation judges by: finding a release by its version, the facts of
// a config key by its JSON pointer, and the features (optimizer and scheduler names, checks)
// some releases have. Over the generated tables of schema_facts.hpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "deepspeed/schema_facts.hpp"

namespace zf::deepspeed {

/// The newest release (the default): the one the schema data describes.
ReleaseIndex newest_release();
/// The index of `version` ("0.16.4") among releases(), or nullopt.
std::optional<ReleaseIndex> find_release(std::string_view version);
/// The release `version` names, the newest for "". Throws zf::Error (Usage) for a version
/// zeroforge does not know, naming the range it knows.
ReleaseIndex require_release(std::string_view version);
/// A release's version text.
std::string_view version_of(ReleaseIndex release);
/// "0.12.0-0.12.6, 0.13.0-0.13.5, ...": every release zeroforge knows, by minor release, for
/// messages.
std::string known_range();
/// True when `feature` ("optimizer:muon", "check:pydantic-2") exists in `release`.
bool feature_at(std::string_view feature, ReleaseIndex release);
/// The facts of the config key at `pointer` ("/zero_optimization/stage"; "" is the root), the
/// way a walk reaches them (through aliases' canonical keys), or nullptr when no release has it.
const NodeFacts* node_at_pointer(std::string_view pointer);
/// True when `release` has the key at `pointer` and every key above it.
bool present_at_pointer(std::string_view pointer, ReleaseIndex release);
/// The releases that have a key, as text: "0.16.4 or newer", "0.13.2 to 0.14.3", "0.12.0 to
/// 0.16.3 and 0.16.6 or newer"; "" for every release.
std::string releases_text(const NodeFacts& node);

}  // namespace zf::deepspeed
