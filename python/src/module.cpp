// SPDX-License-Identifier: MIT
// PYBIND11_MODULE(_zeroforge): the compiled half of the `zeroforge` package.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "engine_call.hpp"
#include "errors.hpp"
#include "json_convert.hpp"
#include "zeroforge/output.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_zeroforge, module) {
  module.doc() = "The compiled part of zeroforge; use the zeroforge package.";
  module.attr("__version__") = ZEROFORGE_VERSION;
  zf::python::register_errors(module);
  zf::python::register_engine_calls(module);
  module.def(
      "dumps",
      [](py::handle value) { return zf::to_json_text(zf::python::from_python(value, "value")); },
      py::arg("value"));
  zf::python::bind_generate(module);
  zf::python::bind_validate(module);
  zf::python::bind_plugins(module);
  zf::python::bind_listings(module);
  zf::python::bind_render(module);
  zf::python::bind_migrate(module);
}
