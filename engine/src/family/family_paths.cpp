// SPDX-License-Identifier: MIT
// Where a family's files are: the family file a name or path means, and its template_dirs.
// Here in the family module, beside the tier search path, so that generate, the pipeline
// steps and the CLI's listings find a family the same way.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "zeroforge/diagnostic.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family_file.hpp"
#include "zeroforge/output.hpp"

namespace zf {
namespace fs = std::filesystem;

fs::path resolve_family(const std::string& family, const fs::path& data_dir) {
  std::error_code ec;
  if (family.find('/') != std::string::npos || family.ends_with(".json")) {
    if (!fs::is_regular_file(family, ec)) {
      // A directory or FIFO is named for what it is (read_file's words), not "not found".
      const std::string what = not_a_file_problem(family);
      throw Error(ErrorKind::Usage,
                  "family file '" + family + "' " + (what.empty() ? "not found" : what));
    }
    return family;
  }
  fs::path path = data_dir / "presets" / "families" / (family + ".json");
  if (!fs::is_regular_file(path, ec)) {
    throw Error(ErrorKind::Usage, "unknown family '" + family + "' (no " + path.string() +
                                      "; 'zeroforge list presets' shows the shipped ones)");
  }
  return path;
}

std::vector<fs::path> family_template_dirs(const Family& family) {
  std::vector<fs::path> dirs;
  const fs::path base = fs::path(family.file).parent_path();
  for (std::size_t i = 0; i < family.template_dirs.size(); ++i) {
    fs::path dir = base / family.template_dirs[i];
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw CodedError(
          Error(ErrorKind::Values,
                "template directory '" + family.template_dirs[i] + "' is not a directory (" +
                    dir.string() + "; template_dirs are relative to the family file)",
                family.file, "/template_dirs/" + std::to_string(i)),
          codes::family_template_dir);
    }
    dirs.push_back(std::move(dir));
  }
  return dirs;
}

}  // namespace zf
