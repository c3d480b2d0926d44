// SPDX-License-Identifier: MIT
// Staged writing and drift checking for `generate` (see output_dir.hpp). Files are written with
// plain POSIX calls: generate writes thousands of small files and this is its hot path.
#include "output_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kStagingPrefix = ".zeroforge-staging-";

[[noreturn]] void fail_io(const std::string& what, const fs::path& path) {
  throw Error(ErrorKind::Io, what + " '" + path.string() + "': " + std::strerror(errno));
}

void write_whole(const fs::path& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot create", path);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      fail_io("cannot write", path);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail_io("cannot write", path);
}

}  // namespace

bool read_if_file(const fs::path& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return false;
  }
  out.resize(static_cast<std::size_t>(info.st_size));
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return true;
}

StagedOutput::StagedOutput(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec)) {
    throw Error(ErrorKind::Usage, "output '" + dir_.string() + "' exists and is not a directory");
  }
  if (!fs::exists(dir_, ec)) {
    fs::create_directories(dir_, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + dir_.string() + "': " + ec.message());
    created_dir_ = true;
  }
  staging_ = dir_ / (std::string(kStagingPrefix) + std::to_string(::getpid()));
  fs::remove_all(staging_, ec);
  fs::create_directory(staging_, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create '" + staging_.string() + "': " + ec.message());
}

StagedOutput::~StagedOutput() {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  if (!committed_ && created_dir_) fs::remove_all(dir_, ec);
}

void StagedOutput::ensure_parent(const fs::path& root, const std::string& relative,
                                 std::unordered_set<std::string>& made) {
  auto slash = relative.rfind('/');
  if (slash == std::string::npos) return;
  std::string parent = relative.substr(0, slash);
  if (made.contains(parent)) return;
  std::error_code ec;
  fs::create_directories(root / parent, ec);
  if (ec)
    throw Error(ErrorKind::Io, "cannot create '" + (root / parent).string() + "': " + ec.message());
  made.insert(parent);
}

void StagedOutput::write(const std::string& relative, std::string_view content) {
  {
    std::lock_guard lock(mutex_);
    ensure_parent(staging_, relative, staged_dirs_);
  }
  write_whole(staging_ / relative, content);
  std::lock_guard lock(mutex_);
  staged_.push_back(relative);
}

