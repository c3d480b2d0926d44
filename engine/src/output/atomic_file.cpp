// SPDX-License-Identifier: MIT
// Reading whole files, and writing them atomically (temporary file in the same directory +
// rename, so a reader or a crash never sees a half-written file).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw Error(ErrorKind::Io, "cannot read '" + path.string() + "': is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, "cannot read '" + path.string() + "': " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return std::move(buffer).str();
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  auto fail = [&](const std::string& what, int err) {
    throw Error(ErrorKind::Io, "cannot write '" + path.string() + "': " + what +
                                   (err ? std::string(": ") + std::strerror(err) : ""));
  };
  std::error_code ec;
  fs::path parent = path.parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) fail("cannot create directory '" + parent.string() + "'", ec.value());
  }
  fs::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create a temporary file", errno);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      fs::remove(temp, ec);
      fail("write failed", err);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
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
