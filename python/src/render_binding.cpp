// SPDX-License-Identifier: MIT
// _zeroforge.render and _zeroforge.explain: bound to the library's single-template pipeline
// (issue 24) once it is merged.
#include "bindings.hpp"

namespace zf::python {

void bind_render(pybind11::module_& module) { (void)module; }

}  // namespace zf::python
