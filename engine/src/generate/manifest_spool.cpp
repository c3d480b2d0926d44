// SPDX-License-Identifier: MIT
// ManifestSpool (see manifest_spool.hpp): sorted runs in an unnamed file, merged through a
// small read window per run. A spilled record is a fixed header (variant, tag, path size,
// text size) followed by the path and the text.
#include "manifest_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "zeroforge/error.hpp"

namespace zf::pipeline {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHeader = sizeof(std::uint64_t) + 3 * sizeof(std::uint32_t);
// Each run is read back through a window this big: the merge's memory is runs x window.
constexpr std::size_t kWindow = std::size_t{32} << 10;

[[noreturn]] void fail_io(const char* what) {
  throw Error(ErrorKind::Io, std::string(what) + " the manifest's entries (a temporary file): " +
                                 std::strerror(errno));
}

void write_at(int fd, std::string_view data, std::uint64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io("cannot write");
    data.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

// Reads `size` bytes at `offset` into `out` (resized to what was read, which is `size`
// unless the file ends first).
void read_at(int fd, std::string& out, std::uint64_t offset, std::size_t size) {
  out.resize(size);
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::pread(fd, out.data() + got, size - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io("cannot read back");
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
}

// Runs kept before they are merged into one (see compact).
constexpr std::size_t kMaxRuns = 64;

void append_record(std::string& out, const SpoolEntry& entry) {
  char header[kHeader];
  auto path_size = static_cast<std::uint32_t>(entry.path.size());
  auto text_size = static_cast<std::uint32_t>(entry.text.size());
  std::memcpy(header, &entry.variant, 8);
  std::memcpy(header + 8, &entry.tag, 4);
  std::memcpy(header + 12, &path_size, 4);
  std::memcpy(header + 16, &text_size, 4);
  out.append(header, kHeader);
  out += entry.path;
  out += entry.text;
}

// One spilled run, read record by record through a window.
class RunReader {
 public:
  RunReader(int fd, std::uint64_t offset, std::uint64_t size)
      : fd_(fd), next_(offset), end_(offset + size) {}

  /// Moves to the next record; false at the end of the run.
  bool advance() {
    pos_ += consumed_;
    consumed_ = 0;
    if (window_offset_ + pos_ >= end_) return false;
    if (!have(kHeader)) fail_io("cannot read back");
    std::uint32_t path_size, text_size;
    std::memcpy(&entry_.variant, window_.data() + pos_, 8);
    std::memcpy(&entry_.tag, window_.data() + pos_ + 8, 4);
    std::memcpy(&path_size, window_.data() + pos_ + 12, 4);
    std::memcpy(&text_size, window_.data() + pos_ + 16, 4);
    std::size_t total = kHeader + path_size + text_size;
    if (!have(total)) fail_io("cannot read back");
    entry_.path = std::string_view(window_).substr(pos_ + kHeader, path_size);
    entry_.text = std::string_view(window_).substr(pos_ + kHeader + path_size, text_size);
    consumed_ = total;
    return true;
  }
  const SpoolEntry& entry() const noexcept { return entry_; }

 private:
  // Makes the window hold `bytes` from the current position (refilling from the file).
  bool have(std::size_t bytes) {
    if (pos_ + bytes <= window_.size()) return true;
    std::uint64_t from = window_offset_ + pos_;
    if (from + bytes > end_) return false;
    std::size_t size =
        static_cast<std::size_t>(std::min<std::uint64_t>(std::max(kWindow, bytes), end_ - from));
    read_at(fd_, window_, from, size);
    window_offset_ = from;
    pos_ = 0;
    return window_.size() >= bytes;
  }

  int fd_;
  std::uint64_t next_;  // where the window starts the first time
  std::uint64_t end_;
  std::string window_;
  std::uint64_t window_offset_ = next_;
  std::size_t pos_ = 0;       // the current record, in window_
  std::size_t consumed_ = 0;  // its size, skipped by the next advance
  SpoolEntry entry_;
};

}  // namespace

ManifestSpool::ManifestSpool(const fs::path& dir, std::size_t run_bytes) : run_bytes_(run_bytes) {
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    // No unnamed files there (an old kernel or file system): the temporary directory's.
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (!ec) fd_ = ::open(tmp.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  }
  if (fd_ < 0) fail_io("cannot create a temporary file for");
}

ManifestSpool::~ManifestSpool() {
  if (fd_ >= 0) ::close(fd_);
}

void ManifestSpool::add(const SpoolEntry& entry) {
  if (buffer_.size() + entry.path.size() + entry.text.size() > UINT32_MAX) spill();
  records_.push_back({entry.variant, entry.tag, static_cast<std::uint32_t>(buffer_.size()),
                      static_cast<std::uint32_t>(entry.path.size()),
                      static_cast<std::uint32_t>(entry.text.size())});
  buffer_ += entry.path;
  buffer_ += entry.text;
  ++count_;
  if (buffer_.size() + records_.size() * kHeader >= run_bytes_) spill();
}

SpoolEntry ManifestSpool::entry_of(const Record& r) const {
  std::string_view both = std::string_view(buffer_).substr(r.offset, r.path_size + r.text_size);
  return SpoolEntry{both.substr(0, r.path_size), r.variant, r.tag, both.substr(r.path_size)};
}

void ManifestSpool::sort_buffer() {
  auto path_of = [&](const Record& r) {
    return std::string_view(buffer_).substr(r.offset, r.path_size);
  };
  std::stable_sort(records_.begin(), records_.end(),
                   [&](const Record& a, const Record& b) { return path_of(a) < path_of(b); });
}

void ManifestSpool::spill() {
  if (records_.empty()) return;
  sort_buffer();
  std::string out;
  out.reserve(buffer_.size() + records_.size() * kHeader);
  for (const Record& r : records_) append_record(out, entry_of(r));
  write_at(fd_, out, file_size_);
  runs_.push_back({file_size_, out.size()});
  file_size_ += out.size();
  buffer_.clear();
  records_.clear();
  if (runs_.size() >= kMaxRuns) compact();
}

void ManifestSpool::merge_runs(const Visit& visit) const {
  std::vector<RunReader> readers;
  readers.reserve(runs_.size());
  for (const Run& run : runs_) readers.emplace_back(fd_, run.offset, run.size);
  // Smallest path first; between equal paths, the earlier run (entries added earlier).
  auto later = [&](std::size_t a, std::size_t b) {
    int order = readers[a].entry().path.compare(readers[b].entry().path);
    return order != 0 ? order > 0 : a > b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    if (readers[i].advance()) heap.push(i);
  }
  while (!heap.empty()) {
    std::size_t i = heap.top();
    heap.pop();
    visit(readers[i].entry());
    if (readers[i].advance()) heap.push(i);
  }
}

void ManifestSpool::compact() {
  // Too many runs would make the merge's windows (one per run) grow with the number of
  // configs: merge them into one run at the end of the file.
  std::string out;
  const std::uint64_t start = file_size_;
  std::uint64_t written = 0;
  merge_runs([&](const SpoolEntry& entry) {
    append_record(out, entry);
    if (out.size() >= kWindow) {
      write_at(fd_, out, start + written);
      written += out.size();
      out.clear();
    }
  });
  write_at(fd_, out, start + written);
  written += out.size();
  runs_.assign(1, Run{start, written});
  file_size_ = start + written;
}

void ManifestSpool::merge(const Visit& visit) {
  if (runs_.empty()) {  // everything is still in memory: no file involved
    sort_buffer();
    for (const Record& r : records_) visit(entry_of(r));
    return;
  }
  spill();
  merge_runs(visit);
}

}  // namespace zf::pipeline
