// SPDX-License-Identifier: MIT
// What the pipeline's suites share: a request over the shipped templates and presets, and a
// long directory for inputs (a 15-character small-string buffer would hide lifetime bugs).
#pragma once

#include <filesystem>
#include <string>

#include "support/cli_runner.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf::test {

/// A request for `template_name` over the source tree's templates, presets and the plugins
/// this build made.
inline ConfigRequest shipped_request(const std::string& template_name) {
  ConfigRequest request;
  request.template_name = template_name;
  request.data_dir = source_dir();
  request.builtin_plugin_dir = ZF_BUNDLED_PLUGIN_DIR;
  return request;
}

/// A directory with a long path under `dir`, as a team's repository would have.
inline std::filesystem::path long_dir(const TempDir& dir) {
  auto path =
      dir.path() / "platform-team-configs" / "deepspeed-templates-for-the-finetuning-cluster";
  std::filesystem::create_directories(path);
  return path;
}

}  // namespace zf::test
