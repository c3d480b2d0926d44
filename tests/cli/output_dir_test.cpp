// SPDX-License-Identifier: MIT
// How `generate` changes DIR (engine/cli/output_dir.cpp): all at once under kill -9 at any
// moment, one run at a time, never through a link out of DIR, keeping what is not its own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "support/cli_runner.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::TempDir;

// Starts `zeroforge ARGS...` with its output discarded; returns its pid.
pid_t spawn_cli(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<std::string> storage{ZF_CLI_PATH};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The rule a reader of DIR relies on: DIR is one run's set, whole. Returns "" or what broke.
std::string check_one_set(const fs::path& dir) {
  if (!fs::exists(dir)) return "";  // before the first run completed
  std::string text;
  try {
    text = read_file(dir / "manifest.json");
  } catch (const Error& e) {
    return std::string("no manifest: ") + e.what();
  }
  auto manifest = nlohmann::json::parse(text, nullptr, false);
  if (manifest.is_discarded()) return "the manifest does not parse";
  std::set<std::string> listed;
  for (const auto& entry : manifest["configs"]) {
    const std::string path = entry["path"];
    listed.insert(path);
    std::string content;
    try {
      content = read_file(dir / path);
    } catch (const Error&) {
      return "listed but missing: " + path;
    }
    if (sha256_hex(content) != entry["sha256"]) return "hash differs: " + path;
  }
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (!it->is_regular_file()) continue;
    std::string relative = fs::relative(it->path(), dir).generic_string();
    if (relative != "manifest.json" && !listed.count(relative))
      return "a file of another run: " + relative;
  }
  return "";
}

class OutputDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // tmpfs when there is one: many small files, many times.
    if (fs::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0) {
      char pattern[] = "/dev/shm/zeroforge-test-XXXXXX";
      if (mkdtemp(pattern) != nullptr) root_ = pattern;
    }
    if (root_.empty()) root_ = scratch_.path();
    dir_ = root_ / "out";
    fs::create_directories(root_ / "t");
    write_file_atomically(root_ / "t" / "c.json.j2",
                          R"({"n": {{ n }}, "run": "{{ run }}", "pad": "{{ "x" * 200 }}"})"
                          "\n");
    std::string axis;
    for (int n = 1; n <= 1500; ++n) axis += (n > 1 ? "," : "") + std::to_string(n);
    write_file_atomically(root_ / "f.json",
                          R"({"name": "big", "template": "c.json.j2", "values": {"run": "a"},
                              "axes": {"n": [)" +
                              axis + R"(]}, "output": "{{ run }}/{{ n % 10 }}/{{ n }}.json"})");
  }
  void TearDown() override {
    std::error_code ec;
    if (root_ != scratch_.path()) fs::remove_all(root_, ec);
  }
  std::vector<std::string> generate_args(const std::string& run) const {
    return {"generate",       (root_ / "f.json").string(), "-o",    dir_.string(),
            "--template-dir", (root_ / "t").string(),      "--set", "run=" + run};
  }

  TempDir scratch_;
  fs::path root_, dir_;
};

TEST_F(OutputDirTest, KillAtAnyMomentLeavesTheOldSetOrTheNewOne) {
  // How long a whole run takes here, so that kills land everywhere in it.
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_for(spawn_cli(generate_args("a"))), 0);
  const auto full = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(check_one_set(dir_), "");
  std::mt19937 random(20261124);
  int killed = 0, finished = 0, mid_commit = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string run = i % 2 == 0 ? "b" : "a";
    pid_t pid = spawn_cli(generate_args(run));
    std::uniform_int_distribution<long> at(
        0, std::chrono::duration_cast<std::chrono::microseconds>(full * 1.2).count());
    std::this_thread::sleep_for(std::chrono::microseconds(at(random)));
    kill(pid, SIGKILL);
    (wait_for(pid) == 128 + SIGKILL ? killed : finished)++;
    // The manifest is staged first thing in a commit: a kill after it came mid-commit.
    const fs::path staged = root_ / (".out.zeroforge-staging-" + std::to_string(pid));
    if (fs::exists(staged / "tree" / "manifest.json")) ++mid_commit;
    SCOPED_TRACE("kill " + std::to_string(i));
    ASSERT_EQ(check_one_set(dir_), "");
  }
  EXPECT_GE(killed, 20) << "most kills must land while a run is going";
  // The next run cleans up what killed runs left and completes.
  auto r = run_cli(generate_args("a"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(check_one_set(dir_), "");
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().find(".out.zeroforge-staging-"), std::string::npos)
        << "stale staging left: " << entry.path();
  }
  RecordProperty("killed", killed);
  RecordProperty("mid_commit", mid_commit);
  std::cout << "kill test: " << killed << " of 40 runs killed, " << mid_commit
            << " of them mid-commit, " << finished << " finished first\n";
}

TEST_F(OutputDirTest, TwoRunsAtOnceAreOneAfterTheOther) {
  for (int i = 0; i < 4; ++i) {
    pid_t a = spawn_cli(generate_args("a"));
    pid_t b = spawn_cli(generate_args("b"));
    EXPECT_EQ(wait_for(a), 0);
    EXPECT_EQ(wait_for(b), 0);
    ASSERT_EQ(check_one_set(dir_), "");
  }
}

