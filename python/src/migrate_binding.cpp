// SPDX-License-Identifier: MIT
// _zeroforge.migrate: zf::migrate_config over a config given as a dict or a file, or
// zf::migrate_family over a family file, with the options `zeroforge migrate` takes; a refusal
// raises (the CLI's exit 2), the rewrites come back as data, and `output` is written atomically.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "engine_call.hpp"
#include "errors.hpp"
#include "json_convert.hpp"
#include "zeroforge/diagnostic_codes.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/migrate.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

std::string checked_version(const char* argument, const std::string& version) {
  try {
    check_deepspeed_version(version);
  } catch (const Error& e) {
    throw Error(ErrorKind::Usage, std::string("migrate: ") + argument + ": " + e.message());
  }
  return version;
}

py::list notes_list(const std::vector<MigrationNote>& notes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& note : notes) list.push_back(migration_note_to_json(note));
  return to_python(list);
}

[[noreturn]] void raise_refusals(const std::vector<Diagnostic>& refusals) {
  py::dict extra;
  extra["refusals"] = diagnostic_list(refusals);
  raise_diagnostic(refusals.front(),
                   printed(refusals) + "\nzeroforge: error: " + std::to_string(refusals.size()) +
                       (refusals.size() == 1 ? " refusal" : " refusals") +
                       "; nothing was written [" + codes::migrate_not_migrated + "]",
                   extra);
}

// A config's migration as the Python result: raises its refusals, else fills `out` and
// returns the text to write.
std::string config_result(const ConfigMigration& m, py::dict& out) {
  if (!m.refusals.empty()) raise_refusals(m.refusals);
  out["kind"] = "config";
  out["file"] = m.file;
  out["from_"] = m.from;
  out["from_inferred"] = m.inferred;
  out["to"] = m.to;
  out["changed"] = m.changed();
  out["notes"] = notes_list(m.notes);
  out["result"] = to_python(m.config);
  return m.text;
}

py::dict migrate(py::handle input, const std::string& name, const std::string& to,
                 const std::string& from, bool drop_unknown, std::optional<long long> world_size,
                 bool hf, std::optional<fs::path> output, const fs::path& data_dir) {
  MigrateOptions options;
  options.to = checked_version("to", to);
  if (!from.empty()) options.from = checked_version("from", from);
  options.drop_unknown = drop_unknown;
  options.validate.hf = hf;
  if (world_size) {
    if (*world_size < 1 || *world_size > kMaxWorldSize)
      throw Error(ErrorKind::Usage, "migrate: world_size must be a whole number from 1 to " +
                                        std::to_string(kMaxWorldSize) + ", got " +
                                        std::to_string(*world_size));
    options.validate.world_size = *world_size;
  }
  py::dict out;
  std::string text;
  if (py::isinstance<py::dict>(input)) {
    const std::string label = name.empty() ? "config" : name;
    const std::string config_text = to_json_text(from_python(input, label));
    ConfigMigration m;
    {
      EngineCall unlocked;
      m = migrate_config(config_text, label, options);
    }
    text = config_result(m, out);
  } else {
    const fs::path path = input.cast<fs::path>();
    const std::string label = name.empty() ? path.string() : name;
    const std::string file_text = read_file(path);
    const bool family =
        is_family_document(parse_json_text(file_text, label, JsonNumbers::AsWritten));
    if (family) {
      FamilyMigration m;
      {
        EngineCall unlocked;
        m = migrate_family(path, output ? *output : path, options, data_dir);
      }
      if (!m.refusals.empty()) raise_refusals(m.refusals);
      out["kind"] = "family";
      out["file"] = m.file;
      out["from_"] = m.from;
      out["from_inferred"] = false;
      out["to"] = m.to;
      out["changed"] = m.changed();
      out["notes"] = notes_list(m.notes);
      out["result"] = to_python(m.family);
      text = m.text;
    } else {
      ConfigMigration m;
      {
        EngineCall unlocked;
        m = migrate_config(file_text, label, options);
      }
      text = config_result(m, out);
    }
  }
  if (output) {
    EngineCall unlocked;
    write_file_atomically(*output, text);
  }
  out["text"] = text;
  return out;
}

}  // namespace

void bind_migrate(py::module_& module) {
  module.def("migrate", &migrate, py::arg("input"), py::arg("name"), py::arg("to"),
             py::arg("from_"), py::arg("drop_unknown"), py::arg("world_size"), py::arg("hf"),
             py::arg("output"), py::arg("data_dir"));
}

}  // namespace zf::python
