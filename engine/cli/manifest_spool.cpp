// SPDX-License-Identifier: MIT
// ManifestSpool (see manifest_spool.hpp): sorted runs in an unnamed file, merged through a
// small read window per run. A spilled record is a fixed header (variant, path size, text
// size) followed by the path and the text.
#include "manifest_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "zeroforge/error.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHeader = sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t);
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

void append_record(std::string& out, std::uint64_t variant, std::string_view path,
                   std::string_view text) {
  char header[kHeader];
  auto path_size = static_cast<std::uint32_t>(path.size());
  auto text_size = static_cast<std::uint32_t>(text.size());
  std::memcpy(header, &variant, 8);
  std::memcpy(header + 8, &path_size, 4);
  std::memcpy(header + 12, &text_size, 4);
  out.append(header, kHeader);
  out += path;
  out += text;
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
    std::uint64_t variant;
    std::uint32_t path_size, text_size;
    std::memcpy(&variant, window_.data() + pos_, sizeof variant);
    std::memcpy(&path_size, window_.data() + pos_ + 8, sizeof path_size);
    std::memcpy(&text_size, window_.data() + pos_ + 12, sizeof text_size);
    std::size_t total = kHeader + path_size + text_size;
    if (!have(total)) fail_io("cannot read back");
    variant_ = variant;
    path_ = std::string_view(window_).substr(pos_ + kHeader, path_size);
    text_ = std::string_view(window_).substr(pos_ + kHeader + path_size, text_size);
    consumed_ = total;
    return true;
  }
  std::string_view path() const noexcept { return path_; }
  std::string_view text() const noexcept { return text_; }
  std::uint64_t variant() const noexcept { return variant_; }

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
  std::uint64_t variant_ = 0;
  std::string_view path_, text_;
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

void ManifestSpool::add(std::string_view path, std::uint64_t variant, std::string_view entry_text) {
  if (buffer_.size() + path.size() + entry_text.size() > UINT32_MAX) spill();
  records_.push_back({variant, static_cast<std::uint32_t>(buffer_.size()),
                      static_cast<std::uint32_t>(path.size()),
                      static_cast<std::uint32_t>(entry_text.size())});
  buffer_ += path;
  buffer_ += entry_text;
  ++count_;
  if (buffer_.size() + records_.size() * kHeader >= run_bytes_) spill();
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
  for (const Record& r : records_) {
    std::string_view both = std::string_view(buffer_).substr(r.offset, r.path_size + r.text_size);
    append_record(out, r.variant, both.substr(0, r.path_size), both.substr(r.path_size));
  }
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
    int order = readers[a].path().compare(readers[b].path());
    return order != 0 ? order > 0 : a > b;
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    if (readers[i].advance()) heap.push(i);
  }
  while (!heap.empty()) {
    std::size_t i = heap.top();
    heap.pop();
    visit(readers[i].path(), readers[i].variant(), readers[i].text());
    if (readers[i].advance()) heap.push(i);
  }
}

void ManifestSpool::compact() {
  // Too many runs would make the merge's windows (one per run) grow with the number of
  // configs: merge them into one run at the end of the file.
  std::string out;
  const std::uint64_t start = file_size_;
  std::uint64_t written = 0;
  merge_runs([&](std::string_view path, std::uint64_t variant, std::string_view text) {
    append_record(out, variant, path, text);
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
    for (const Record& r : records_) {
      std::string_view both = std::string_view(buffer_).substr(r.offset, r.path_size + r.text_size);
      visit(both.substr(0, r.path_size), r.variant, both.substr(r.path_size));
    }
    return;
  }
  spill();
  merge_runs(visit);
}

}  // namespace zf::cli
