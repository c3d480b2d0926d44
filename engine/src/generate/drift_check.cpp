// SPDX-License-Identifier: MIT
// DriftCheck (see drift_check.hpp).
#include "drift_check.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "output_dir.hpp"

namespace zf::pipeline {
namespace fs = std::filesystem;

namespace {

// The regular files (and other non-directories) under a directory, as `/`-separated relative
// paths in byte order, one at a time. Each directory's entries are sorted with a '/' after
// directory names, which makes the depth-first walk come out in the order of whole paths
// ("a-b" < "a.json" < "a/x"); memory is one directory listing per level.
class SortedWalk {
 public:
  explicit SortedWalk(const fs::path& root) : root_(root) {
    std::error_code ec;
    if (fs::is_directory(root_, ec)) push("");
  }
  /// The next path, or false at the end.
  bool next(std::string& path) {
    while (!levels_.empty()) {
      Level& level = levels_.back();
      if (level.next == level.entries.size()) {
        levels_.pop_back();
        continue;
      }
      const Entry& entry = level.entries[level.next++];
      std::string relative = level.prefix + entry.name;
      if (entry.directory) {
        push(relative + "/");
        continue;
      }
      path = std::move(relative);
      return true;
    }
    return false;
  }

 private:
  struct Entry {
    std::string name;
    bool directory;  // a real directory, walked (a symlink to one is neither walked nor listed)
    std::string key() const { return directory ? name + "/" : name; }
  };
  struct Level {
    std::string prefix;  // "" or "a/b/"
    std::vector<Entry> entries;
    std::size_t next = 0;
  };
  void push(std::string prefix) {
    Level level{std::move(prefix), {}, 0};
    std::error_code ec;
    for (fs::directory_iterator it(root_ / level.prefix, ec), end; !ec && it != end;
         it.increment(ec)) {
      std::string name = it->path().filename().string();
      std::error_code type_ec;
      bool symlink = it->is_symlink(type_ec);
      bool directory = it->is_directory(type_ec);
      if (directory) {
        if (symlink || name.starts_with(kStagingPrefix)) continue;
        level.entries.push_back({std::move(name), true});
      } else {
        level.entries.push_back({std::move(name), false});
      }
    }
    std::sort(level.entries.begin(), level.entries.end(),
              [](const Entry& a, const Entry& b) { return a.key() < b.key(); });
    levels_.push_back(std::move(level));
  }

  fs::path root_;
  std::vector<Level> levels_;
};

}  // namespace

DriftStatus DriftCheck::compare(const std::string& relative, std::string_view content,
                                bool executable) const {
  std::string existing;
  if (!read_if_file(dir_ / relative, existing)) return DriftStatus::Missing;
  if (existing != content) return DriftStatus::Changed;
  if (executable) {
    struct stat info {};
    if (::stat((dir_ / relative).c_str(), &info) != 0 || (info.st_mode & S_IXUSR) == 0)
      return DriftStatus::Changed;
  }
  return DriftStatus::Same;
}

DriftStatus DriftCheck::compare_manifest(const std::function<void(const Sink&)>& write) const {
  std::ifstream existing(dir_ / "manifest.json", std::ios::binary);
  if (!existing) return DriftStatus::Missing;
  bool same = true;
  std::string chunk;
  write([&](std::string_view piece) {
    if (!same) return;
    chunk.resize(piece.size());
    existing.read(chunk.data(), static_cast<std::streamsize>(piece.size()));
    same = static_cast<std::size_t>(existing.gcount()) == piece.size() && chunk == piece;
  });
  if (same && existing.peek() != std::ifstream::traits_type::eof()) same = false;  // longer
  return same ? DriftStatus::Same : DriftStatus::Changed;
}

void DriftCheck::extras(
    const std::function<void(const std::function<void(std::string_view)>&)>& expected,
    const std::function<void(const std::string&)>& extra) const {
  SortedWalk walk(dir_);
  std::string found;
  bool more = walk.next(found);
  expected([&](std::string_view path) {
    while (more && found < path) {
      extra(found);
      more = walk.next(found);
    }
    if (more && found == path) more = walk.next(found);
  });
  while (more) {
    extra(found);
    more = walk.next(found);
  }
}

}  // namespace zf::pipeline
