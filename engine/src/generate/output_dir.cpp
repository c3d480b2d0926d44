// SPDX-License-Identifier: MIT
// Staged writing for `generate` (see output_dir.hpp): the new DIR is built beside the old one
// and exchanged with it in one rename. Files are written with plain POSIX calls: generate
// writes thousands of small files and this is its hot path.
#include "output_dir.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc 2.28+)
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "io/write_all.hpp"
#include "remark.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"

namespace zf::pipeline {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_io(const std::string& what, const fs::path& path) {
  throw Error(ErrorKind::Io, what + " '" + path.string() + "': " + std::strerror(errno));
}

// Writes `relative` (below the directory `dir_fd` refers to, whose path is `dir`) whole.
// Opened relative to the directory's descriptor, the kernel walks the relative path only, not
// the whole staging path, for each of thousands of files.
void write_whole(int dir_fd, const fs::path& dir, const std::string& relative,
                 std::string_view content, mode_t mode) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  int fd = ::openat(dir_fd, relative.c_str(), kFlags, mode);
  if (fd < 0 && errno == ENOENT) {
    // The first file of its directory: make the directories and try again (cheaper than
    // remembering which directories exist, and nothing to remember per file).
    fs::path parent = (dir / relative).parent_path();
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec && fs::is_directory(parent)) ec.clear();  // another thread made it first
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + parent.string() + "': " + ec.message());
    fd = ::openat(dir_fd, relative.c_str(), kFlags, mode);
  }
  if (fd < 0) fail_io("cannot create", dir / relative);
  if (!io::write_all(fd, content)) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    fail_io("cannot write", dir / relative);
  }
  if (::close(fd) != 0) fail_io("cannot write", dir / relative);
}

// The `path` of every entry of a manifest (`configs[*].path`) and of its companions
// (`configs[*].companions.*`), read as a stream: an old manifest with a million entries costs
// no more memory than one with ten.
class ManifestPaths : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  explicit ManifestPaths(std::function<void(const std::string&)> each) : each_(std::move(each)) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (in_configs_ && ((depth_ == 3 && is_path_) || (depth_ == 4 && in_companions_))) each_(value);
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (depth_ == 3 && in_configs_ && is_companions_) in_companions_ = true;
    return enter();
  }
  bool end_object() override {
    if (depth_ == 4) in_companions_ = false;
    return leave();
  }
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
    if (depth_ == 3) {
      is_path_ = name == "path";
      is_companions_ = name == "companions";
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool enter() {
    ++depth_;
    is_path_ = false;
    is_companions_ = false;
    return true;
  }
  bool leave() {
    --depth_;
    is_path_ = false;
    is_companions_ = false;
    return true;
  }
  std::function<void(const std::string&)> each_;
  int depth_ = 0;
  bool configs_key_ = false;    // the last top-level key was "configs"
  bool in_configs_ = false;     // inside the "configs" array
  bool is_path_ = false;        // the last key of the current entry was "path"
  bool is_companions_ = false;  // the last key of the current entry was "companions"
  bool in_companions_ = false;  // inside an entry's "companions" object
};

