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
#include <fstream>
#include <nlohmann/json.hpp>

#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf::cli {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_io(const std::string& what, const fs::path& path) {
  throw Error(ErrorKind::Io, what + " '" + path.string() + "': " + std::strerror(errno));
}

// Writes `relative` (below the directory `dir_fd` refers to, whose path is `dir`) whole.
// Opened relative to the directory's descriptor, the kernel walks the relative path only, not
// the whole staging path, for each of thousands of files.
void write_whole(int dir_fd, const fs::path& dir, const std::string& relative,
                 std::string_view content) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd = ::openat(dir_fd, relative.c_str(), kFlags, 0644);
  if (fd < 0 && errno == ENOENT) {
    // The first file of its directory: make the directories and try again (cheaper than
    // remembering which directories exist, and nothing to remember per file).
    fs::path parent = (dir / relative).parent_path();
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec && fs::is_directory(parent)) ec.clear();  // another thread made it first
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + parent.string() + "': " + ec.message());
    fd = ::openat(dir_fd, relative.c_str(), kFlags, 0644);
  }
  if (fd < 0) fail_io("cannot create", dir / relative);
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      errno = saved;
      fail_io("cannot write", dir / relative);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail_io("cannot write", dir / relative);
}

// The `path` of every entry of a manifest (`configs[*].path`), read as a stream: an old
// manifest with a million entries costs no more memory than one with ten.
class ManifestPaths : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  explicit ManifestPaths(std::function<void(const std::string&)> each) : each_(std::move(each)) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (depth_ == 3 && in_configs_ && is_path_) each_(value);
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && configs_key_) in_configs_ = true;
    return enter();
  }
  bool end_array() override {
    if (depth_ == 2) in_configs_ = false;
    return leave();
  }
  bool key(string_t& name) override {
    if (depth_ == 1) configs_key_ = name == "configs";
    if (depth_ == 3) is_path_ = name == "path";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool enter() {
    ++depth_;
    is_path_ = false;
    return true;
  }
  bool leave() {
    --depth_;
    is_path_ = false;
    return true;
  }
  std::function<void(const std::string&)> each_;
  int depth_ = 0;
  bool configs_key_ = false;  // the last top-level key was "configs"
  bool in_configs_ = false;   // inside the "configs" array
  bool is_path_ = false;      // the last key of the current entry was "path"
};

bool present(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
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
  staging_fd_ = ::open(staging_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (staging_fd_ < 0) {  // the destructor does not run: leave nothing behind here
    int saved = errno;
    fs::remove_all(staging_, ec);
    if (created_dir_) fs::remove_all(dir_, ec);
    errno = saved;
    fail_io("cannot open", staging_);
  }
}

StagedOutput::~StagedOutput() {
  if (staging_fd_ >= 0) ::close(staging_fd_);
  std::error_code ec;
  fs::remove_all(staging_, ec);
  if (!committed_ && created_dir_) fs::remove_all(dir_, ec);
}

void StagedOutput::write(const std::string& relative, std::string_view content) {
  write_whole(staging_fd_, staging_, relative, content);
}

void StagedOutput::prune_old_files() const {
  // Files the previous run wrote (its manifest lists them) that this one did not: the family
  // changed; remove them and directories that become empty, so `--check` agrees afterwards.
  // Never anything else. An unreadable old manifest only means nothing is pruned.
  // Checked whole first (a streaming check, no tree), so that a manifest broken halfway prunes
  // nothing rather than the files listed before the break.
  std::ifstream check(dir_ / "manifest.json", std::ios::binary);
  if (!check || !nlohmann::ordered_json::accept(check)) return;
  std::ifstream old(dir_ / "manifest.json", std::ios::binary);
  if (!old) return;
  ManifestPaths paths([&](const std::string& path) {
    if (path == "manifest.json" || path.find("..") != std::string::npos || path.empty() ||
        path[0] == '/')
      return;
    if (present(staging_ / path)) return;  // written again by this run
    std::error_code ec;
    fs::path target = dir_ / path;
    if (!fs::is_regular_file(fs::symlink_status(target, ec))) return;
    fs::remove(target, ec);
    for (fs::path parent = target.parent_path(); parent != dir_ && fs::is_empty(parent, ec) && !ec;
         parent = parent.parent_path()) {
      fs::remove(parent, ec);
    }
  });
  nlohmann::ordered_json::sax_parse(old, &paths, nlohmann::ordered_json::input_format_t::json,
                                    false);
}

void StagedOutput::move_into_place(const fs::path& relative_dir) const {
  // A staged directory DIR does not have moves in one rename (a family written into a new
  // DIR costs a rename per directory, not per file); where DIR has it, its entries move one
  // by one, next to what is there.
  std::error_code ec;
  for (fs::directory_iterator it(staging_ / relative_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    fs::path relative = relative_dir / it->path().filename();
    if (relative == "manifest.json") continue;  // renamed last, by commit
    fs::path source = staging_ / relative;
    fs::path target = dir_ / relative;
    struct stat info {};
    bool staged_dir = it->is_directory(ec);
    if (::stat(target.c_str(), &info) == 0) {  // a symlink to a directory is a directory here
      if (staged_dir) {
        if (!S_ISDIR(info.st_mode)) {
          throw Error(ErrorKind::Io, "cannot write '" + target.string() + "/...': '" +
                                         target.string() + "' exists and is not a directory");
        }
        move_into_place(relative);
        continue;
      }
    } else if (errno != ENOENT) {
      fail_io("cannot write", target);
    }
    if (::rename(source.c_str(), target.c_str()) != 0) fail_io("cannot write", target);
  }
  if (ec)
    throw Error(ErrorKind::Io,
                "cannot read '" + (staging_ / relative_dir).string() + "': " + ec.message());
}

void StagedOutput::commit(const std::function<void(const Sink&)>& write_manifest) {
  // The new manifest is assembled in the staging directory (whose own manifest.json no
  // output path can be) and renamed into place last.
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

  prune_old_files();
  move_into_place(fs::path());
  fs::path target = dir_ / "manifest.json";
  if (::rename(staged_manifest.c_str(), target.c_str()) != 0) fail_io("cannot write", target);
  committed_ = true;
}

}  // namespace zf::cli
