// SPDX-License-Identifier: MIT
// nvidia-smi, found on PATH and run with fork/exec and two pipes; its CSV parsed line by line.
#include "gpu_query.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "zeroforge/error.hpp"

namespace zf::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kQuery = "--query-gpu=index,uuid,name,memory.total";
constexpr const char* kFormat = "--format=csv,noheader,nounits";
constexpr const char* kHandWritten =
    "on a machine without NVIDIA GPUs, copy a tier from presets/tiers/ and edit it";

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

// The line as JSON text, so a control character or stray byte shows instead of acting.
std::string json_quoted(std::string_view line) {
  std::string text(line.substr(0, 200));
  if (line.size() > 200) text += "...";
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string first_line(std::string_view text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trim(text.substr(at, end - at));
    if (!line.empty()) return line;
    at = end + 1;
  }
  return {};
}

fs::path find_on_path(const std::string& program) {
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "/usr/bin:/bin";
  std::size_t at = 0;
  while (true) {
    std::size_t end = path.find(':', at);
    std::string dir = path.substr(at, end == std::string::npos ? std::string::npos : end - at);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (end == std::string::npos) return {};
    at = end + 1;
  }
}

struct Finished {
  int status = 0;
  std::string out;
  std::string err;
};

// stderr is only read for its first line: the rest is drained and dropped.
constexpr std::size_t kMaxErrorOutput = std::size_t{1} << 16;

std::string seconds_text(std::chrono::seconds timeout) {
  return std::to_string(timeout.count()) + (timeout.count() == 1 ? " second" : " seconds");
}

// Runs `program ARGS` with stdin from /dev/null in a process group of its own and collects
// stdout and stderr, reading both pipes as they fill so neither can block the child. It ends
// when the program has exited and what it wrote is read (a child it left behind holding the
// pipes does not keep probe waiting), or at `timeout`, or when stdout passes
// kMaxGpuQueryOutput; then the whole group is killed, so nothing it started is left running.
Finished run_captured(const fs::path& program, const std::vector<std::string>& args,
                      std::chrono::seconds timeout) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw Error(ErrorKind::Io, std::string("cannot run nvidia-smi: pipe: ") + std::strerror(errno));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int saved = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw Error(ErrorKind::Io, std::string("cannot run nvidia-smi: pipe: ") + std::strerror(saved));
  }
  std::vector<std::string> storage{program.string()};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw Error(ErrorKind::Io,
                std::string("cannot run nvidia-smi: fork: ") + std::strerror(fork_errno));
  }
  // Both sides set the group, so it exists before anything below signals it.
  setpgid(pid, pid);
  Finished result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_count = 2;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false, too_much = false, exited = false;
  char buffer[1 << 16];
  while (true) {
    // Has the program exited? (Not reaped yet: its pid, and so its group, stay ours.)
    if (!exited) {
      siginfo_t info{};
      exited = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid;
    }
    if (exited && open_count == 0) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && !exited) {
      timed_out = true;
      break;
    }
    // Once it has exited, what it wrote is in the pipes already: read it without waiting.
    // (With both pipes closed, poll only waits: fds of -1 are skipped.)
    const int wait_ms = exited ? 0 : static_cast<int>(std::min<long long>(left.count(), 50));
    const int ready = poll(fds, 2, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (ready == 0) {
      if (exited) break;  // drained; a child it left may hold the pipes open
      continue;
    }
    for (auto& fd : fds) {
      if (fd.fd < 0 || !(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fd.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fd.fd);
        fd.fd = -1;
        --open_count;
      } else if (&fd == &fds[0]) {
        result.out.append(buffer, static_cast<std::size_t>(n));
        if (result.out.size() > kMaxGpuQueryOutput) too_much = true;
      } else if (result.err.size() < kMaxErrorOutput) {
        result.err.append(buffer, static_cast<std::size_t>(n));
      }
    }
    if (too_much) break;
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  // The program, and anything it started that is still in its group.
  kill(-pid, SIGKILL);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    throw Error(ErrorKind::Usage, program.string() + " did not answer within " +
                                      seconds_text(timeout) +
                                      ": check the driver (run nvidia-smi yourself), give it "
                                      "longer (--timeout SECONDS or ZEROFORGE_PROBE_TIMEOUT), or " +
                                      kHandWritten);
  }
  if (too_much) {
    throw Error(ErrorKind::Usage, program.string() + " printed more than " +
                                      std::to_string(kMaxGpuQueryOutput >> 20) +
                                      " MiB, far more than a line per GPU: it is not the "
                                      "nvidia-smi probe expects; " +
                                      kHandWritten);
  }
  return result;
}

}  // namespace

