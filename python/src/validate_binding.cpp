// SPDX-License-Identifier: MIT
// _zeroforge.validate: zf::validate_config over a config given as a dict or a file, with the
// options `zeroforge validate` takes; the findings come back as data.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <optional>
#include <string>

#include "bindings.hpp"
#include "engine_call.hpp"
#include "json_convert.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/validator.hpp"

namespace zf::python {
namespace py = pybind11;

namespace {

py::object validate(py::handle config, const std::string& name, std::optional<long long> world_size,
                    std::optional<std::string> against_args, bool hf, bool strict,
                    const std::string& deepspeed_version, const std::string& accelerate_version) {
  ValidateOptions options;
  if (world_size) {
    if (*world_size < 1 || *world_size > kMaxWorldSize)
      throw Error(ErrorKind::Usage, "validate: world_size must be a whole number from 1 to " +
                                        std::to_string(kMaxWorldSize) + ", got " +
                                        std::to_string(*world_size));
    options.world_size = *world_size;
  }
  if (!deepspeed_version.empty()) {
    try {
      check_deepspeed_version(deepspeed_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "validate: deepspeed_version: " + e.message());
    }
    options.deepspeed_version = deepspeed_version;
  }
  options.hf = hf;
  if (!accelerate_version.empty()) {
    if (!hf) {
      throw Error(ErrorKind::Usage,
                  "validate: accelerate_version needs hf=True (accelerate reads the config only "
                  "on the Trainer's path)");
    }
    try {
      check_accelerate_version(accelerate_version);
    } catch (const Error& e) {
      throw Error(ErrorKind::Usage, "validate: accelerate_version: " + e.message());
    }
    options.accelerate_version = accelerate_version;
  }
  options.strict = strict;
  if (against_args) {
    options.against = parse_training_command(*against_args);
    load_launcher_files(*options.against);  // --hostfile, --config_file, an sbatch script
  }
  nlohmann::ordered_json document;
  std::string label = name;
  if (py::isinstance<py::dict>(config)) {
    document = from_python(config, label);
  } else {
    // A file, read as `zeroforge validate FILE` reads it: `1e3` stays a float.
    const std::string path = config.cast<std::filesystem::path>().string();
    if (label.empty()) label = path;
    // Malformed JSON raises a ValuesError (code `json.syntax`), as for every file read.
    document = parse_json_text(read_file(path), path, JsonNumbers::AsWritten);
  }
  std::vector<Finding> findings;
  {
    EngineCall unlocked;
    findings = validate_config(document, options, label);
  }
  return to_python(findings_to_json(findings));
}

}  // namespace

void bind_validate(py::module_& module) {
  module.def("validate", &validate, py::arg("config"), py::arg("name"), py::arg("world_size"),
             py::arg("against_args"), py::arg("hf"), py::arg("strict"),
             py::arg("deepspeed_version"), py::arg("accelerate_version"));
}

}  // namespace zf::python