void StagedOutput::commit(
    const std::vector<std::string>& previous,
    const std::function<void(const std::function<void(std::string_view)>&)>& write_manifest) {
  // Each staged file moves with the shallowest of its directories that DIR does not have yet,
  // in one rename: a family written into a new DIR (or new tier directories) costs a rename per
  // directory, not per file. Where DIR already has the directory, files move one by one.
  std::unordered_map<std::string, bool> moved_or_present;  // directory -> moved (true) / exists
  for (const auto& relative : staged_) {
    bool done = false;
    for (auto slash = relative.find('/'); slash != std::string::npos && !done;
         slash = relative.find('/', slash + 1)) {
      std::string prefix = relative.substr(0, slash);
      auto known = moved_or_present.find(prefix);
      if (known != moved_or_present.end()) {
        done = known->second;
        continue;
      }
      fs::path target = dir_ / prefix;
      struct stat info {};
      if (::stat(target.c_str(), &info) == 0) {  // a symlink to a directory is a directory here
        if (!S_ISDIR(info.st_mode)) {
          throw Error(ErrorKind::Io, "cannot write '" + (dir_ / relative).string() + "': '" +
                                         target.string() + "' exists and is not a directory");
        }
        moved_or_present.emplace(std::move(prefix), false);
        continue;
      }
      if (errno != ENOENT) fail_io("cannot write", target);
      if (::rename((staging_ / prefix).c_str(), target.c_str()) != 0)
        fail_io("cannot write", target);
      moved_or_present.emplace(std::move(prefix), true);
      done = true;
    }
    if (done) continue;
    fs::path target = dir_ / relative;
    if (::rename((staging_ / relative).c_str(), target.c_str()) != 0)
      fail_io("cannot write", target);
  }
  // Files the previous run wrote that this one did not: the family changed; remove them (and
  // directories that become empty) so `--check` agrees afterwards. Never anything else.
  std::unordered_set<std::string> now(staged_.begin(), staged_.end());
  for (const auto& old : previous) {
    if (now.contains(old) || old == "manifest.json" || old.find("..") != std::string::npos)
      continue;
    std::error_code ec;
    fs::path path = dir_ / old;
    if (!fs::is_regular_file(fs::symlink_status(path, ec))) continue;
    fs::remove(path, ec);
    for (fs::path parent = path.parent_path(); parent != dir_ && fs::is_empty(parent, ec) && !ec;
         parent = parent.parent_path()) {
      fs::remove(parent, ec);
    }
  }
  // Assembled in the staging directory (whose own manifest.json no output path can be) and
  // renamed into place: readers see the old manifest or the new one.
  fs::path staged_manifest = staging_ / "manifest.json";
  int fd = ::open(staged_manifest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot create", staged_manifest);
  std::string buffer;
  auto flush = [&] {
    const char* data = buffer.data();
    std::size_t left = buffer.size();
    while (left > 0) {
      ssize_t n = ::write(fd, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int saved = errno;
        ::close(fd);
        errno = saved;
        fail_io("cannot write", staged_manifest);
      }
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    buffer.clear();
  };
  write_manifest([&](std::string_view piece) {
    buffer += piece;
    if (buffer.size() >= (1u << 16)) flush();
  });
  flush();
  if (::close(fd) != 0) fail_io("cannot write", staged_manifest);
  fs::path target = dir_ / "manifest.json";
  if (::rename(staged_manifest.c_str(), target.c_str()) != 0) fail_io("cannot write", target);
  committed_ = true;
}

ManifestSpool::ManifestSpool(const fs::path& dir) {
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    // No unnamed files there (an old kernel or file system): the temporary directory's.
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (!ec) fd_ = ::open(tmp.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  }
  if (fd_ < 0) fail_io("cannot create a temporary file in", dir);
}

ManifestSpool::~ManifestSpool() {
  if (fd_ >= 0) ::close(fd_);
}

void ManifestSpool::flush() {
  const char* data = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    ssize_t n = ::pwrite(fd_, data, left, static_cast<off_t>(written_));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      fail_io("cannot write the manifest's entries to a temporary file for", "manifest.json");
    data += n;
    left -= static_cast<std::size_t>(n);
    written_ += static_cast<std::uint64_t>(n);
  }
  buffer_.clear();
}

void ManifestSpool::add(std::string path, std::string_view entry_text) {
  entries_.push_back({std::move(path), written_ + buffer_.size(), entry_text.size()});
  buffer_ += entry_text;
  if (buffer_.size() >= (1u << 16)) flush();
}

void ManifestSpool::write_sorted(std::string_view head,
                                 const std::function<void(std::string_view)>& sink) {
  flush();
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.path < b.path; });
  sink(head);
  // Entries are read back through a window of the file: sorted order is usually close to the
  // order they were written in, so one read serves many entries.
  constexpr std::uint64_t kWindow = 1u << 16;
  std::string window;
  std::uint64_t window_offset = 0;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& entry = entries_[i];
    if (entry.offset < window_offset || entry.offset + entry.size > window_offset + window.size()) {
      window_offset = entry.offset;
      window.resize(static_cast<std::size_t>(std::max(kWindow, entry.size)));
      std::size_t got = 0;
      while (got < entry.size) {
        ssize_t n = ::pread(fd_, window.data() + got, window.size() - got,
                            static_cast<off_t>(window_offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail_io("cannot read back the manifest's entries for", "manifest.json");
        got += static_cast<std::size_t>(n);
      }
      window.resize(got);
    }
    sink(manifest_separator(i));
    sink(std::string_view(window).substr(static_cast<std::size_t>(entry.offset - window_offset),
                                         static_cast<std::size_t>(entry.size)));
  }
  sink(manifest_tail(entries_.size()));
}

std::string ManifestSpool::text(std::string_view head) {
  std::string out;
  write_sorted(head, [&](std::string_view piece) { out += piece; });
  return out;
}

void DriftCheck::compare(const std::string& relative, std::string_view content) {
  std::string existing;
  bool missing = !read_if_file(dir_ / relative, existing);
  bool changed = !missing && existing != content;
  std::lock_guard lock(mutex_);
  expected_.insert(relative);
  if (missing) drift_.missing.push_back(relative);
  if (changed) drift_.changed.push_back(relative);
}

Drift DriftCheck::finish(std::string_view manifest_text) {
  compare("manifest.json", manifest_text);
  std::error_code ec;
  if (fs::is_directory(dir_, ec)) {
    for (auto it = fs::recursive_directory_iterator(dir_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec)) {
        if (it->path().filename().string().starts_with(kStagingPrefix))
          it.disable_recursion_pending();
        continue;
      }
      std::string relative = it->path().lexically_relative(dir_).generic_string();
      if (!expected_.contains(relative)) drift_.extra.push_back(relative);
    }
  }
  std::sort(drift_.missing.begin(), drift_.missing.end());
  std::sort(drift_.changed.begin(), drift_.changed.end());
  std::sort(drift_.extra.begin(), drift_.extra.end());
  return std::move(drift_);
}

}  // namespace zf::cli