std::vector<Gpu> parse_gpu_list(std::string_view csv) {
  const std::string expected =
      "expected 'INDEX, UUID, NAME, MEMORY' (memory.total in MiB, an integer from 1 to " +
      std::to_string(kMaxGpuMemoryMib) +
      ", as `nvidia-smi --query-gpu=index,uuid,name,memory.total "
      "--format=csv,noheader,nounits` prints)";
  std::vector<Gpu> gpus;
  std::size_t at = 0;
  for (int number = 1; at < csv.size(); ++number) {
    std::size_t end = csv.find('\n', at);
    if (end == std::string_view::npos) end = csv.size();
    const std::string_view line = csv.substr(at, end - at);
    at = end + 1;
    if (trim(line).empty()) continue;
    // Index and UUID have no comma, and a GPU's name none in practice: the name is what lies
    // between the second comma and the last, which is safe either way.
    const std::size_t first = line.find(',');
    const std::size_t second = first == std::string_view::npos ? first : line.find(',', first + 1);
    const std::size_t last = line.rfind(',');
    Gpu gpu;
    bool ok = second != std::string_view::npos && last > second;
    std::string memory;
    if (ok) {
      const std::string index = trim(line.substr(0, first));
      gpu.uuid = trim(line.substr(first + 1, second - first - 1));
      gpu.name = trim(line.substr(second + 1, last - second - 1));
      memory = trim(line.substr(last + 1));
      const auto [index_end, index_ec] =
          std::from_chars(index.data(), index.data() + index.size(), gpu.index);
      const auto [end_ptr, ec] =
          std::from_chars(memory.data(), memory.data() + memory.size(), gpu.memory_mib);
      ok = !index.empty() && index_ec == std::errc() && index_end == index.data() + index.size() &&
           gpu.index >= 0 && !gpu.uuid.empty() &&
           gpu.uuid.find_first_of(" \t") == std::string::npos && !gpu.name.empty() &&
           !memory.empty() && ec == std::errc() && end_ptr == memory.data() + memory.size() &&
           gpu.memory_mib > 0 && gpu.memory_mib <= kMaxGpuMemoryMib;
    }
    if (!ok) {
      throw Error(ErrorKind::Usage, "nvidia-smi output line " + std::to_string(number) + ": " +
                                        expected + ", got " + json_quoted(line));
    }
    gpus.push_back(std::move(gpu));
  }
  if (gpus.empty()) {
    throw Error(ErrorKind::Usage,
                "nvidia-smi lists no GPU: check that the driver sees them (`nvidia-smi -L`), "
                "or " +
                    std::string(kHandWritten));
  }
  return gpus;
}

std::vector<Gpu> query_gpus(std::chrono::seconds timeout) {
  const fs::path program = find_on_path("nvidia-smi");
  if (program.empty()) {
    throw Error(ErrorKind::Usage,
                "nvidia-smi not found on PATH: install the NVIDIA driver (it ships nvidia-smi) "
                "or add the directory that holds nvidia-smi to PATH; " +
                    std::string(kHandWritten));
  }
  const Finished run = run_captured(program, {kQuery, kFormat}, timeout);
  if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
    const std::string how = WIFEXITED(run.status)
                                ? (WEXITSTATUS(run.status) == 127 && run.err.empty()
                                       ? std::string("could not be started")
                                       : "exited with " + std::to_string(WEXITSTATUS(run.status)))
                                : "was killed by signal " + std::to_string(WTERMSIG(run.status));
    // nvidia-smi writes some failures ("No devices were found") to stdout.
    std::string said = first_line(run.err);
    if (said.empty()) said = first_line(run.out);
    throw Error(ErrorKind::Usage, program.string() + " " + how +
                                      (said.empty() ? std::string() : ": " + json_quoted(said)) +
                                      "; fix the driver until `nvidia-smi` runs, or " +
                                      kHandWritten);
  }
  return parse_gpu_list(run.out);
}

}  // namespace zf::cli
