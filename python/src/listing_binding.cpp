// SPDX-License-Identifier: MIT
// What `zeroforge list templates|presets|tiers` shows, as data: entry templates on the search
// path, the shipped families, and the tiers on the tier search path (list_command.cpp).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "json_convert.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/family.hpp"
#include "zeroforge/pipeline.hpp"
#include "zeroforge/values.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

// A directory zeroforge ships that is not there is an error, as in the CLI: an empty list
// would read as "nothing ships".
void require_directory(const fs::path& dir, const char* what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(ErrorKind::Io, std::string("the ") + what + " directory '" + dir.string() +
                                   "' does not exist (set ZEROFORGE_DATA_DIR to where zeroforge's "
                                   "share/zeroforge is, or reinstall)");
  }
}

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    // `./tiers/x.json` as `tiers/x.json`, the file resolve_tier names.
    if (it->is_regular_file(ec) && it->path().extension() == ".json")
      files.push_back(it->path().lexically_normal());
  }
  if (ec) throw Error(ErrorKind::Io, "cannot list '" + dir.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> list_templates(const std::vector<fs::path>& template_dirs, bool all,
                                        const fs::path& data_dir) {
  require_directory(data_dir / "templates", "built-in templates");
  ConfigRequest request;
  request.template_dirs = template_dirs;
  request.data_dir = data_dir;
  std::vector<std::string> names;
  for (const auto& name : make_environment(request)->list_templates()) {
    // Entry templates: `.j2` files outside `partials/` directories (those are only included).
    const bool entry = name.ends_with(".j2") && name.find("partials/") == std::string::npos;
    if (all ? name.ends_with(".j2") : entry) names.push_back(name);
  }
  return names;
}

py::list list_presets(const fs::path& data_dir) {
  const fs::path dir = data_dir / "presets" / "families";
  require_directory(dir, "shipped families");
  py::list out;
  for (const auto& path : json_files(dir)) {
    Family family = load_family(path);
    py::dict preset;
    preset["name"] = text(family.name);
    preset["template"] = text(family.template_name);
    py::list tiers;
    for (const auto& tier : family.tiers) tiers.append(text(tier.name));
    preset["tiers"] = tiers;
    preset["description"] = text(family.description);
    preset["file"] = text(path.string());
    out.append(preset);
  }
  return out;
}

py::dict tier_entry(const fs::path& path, const char* origin,
                    std::map<std::string, fs::path>& seen) {
  py::dict tier;
  const std::string name = path.stem().string();
  tier["name"] = text(name);
  tier["file"] = text(path.string());
  tier["origin"] = origin;
  if (auto first = seen.find(name); first != seen.end()) {
    tier["shadowed_by"] = text(first->second.string());
    tier["values"] = py::none();
    return tier;
  }
  seen.emplace(name, path);
  tier["shadowed_by"] = py::none();
  tier["values"] = to_python(load_tier_file(path));
  return tier;
}

py::list list_tiers(const std::string& family_arg, const fs::path& data_dir) {
  fs::path family_file;
  std::vector<fs::path> named;
  if (!family_arg.empty()) {
    family_file = resolve_family(family_arg, data_dir);
    const Family family = load_family(family_file);
    for (const auto& tier : family.tiers) {
      if (is_tier_path(tier.ref)) named.push_back(family_file.parent_path() / tier.ref);
    }
  }
  std::map<std::string, fs::path> seen;
  py::list out;
  for (const auto& path : named) out.append(tier_entry(path, "named by the family", seen));
  for (const auto& dir : tier_search_path(family_file, data_dir)) {
    std::error_code ec;
    if (dir.origin != TierOrigin::BuiltIn && !fs::is_directory(dir.path, ec)) continue;
    require_directory(dir.path, "shipped tiers");
    const std::string origin(to_string(dir.origin));
    for (const auto& path : json_files(dir.path))
      out.append(tier_entry(path, origin.c_str(), seen));
  }
  return out;
}

}  // namespace

void bind_listings(py::module_& module) {
  module.def("list_templates", &list_templates, py::arg("template_dirs"), py::arg("all"),
             py::arg("data_dir"));
  module.def("list_presets", &list_presets, py::arg("data_dir"));
  module.def("list_tiers", &list_tiers, py::arg("family"), py::arg("data_dir"));
}

}  // namespace zf::python
