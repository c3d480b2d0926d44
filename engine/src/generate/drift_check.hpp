// SPDX-License-Identifier: MIT
// `generate --check`: what generate would write, compared with what DIR holds, writing nothing.
// Nothing is kept per config: each config's verdict travels with its manifest entry (the
// spool's tag) and files DIR has beyond the family's are found by walking DIR in path order
// beside the spool's sorted paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace zf::pipeline {

/// One file compared with the text it should have.
enum class DriftStatus : std::uint32_t { Same = 0, Missing = 1, Changed = 2 };

class DriftCheck {
 public:
  using Sink = std::function<void(std::string_view)>;

  explicit DriftCheck(std::filesystem::path dir) : dir_(std::move(dir)) {}

  /// `DIR/relative` against `content` (and, when `executable`, its owner's execute bit).
  /// Safe to call from several threads.
  DriftStatus compare(const std::string& relative, std::string_view content,
                      bool executable = false) const;
  /// `DIR/manifest.json` against the text `write` passes to its sink, in pieces.
  DriftStatus compare_manifest(const std::function<void(const Sink&)>& write) const;
  /// Calls `extra` with every file under DIR (not under a staging directory) whose path
  /// `expected` does not give, in path order. `expected` must pass the family's paths, in
  /// path order (byte order, as std::string compares), to the function it is given.
  void extras(const std::function<void(const std::function<void(std::string_view)>&)>& expected,
              const std::function<void(const std::string&)>& extra) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace zf::pipeline
