// SPDX-License-Identifier: MIT
// Where `generate` puts its files: staged inside DIR and moved into place only when every config
// rendered (so an error leaves DIR as it was), or compared with DIR for `--check`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace zf::cli {

/// Files written into `DIR/.zeroforge-staging-PID/` first; `commit` moves them into DIR, and
/// destruction without `commit` removes them (and DIR, if this object created it). Nothing is
/// kept per file: memory does not grow with the number of configs.
class StagedOutput {
 public:
  /// Receives the manifest's text in pieces.
  using Sink = std::function<void(std::string_view)>;

  explicit StagedOutput(std::filesystem::path dir);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  /// Stages `content` as `relative` (a checked, `/`-separated path other than
  /// `manifest.json`). Safe to call from several threads at once.
  void write(const std::string& relative, std::string_view content);
  /// The staging directory (removed with this object), for scratch files.
  const std::filesystem::path& staging() const noexcept { return staging_; }
  /// Writes the new manifest (`write_manifest` is given a sink for its text) into the staging
  /// area; deletes the files the old `DIR/manifest.json` lists that this run did not write
  /// (and directories that become empty); moves the staged files into place; and renames the
  /// new manifest into place last, so readers see the old manifest or the new one.
  void commit(const std::function<void(const Sink&)>& write_manifest);

 private:
  void prune_old_files() const;
  void move_into_place(const std::filesystem::path& relative_dir) const;

  std::filesystem::path dir_;
  std::filesystem::path staging_;
  int staging_fd_ = -1;  // staging_, open: files are created relative to it
  bool created_dir_ = false;
  bool committed_ = false;
};

/// The name prefix of StagedOutput's staging directories (skipped by `--check`).
inline constexpr std::string_view kStagingPrefix = ".zeroforge-staging-";

/// The contents of `path`, or nullopt-like false when it cannot be read as a regular file.
bool read_if_file(const std::filesystem::path& path, std::string& out);

}  // namespace zf::cli
