// SPDX-License-Identifier: MIT
// Reading whole files, and writing them atomically (temporary file in the same directory +
// rename, so a reader or a crash never sees a half-written file).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/write_all.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace fs = std::filesystem;

std::uint64_t max_input_bytes() {
  // ZEROFORGE_MAX_INPUT_MIB raises (or lowers) the limit for one run; a value that is not a
  // limit is an error, never ignored.
  const char* mib = std::getenv("ZEROFORGE_MAX_INPUT_MIB");
  if (mib == nullptr) return std::uint64_t{64} << 20;
  std::uint64_t value = 0;
  const char* end = mib + std::strlen(mib);
  const auto [stop, ec] = std::from_chars(mib, end, value);
  if (stop == mib || stop != end || ec != std::errc() || value < 1 || value > kMaxInputMib) {
    throw Error(ErrorKind::Usage, std::string("ZEROFORGE_MAX_INPUT_MIB='") + mib +
                                      "' must be a whole number of MiB from 1 to " +
                                      std::to_string(kMaxInputMib) +
                                      " (the largest input file zeroforge reads; 64 when unset)");
  }
  return value << 20;
}

namespace {

// What a path that is not a regular file is, in the words of a message ("is a directory"), or
// "" for a regular file. A FIFO or a pipe is read (`--values <(...)` is one), so it is named
// only when nothing came through it.
std::string kind_problem(mode_t mode) {
  if (S_ISREG(mode) || S_ISFIFO(mode)) return {};
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISCHR(mode)) return "is a character device (such as /dev/zero or a terminal), not a file";
  if (S_ISBLK(mode)) return "is a block device, not a file";
  if (S_ISSOCK(mode)) return "is a socket, not a file";
  return "is not a regular file";
}

constexpr const char* kEmptyFifo =
    "is a FIFO (a named pipe) and nothing was written to it; give a file, or write to the pipe "
    "while zeroforge reads it";

}  // namespace

std::string not_a_file_problem(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return {};
  if (S_ISFIFO(info.st_mode)) return "is a FIFO (a named pipe), not a file";
  return kind_problem(info.st_mode);
}

std::string read_file(const fs::path& path) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::Io, "cannot read '" + path.string() + "': " + why);
  };
  const std::uint64_t limit = max_input_bytes();  // before the file is open: it may throw
  // O_NONBLOCK: a FIFO nobody writes to opens at once (and reads as empty) instead of
  // blocking forever; a process substitution (`--values <(...)`) still reads what it writes.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    // A socket cannot be opened (ENXIO, "No such device or address"): say what it is.
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && !kind_problem(info.st_mode).empty())
      fail(kind_problem(info.st_mode));
    fail(std::strerror(err));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    fail(std::strerror(err));
  }
  // A directory, a device (/dev/zero never ends, /dev/null is empty) or a socket is named for
  // what it is, rather than read until the input limit or parsed as empty text.
  if (std::string why = kind_problem(info.st_mode); !why.empty()) {
    ::close(fd);
    fail(why);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  auto too_large = [&] {
    ::close(fd);
    fail("larger than " + std::to_string(limit >> 20) +
         " MiB, the limit on an input file (ZEROFORGE_MAX_INPUT_MIB raises it)");
  };
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > limit) too_large();
  // Read to the end, whatever stat said (a file in /proc says 0): the limit ends it.
  std::string out;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      fail(std::strerror(err));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > limit) too_large();
  }
  ::close(fd);
  if (out.empty() && S_ISFIFO(info.st_mode)) fail(kEmptyFifo);
  return out;
}

void write_file_atomically(const fs::path& requested, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  auto fail = [&](const std::string& what, int err) {
    throw Error(ErrorKind::Io, "cannot write '" + requested.string() + "': " + what +
                                   (err ? std::string(": ") + std::strerror(err) : ""));
  };
  std::error_code ec;
  // A link is followed: the file it names is replaced, the link stays.
  fs::path path = requested;
  if (fs::is_symlink(fs::symlink_status(requested, ec))) {
    path = fs::weakly_canonical(requested, ec);
    if (ec) fail("cannot resolve the link", ec.value());
  }
  // Only a regular file is replaced by a rename: a device (/dev/null, /dev/full), a FIFO or a
  // terminal is written in place (renaming over one would put a file where it was), and a
  // write error there is an error.
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) fail("it is a directory", 0);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open it", errno);
    if (!io::write_all(fd, content)) {
      int err = errno;
      ::close(fd);
      fail("write failed", err);
    }
    if (::close(fd) != 0) fail("close failed", errno);
    return;
  }
  fs::path parent = path.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) fail("cannot create directory '" + parent.string() + "'", ec.value());
  }
  fs::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create a temporary file", errno);
  if (!io::write_all(fd, content)) {
    int err = errno;
    ::close(fd);
    fs::remove(temp, ec);
    fail("write failed", err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    fs::remove(temp, ec);
    fail("close failed", err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    fs::remove(temp, ec);
    fail("rename failed", err);
  }
}

}  // namespace zf

namespace zf::io {

bool write_all(int fd, std::string_view content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace zf::io
