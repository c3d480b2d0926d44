// SPDX-License-Identifier: MIT
// Running the real zeroforge executable from tests: exit code, stdout and stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace zf::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `zeroforge ARGS...` (the binary this build produced) in `cwd` (default: the source
/// directory) with stdin closed, and collects its output. `env` entries (`NAME=VALUE`) replace
/// or add to the test's own environment for that run.
CliResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& cwd = {},
                  const std::vector<std::string>& env = {});

/// Runs another program of this build the same way (`program` is its path).
CliResult run_program(const std::filesystem::path& program, const std::vector<std::string>& args,
                      const std::filesystem::path& cwd = {},
                      const std::vector<std::string>& env = {});

/// A fresh, empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `content` to `relative` (creating parent folders) and returns the full path.
  std::filesystem::path write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

/// The source tree (for templates/, presets/, tests/golden/).
std::filesystem::path source_dir();

}  // namespace zf::test