bool present(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

// DIR/`relative` reached through real directories only: no component is a symbolic link (a
// delete through one would land outside DIR).
bool inside_without_links(const fs::path& dir, const fs::path& relative) {
  fs::path at = dir;
  for (const auto& part : relative.parent_path()) {
    at /= part;
    struct stat info {};
    if (::lstat(at.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return false;
  }
  return true;
}

// The same bytes and the same execute bits (a launch script that lost its `x` is not the
// file this run writes).
bool same_content(const fs::path& a, const struct stat& a_info, const fs::path& b,
                  const struct stat& b_info) {
  if ((a_info.st_mode & 0111) != (b_info.st_mode & 0111)) return false;
  std::string x, y;
  return read_if_file(a, x) && read_if_file(b, y) && x == y;
}

// Calls `each` with every path `manifest` lists (configs and companions) that stays inside
// DIR; nothing for an unreadable or broken manifest.
void listed_paths(const fs::path& manifest, const std::function<void(const std::string&)>& each) {
  std::ifstream check(manifest, std::ios::binary);
  if (!check || !nlohmann::ordered_json::accept(check)) return;
  std::ifstream in(manifest, std::ios::binary);
  ManifestPaths paths([&](const std::string& path) {
    if (path == "manifest.json" || path.empty() || path[0] == '/' ||
        path.find("..") != std::string::npos)
      return;
    each(path);
  });
  nlohmann::ordered_json::sax_parse(in, &paths, nlohmann::ordered_json::input_format_t::json,
                                    false);
}

// The paths the old DIR/manifest.json lists that this run neither writes nor lists in its own
// manifest: what a commit deletes. A path the new manifest lists without writing it is another
// tier's, kept by `generate --tier` with its file. Only those are kept (memory grows with the
// configs a family dropped, and with --tier the other tiers' ones, not with the family). An
// unreadable or broken old manifest deletes nothing.
std::unordered_set<std::string> dropped_paths(const fs::path& dir, const fs::path& tree) {
  std::unordered_set<std::string> out;
  listed_paths(dir / "manifest.json", [&](const std::string& path) {
    if (!present(tree / path)) out.insert(path);
  });
  if (!out.empty())
    listed_paths(tree / "manifest.json", [&](const std::string& path) { out.erase(path); });
  return out;
}

// Refuses, before anything changes, what DIR holds where the family writes.
[[noreturn]] void refuse_entry(const fs::path& target, const std::string& why) {
  throw Error(ErrorKind::Usage,
              "cannot write '" + target.string() + "': " + why + "; nothing was written");
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

std::string staging_prefix(const fs::path& dir) {
  return (dir.parent_path() / ("." + dir.filename().string() + ".zeroforge-staging-")).string();
}

StagedOutput::StagedOutput(fs::path dir, Messages messages, bool list_unchanged)
    : messages_(std::move(messages)), list_unchanged_(list_unchanged) {
  std::error_code ec;
  dir_ = fs::absolute(dir, ec).lexically_normal();
  if (!dir_.has_filename()) dir_ = dir_.parent_path();  // "out/" is "out"
  if (dir_ == dir_.root_path() || !dir_.has_filename()) {
    throw Error(ErrorKind::Usage,
                "output '" + dir.string() + "' is the file system root; give a directory below it");
  }
  // DIR is replaced by a rename: through a link that would put a directory where the link
  // was (and with the link's mode, 0777), so a link is refused like any other non-directory.
  if (fs::is_symlink(fs::symlink_status(dir_, ec))) {
    throw Error(ErrorKind::Usage,
                "output '" + dir.string() +
                    "' is a symbolic link; zeroforge does not write through links (the run "
                    "replaces DIR as a whole): give the directory it points to ('" +
                    fs::read_symlink(dir_, ec).string() + "') instead");
  }
  if (fs::exists(fs::symlink_status(dir_, ec)) && !fs::is_directory(dir_, ec)) {
    throw Error(ErrorKind::Usage, "output '" + dir.string() + "' exists and is not a directory");
  }
  const fs::path parent = dir_.parent_path();
  if (!fs::exists(parent, ec)) {
    for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path())
      created_parent_ = p;
    fs::create_directories(parent, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + parent.string() + "': " + ec.message());
  }
  // One run at a time per parent directory: the lock is on the parent itself (its inode
  // outlives every exchange of DIR), and the kernel releases it when a run dies.
  lock_fd_ = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0) fail_io("cannot open", parent);
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (messages_)
      messages_(
          remark(codes::generate_waiting, Severity::Note,
                 "waiting for another zeroforge generate into " + parent.string() + " to finish"));
    while (::flock(lock_fd_, LOCK_EX) != 0) {
      if (errno != EINTR) fail_io("cannot lock", parent);
    }
  }
  // Holding the lock, any staging of DIR is a killed run's: remove it.
  const std::string prefix = fs::path(staging_prefix(dir_)).filename().string();
  std::size_t stale = 0;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix)) {
      std::error_code remove_ec;
      fs::remove_all(it->path(), remove_ec);
      ++stale;
    }
  }
  if (stale > 0) {
    if (messages_)
      messages_(remark(codes::generate_stale_staging, Severity::Note,
                       "removed " + std::to_string(stale) + " staging director" +
                           (stale == 1 ? "y" : "ies") + " of " + dir.string() +
                           " left by killed runs"));
  }
  staging_ = staging_prefix(dir_) + std::to_string(::getpid());
  tree_ = staging_ / "tree";
  scratch_ = staging_ / "scratch";
  fs::create_directories(tree_, ec);
  if (!ec) fs::create_directory(scratch_, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create '" + staging_.string() + "': " + ec.message());
  tree_fd_ = ::open(tree_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (tree_fd_ < 0) {  // the destructor does not run: leave nothing behind here
    int saved = errno;
    fs::remove_all(staging_, ec);
    errno = saved;
    fail_io("cannot open", tree_);
  }
}

StagedOutput::~StagedOutput() {
  if (tree_fd_ >= 0) ::close(tree_fd_);
  std::error_code ec;
  fs::remove_all(staging_, ec);  // the old DIR after an exchange, else the unused new one
  if (!committed_ && !created_parent_.empty()) fs::remove_all(created_parent_, ec);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

void StagedOutput::write(const std::string& relative, std::string_view content, bool executable) {
  write_whole(tree_fd_, tree_, relative, content, executable ? 0755 : 0644);
}

std::size_t StagedOutput::carry_over(const fs::path& relative) {
  // What DIR holds and no manifest listed is the user's: it goes into the new DIR as a hard
  // link (the same file, no copy, mtime kept), a link as a link, a directory as a directory.
  // A config written again with the same text is linked too, so unchanged files keep their
  // modification time. A link or special file where this run writes a config is refused:
  // zeroforge never writes through a link (one pointing out of DIR would put configs there).
  std::error_code ec;
  std::size_t kept = 0;  // entries the new DIR has at this level, written or carried
  for (fs::directory_iterator it(dir_ / relative, ec), end; !ec && it != end; it.increment(ec)) {
    ++kept;
    const fs::path rel = relative / it->path().filename();
    const std::string name = it->path().filename().string();
    if (relative.empty() && (name == "manifest.json" || name.starts_with(kStagingPrefix))) continue;
    const fs::path old = dir_ / rel, staged = tree_ / rel;
    struct stat was {
    }, now{};
    if (::lstat(old.c_str(), &was) != 0) continue;  // gone meanwhile
    const bool written = ::lstat(staged.c_str(), &now) == 0;
    if (S_ISLNK(was.st_mode)) {
      if (written)
        refuse_entry(old,
                     "it is a symbolic link, and zeroforge does not write through "
                     "links; remove it or choose another -o DIR");
      fs::copy_symlink(old, staged, ec);
      if (ec) fail_io("cannot keep", old);
    } else if (S_ISDIR(was.st_mode)) {
      if (written && !S_ISDIR(now.st_mode))
        refuse_entry(old, "it is a directory where the family writes a file");
      if (!written && ::mkdir(staged.c_str(), was.st_mode & 07777) != 0)
        fail_io("cannot keep", old);
      // A directory that held only configs the family dropped goes with them.
      if (carry_over(rel) == 0 && !written && !fs::is_empty(old, ec)) {
        ::rmdir(staged.c_str());
        --kept;
      }
    } else if (S_ISREG(was.st_mode)) {
      if (written) {
        if (S_ISREG(now.st_mode) && same_content(old, was, staged, now)) {
          fs::path tmp = staged;
          tmp += ".same";
          if (::link(old.c_str(), tmp.c_str()) == 0 && ::rename(tmp.c_str(), staged.c_str()) == 0) {
            ++unchanged_count_;
            if (list_unchanged_) unchanged_.push_back(rel.generic_string());
          }
        } else if (!S_ISREG(now.st_mode) && !dropped_.contains(rel.generic_string())) {
          refuse_entry(old, "it is a file where the family writes a directory");
        }
        continue;
      }
      if (dropped_.contains(rel.generic_string())) {  // the family no longer writes it
        --kept;
        continue;
      }
      if (::link(old.c_str(), staged.c_str()) != 0) {
        fs::copy_file(old, staged, ec);  // another file system, or too many links
        if (ec) fail_io("cannot keep", old);
      }
    } else {
      refuse_entry(old,
                   "it is a special file (a FIFO, socket or device), which cannot be kept "
                   "when DIR is replaced; move it out of DIR");
    }
  }
  if (ec)
    throw Error(ErrorKind::Io, "cannot read '" + (dir_ / relative).string() + "': " + ec.message());
  return kept;
}

std::vector<std::string> StagedOutput::unchanged_paths() const {
  std::vector<std::string> out = unchanged_;
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> StagedOutput::removed_paths() const {
  std::vector<std::string> out(dropped_.begin(), dropped_.end());
  std::sort(out.begin(), out.end());
  return out;
}

void StagedOutput::move_into_place(const fs::path& relative_dir) const {
  // The fallback: entries move one by one next to what DIR has.
  std::error_code ec;
  for (fs::directory_iterator it(tree_ / relative_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    fs::path relative = relative_dir / it->path().filename();
    if (relative == "manifest.json") continue;  // renamed last
    fs::path source = tree_ / relative;
    fs::path target = dir_ / relative;
    struct stat info {};
    bool staged_dir = it->is_directory(ec) && !it->is_symlink(ec);
    if (::lstat(target.c_str(), &info) == 0 && staged_dir && S_ISDIR(info.st_mode)) {
      move_into_place(relative);
      continue;
    }
    if (::rename(source.c_str(), target.c_str()) != 0) fail_io("cannot write", target);
  }
  if (ec)
    throw Error(ErrorKind::Io,
                "cannot read '" + (tree_ / relative_dir).string() + "': " + ec.message());
}

void StagedOutput::commit_in_place() const {
  std::error_code ec;
  for (const auto& path : dropped_) {
    fs::path target = dir_ / path;
    if (!inside_without_links(dir_, path)) continue;
    if (!fs::is_regular_file(fs::symlink_status(target, ec))) continue;
    fs::remove(target, ec);
    for (fs::path parent = target.parent_path(); parent != dir_ && fs::is_empty(parent, ec) && !ec;
         parent = parent.parent_path()) {
      fs::remove(parent, ec);
    }
  }
  move_into_place(fs::path());
  fs::path target = dir_ / "manifest.json";
  if (::rename((tree_ / "manifest.json").c_str(), target.c_str()) != 0)
    fail_io("cannot write", target);
}

void StagedOutput::commit(const std::function<void(const Sink&)>& write_manifest) {
  fs::path staged_manifest = tree_ / "manifest.json";
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

  struct stat old_dir {};
  if (::lstat(dir_.c_str(), &old_dir) != 0) {
    // A new DIR: one rename makes it appear whole.
    if (::rename(tree_.c_str(), dir_.c_str()) != 0) fail_io("cannot write", dir_);
    committed_ = true;
    return;
  }
  dropped_ = dropped_paths(dir_, tree_);
  carry_over(fs::path());
  ::chmod(tree_.c_str(), old_dir.st_mode & 07777);
  if (::renameat2(AT_FDCWD, tree_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;  // the old DIR is at tree_ now, removed with the staging
    return;
  }
  if (errno != EINVAL && errno != EBUSY && errno != EXDEV && errno != ENOSYS && errno != EPERM)
    fail_io("cannot replace", dir_);
  const int why = errno;  // before anything else can change it
  if (messages_)
    messages_(remark(codes::output_not_atomic, Severity::Warning,
                     dir_.string() + " cannot be replaced at once (" + std::strerror(why) +
                         ": a mount point, or a file system without RENAME_EXCHANGE); its "
                         "files are replaced one by one, and a run killed meanwhile leaves a "
                         "mix"));
  commit_in_place();
  committed_ = true;
}

}  // namespace zf::pipeline
