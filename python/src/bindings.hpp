// SPDX-License-Identifier: MIT
// The parts of the `_zeroforge` extension, one file each; module.cpp calls them in turn. The
// public API is zeroforge/__init__.py, which wraps these with keyword arguments and docstrings.
#pragma once

#include <pybind11/pybind11.h>

namespace zf::python {

void bind_generate(pybind11::module_& module);  // generate_binding.cpp
void bind_validate(pybind11::module_& module);  // validate_binding.cpp
void bind_plugins(pybind11::module_& module);   // plugin_binding.cpp: estimate, list plugins
void bind_listings(pybind11::module_& module);  // listing_binding.cpp: templates, presets, tiers
void bind_render(pybind11::module_& module);    // render_binding.cpp: render, explain
void bind_migrate(pybind11::module_& module);   // migrate_binding.cpp

}  // namespace zf::python