TEST_F(OutputDirTest, KeepsWhatIsNotItsOwnAndTheTimesOfUnchangedConfigs) {
  ASSERT_EQ(run_cli(generate_args("a")).exit_code, 0);
  write_file_atomically(dir_ / "notes.txt", "mine\n");
  fs::create_directories(dir_ / "mine" / "deep");
  write_file_atomically(dir_ / "mine" / "deep" / "x.txt", "kept\n");
  fs::create_symlink("notes.txt", dir_ / "link");
  struct stat before {};
  ASSERT_EQ(stat((dir_ / "a/1/1.json").c_str(), &before), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(run_cli(generate_args("a")).exit_code, 0);
  struct stat after {};
  ASSERT_EQ(stat((dir_ / "a/1/1.json").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "an unchanged config is the same file";
  EXPECT_EQ(read_file(dir_ / "notes.txt"), "mine\n");
  EXPECT_EQ(read_file(dir_ / "mine" / "deep" / "x.txt"), "kept\n");
  EXPECT_EQ(fs::read_symlink(dir_ / "link"), "notes.txt");
  // Another run's configs replace this one's; the dropped ones and their directories go.
  ASSERT_EQ(run_cli(generate_args("b")).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "a"));
  EXPECT_TRUE(fs::exists(dir_ / "b" / "1" / "1.json"));
  EXPECT_EQ(read_file(dir_ / "notes.txt"), "mine\n");
}

TEST_F(OutputDirTest, NeverWritesOrDeletesThroughALinkOutOfDir) {
  ASSERT_EQ(run_cli(generate_args("a")).exit_code, 0);
  fs::create_directories(root_ / "outside" / "1");
  write_file_atomically(root_ / "outside" / "1" / "1.json", "precious\n");
  fs::remove_all(dir_ / "a");
  fs::create_symlink(root_ / "outside", dir_ / "a");  // the old manifest lists a/1/1.json
  auto r = run_cli(generate_args("a"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "zeroforge: error: cannot write '" + (dir_ / "a").string() +
                       "': it is a symbolic link, and zeroforge does not write through links; "
                       "remove it or choose another -o DIR; nothing was written [usage.invalid]\n");
  // A run that no longer writes a/ neither follows the link to delete nor touches outside.
  ASSERT_EQ(run_cli(generate_args("b")).exit_code, 0);
  EXPECT_EQ(read_file(root_ / "outside" / "1" / "1.json"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "a")) << "a link the user made is kept";
}

// -o LINK, LINK a symbolic link to a directory: the exchange put a mode-0777 directory where
// the link was, with exit 0 (docs/families.md promised exit 2).
TEST_F(OutputDirTest, AnOutputDirectoryThatIsALinkIsRefused) {
  const fs::path real = root_ / "the-real-directory-the-team-keeps-configs-in";
  fs::create_directories(real);
  write_file_atomically(real / "notes.txt", "mine\n");
  const fs::path link = root_ / "configs-as-the-pipeline-names-them";
  fs::create_symlink(real, link);
  std::vector<std::string> args = generate_args("a");
  args[3] = link.string();
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "zeroforge: error: output '" + link.string() +
                       "' is a symbolic link; zeroforge does not write through links (the run "
                       "replaces DIR as a whole): give the directory it points to ('" +
                       real.string() + "') instead [usage.invalid]\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(std::distance(fs::directory_iterator(real), fs::directory_iterator()), 1);
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().find("zeroforge-staging"), std::string::npos);
  }
}

// Every directory and file generate creates (DIR, its subdirectories, parents of -o it makes)
// takes its mode from the umask.
TEST_F(OutputDirTest, EveryDirectoryAndFileItCreatesHonoursTheUmask) {
  for (const mode_t mask : {mode_t{077}, mode_t{027}}) {
    SCOPED_TRACE(mask);
    const fs::path parent = root_ / ("new-parent-" + std::to_string(mask));
    std::vector<std::string> args = generate_args("a");
    args[3] = (parent / "below" / "out").string();
    const mode_t saved = ::umask(mask);
    auto r = run_cli(args);
    ::umask(saved);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::size_t dirs = 0, files = 0;
    auto mode_of = [](const fs::path& path) {
      struct stat info {};
      ::lstat(path.c_str(), &info);
      return info.st_mode & 07777;
    };
    EXPECT_EQ(mode_of(parent), 0777 & ~mask);
    EXPECT_EQ(mode_of(parent / "below"), 0777 & ~mask);
    for (auto it = fs::recursive_directory_iterator(parent);
         it != fs::recursive_directory_iterator(); ++it) {
      const bool dir = it->is_directory();
      (dir ? dirs : files) += 1;
      EXPECT_EQ(mode_of(it->path()), (dir ? 0777 : 0644) & ~mask) << it->path();
    }
    EXPECT_GT(dirs, 10u);
    EXPECT_GT(files, 1000u);
  }
}

TEST_F(OutputDirTest, AFailedRunLeavesNoParentDirectoriesBehind) {
  const fs::path deep = root_ / "new" / "parent" / "out";
  auto r = run_cli({"generate", (root_ / "f.json").string(), "-o", deep.string(), "--template-dir",
                    (root_ / "t").string(), "--set", "n=\"x\""});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(root_ / "new")) << r.err;
}

}  // namespace
}  // namespace zf
