// SPDX-License-Identifier: MIT
// The manifest's entries on their way to DIR/manifest.json, which lists them sorted by path.
// Entries arrive in variant order; keeping them (or just their paths) in memory would make
// generate's memory grow with the number of configs, so they are sorted in runs of bounded
// size, spilled to an unnamed file, and merged when the manifest is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace zf::pipeline {

/// One manifest entry as the spool keeps it.
struct SpoolEntry {
  std::string_view path;      ///< relative to DIR
  std::uint64_t variant = 0;  ///< the variant that made it
  std::uint32_t tag = 0;      ///< the caller's (generate --check: the file's drift status)
  std::string_view text;      ///< zf::manifest_entry_text
};

class ManifestSpool {
 public:
  /// Called with each entry, in path order; the views last until it returns.
  using Visit = std::function<void(const SpoolEntry&)>;

  /// Spills to an unnamed file in `dir` (or the system's temporary directory when `dir` cannot
  /// hold one), which disappears with this object. A run is sorted and spilled when its
  /// entries reach `run_bytes`; every 64 runs are merged into one, so memory stays bounded
  /// (a run's entries, plus a 32 KiB read window per run while merging).
  explicit ManifestSpool(const std::filesystem::path& dir,
                         std::size_t run_bytes = std::size_t{256} << 10);
  ~ManifestSpool();
  ManifestSpool(const ManifestSpool&) = delete;
  ManifestSpool& operator=(const ManifestSpool&) = delete;

  /// Keeps a copy of `entry`.
  void add(const SpoolEntry& entry);
  std::size_t size() const noexcept { return count_; }
  /// Visits every entry in path order (equal paths in the order they were added). May be
  /// called more than once.
  void merge(const Visit& visit);

 private:
  struct Record {
    std::uint64_t variant;
    std::uint32_t tag;
    std::uint32_t offset;  // into buffer_
    std::uint32_t path_size;
    std::uint32_t text_size;
  };
  struct Run {
    std::uint64_t offset;  // in the file
    std::uint64_t size;
  };
  SpoolEntry entry_of(const Record& record) const;
  void sort_buffer();
  void spill();
  void merge_runs(const Visit& visit) const;
  void compact();

  int fd_ = -1;
  std::size_t run_bytes_;
  std::uint64_t file_size_ = 0;
  std::size_t count_ = 0;
  std::string buffer_;           // the current run's paths and texts
  std::vector<Record> records_;  // the current run's entries
  std::vector<Run> runs_;        // spilled runs, each sorted
};

}  // namespace zf::pipeline
