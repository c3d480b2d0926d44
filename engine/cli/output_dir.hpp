// SPDX-License-Identifier: MIT
// Where `generate` puts its files: staged inside DIR and moved into place only when every config
// rendered (so an error leaves DIR as it was), or compared with DIR for `--check`.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace zf::cli {

/// Files written into `DIR/.zeroforge-staging-PID/` first; `commit` moves them into DIR, and
/// destruction without `commit` removes them (and DIR, if this object created it).
class StagedOutput {
 public:
  explicit StagedOutput(std::filesystem::path dir);
  ~StagedOutput();
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;

  /// Stages `content` as `relative` (a checked, `/`-separated path). Safe to call from
  /// several threads at once.
  void write(const std::string& relative, std::string_view content);
  /// The staging directory (removed with this object), for scratch files.
  const std::filesystem::path& staging() const noexcept { return staging_; }
  /// Moves the staged files into place, deletes the files `previous` (the old manifest's
  /// paths) listed that this run did not write, and writes `manifest.json` last (atomically):
  /// `write_manifest` is given a sink that takes the manifest's text in pieces.
  void commit(
      const std::vector<std::string>& previous,
      const std::function<void(const std::function<void(std::string_view)>&)>& write_manifest);

 private:
  void ensure_parent(const std::filesystem::path& root, const std::string& relative,
                     std::unordered_set<std::string>& made);

  std::filesystem::path dir_;
  std::filesystem::path staging_;
  bool created_dir_ = false;
  bool committed_ = false;
  std::mutex mutex_;  // guards staged_ and staged_dirs_ while configs are written in parallel
  std::vector<std::string> staged_;
  std::unordered_set<std::string> staged_dirs_;
};

/// What `--check` found: files missing, different, or not produced by the family.
struct Drift {
  std::vector<std::string> missing;
  std::vector<std::string> changed;
  std::vector<std::string> extra;
  bool empty() const noexcept { return missing.empty() && changed.empty() && extra.empty(); }
};

/// Compares what generate would write with what DIR holds, writing nothing.
class DriftCheck {
 public:
  explicit DriftCheck(std::filesystem::path dir) : dir_(std::move(dir)) {}
  /// Records `relative` as expected, missing or changed. Safe to call from several threads.
  void compare(const std::string& relative, std::string_view content);
  /// Compares the manifest and lists every other file under DIR as extra; sorted lists.
  Drift finish(std::string_view manifest_text);

 private:
  std::filesystem::path dir_;
  std::mutex mutex_;
  std::unordered_set<std::string> expected_;
  Drift drift_;
};

/// Manifest entries held in an unnamed file until the manifest is written, so that memory does
/// not grow with the number of configs: only each entry's path and place in the file stay.
class ManifestSpool {
 public:
  /// The file is created in `dir` (or the system's temporary directory when `dir` cannot
  /// hold unnamed files) and disappears with this object.
  explicit ManifestSpool(const std::filesystem::path& dir);
  ~ManifestSpool();
  ManifestSpool(const ManifestSpool&) = delete;
  ManifestSpool& operator=(const ManifestSpool&) = delete;

  /// Keeps the text of the entry for `path` (zf::manifest_entry_text).
  void add(std::string path, std::string_view entry_text);
  std::size_t size() const noexcept { return entries_.size(); }
  /// Passes `head`, the entries in path order with their separators, and the tail to `sink`,
  /// in pieces: the whole manifest (see zf::manifest_head).
  void write_sorted(std::string_view head, const std::function<void(std::string_view)>& sink);
  /// The same as one string.
  std::string text(std::string_view head);

 private:
  struct Entry {
    std::string path;
    std::uint64_t offset;
    std::uint64_t size;
  };
  void flush();

  int fd_ = -1;
  std::uint64_t written_ = 0;  // bytes in the file
  std::string buffer_;         // bytes not yet in the file
  std::deque<Entry> entries_;
};

/// The contents of `path`, or nullopt-like false when it cannot be read as a regular file.
bool read_if_file(const std::filesystem::path& path, std::string& out);

}  // namespace zf::cli
