// SPDX-License-Identifier: MIT
// Where `generate` puts its files: a complete new DIR is built beside DIR and swapped in with
// one atomic rename, so readers (and a kill at any moment) see the old set or the new one,
// never a mix (docs/families.md, "How DIR changes").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "zeroforge/diagnostic.hpp"

namespace zf::pipeline {

/// One run of `generate` into DIR. The constructor takes DIR's lock (a second run into the
/// same DIR waits for the first) and removes staging left by killed runs; `write` stages
/// configs in `PARENT/.NAME.zeroforge-staging-PID/tree/`; `commit` writes the manifest there,
/// carries over what DIR holds that the old manifest did not list, or that the new one lists
/// without this run writing it (another tier's file under `generate --tier`), as hard links
/// (user files are never lost), and exchanges the staged tree with DIR in one
/// renameat2(RENAME_EXCHANGE). Where the file system cannot exchange (DIR is a mount point, or the
/// file system lacks it), files are moved in one by one instead, with a warning. Destruction
/// without `commit` removes the staging and leaves DIR as it was. Memory does not grow with the
/// number of configs.
class StagedOutput {
 public:
  /// Receives the manifest's text in pieces.
  using Sink = std::function<void(std::string_view)>;

  /// Receives notes and warnings: waiting for another run's lock (`generate.waiting`), staging
  /// of killed runs removed (`generate.stale-staging`), DIR replaced file by file
  /// (`output.not-atomic`).
  using Messages = DiagnosticSink;

  /// With `list_unchanged`, unchanged_paths() lists the configs whose text did not change.
  StagedOutput(std::filesystem::path dir, Messages messages, bool list_unchanged = false);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  /// Stages `content` as `relative` (a checked, `/`-separated path other than
  /// `manifest.json`), mode 0644, or 0755 when `executable` (both less the umask). Safe to
  /// call from several threads at once.
  void write(const std::string& relative, std::string_view content, bool executable = false);
  /// A scratch directory removed with this object (not part of the new DIR).
  const std::filesystem::path& staging() const noexcept { return scratch_; }
  /// Writes the manifest (`write_manifest` is given a sink for its text), then makes the
  /// staged set DIR's, all at once. Throws zf::Error, leaving DIR as it was, when DIR holds a
  /// symbolic link or a special file where a config goes.
  void commit(const std::function<void(const Sink&)>& write_manifest);

  /// After commit: configs written with the same text as DIR had (kept, with their
  /// modification time), how many, and (with `list_unchanged`) which, in path order.
  std::size_t unchanged_count() const noexcept { return unchanged_count_; }
  std::vector<std::string> unchanged_paths() const;
  /// After commit: the files the old manifest listed that this run does not write (removed),
  /// in path order.
  std::vector<std::string> removed_paths() const;

 private:
  // Returns how many entries the new DIR has in `relative` (written or carried).
  std::size_t carry_over(const std::filesystem::path& relative);
  void commit_in_place() const;
  void move_into_place(const std::filesystem::path& relative_dir) const;

  std::filesystem::path dir_;      // absolute
  std::filesystem::path staging_;  // PARENT/.NAME.zeroforge-staging-PID
  std::filesystem::path tree_;     // staging_/tree: the new DIR
  std::filesystem::path scratch_;  // staging_/scratch
  int tree_fd_ = -1;
  int lock_fd_ = -1;
  std::filesystem::path created_parent_;     // the first parent directory this run created
  std::unordered_set<std::string> dropped_;  // old manifest paths this run does not write
  bool committed_ = false;
  Messages messages_;
  bool list_unchanged_ = false;
  std::size_t unchanged_count_ = 0;
  std::vector<std::string> unchanged_;
};

/// `PARENT/.NAME.zeroforge-staging-`: the name prefix of StagedOutput's staging directories
/// for DIR = PARENT/NAME.
std::string staging_prefix(const std::filesystem::path& dir);
/// Staging directories of earlier zeroforge versions, inside DIR (removed, never carried).
inline constexpr std::string_view kStagingPrefix = ".zeroforge-staging-";

/// The contents of `path`, or false when it cannot be read as a regular file.
bool read_if_file(const std::filesystem::path& path, std::string& out);

}  // namespace zf::pipeline
