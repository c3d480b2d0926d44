// SPDX-License-Identifier: MIT
// JSON values across the boundary: nlohmann::ordered_json to Python objects (dict, list, str,
// int, float, bool, None) and back, keeping key order and the int/float distinction.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zf::python {

/// `text` as a Python str: UTF-8, with any byte that is not (a file name, a value quoted in a
/// message) kept as a lone surrogate, as Python decodes file names ("surrogateescape").
pybind11::str text(std::string_view text);

/// `json` as Python objects: objects become dicts in key order, integers ints, floats floats.
pybind11::object to_python(const nlohmann::ordered_json& json);

/// A Python value as JSON. Accepts dict (str keys), list, tuple, str, int (64-bit), float
/// (finite), bool and None. Anything else, a key that is not a str, an int past 64 bits or a
/// NaN or infinity throws zf::Error (Values) at `what` and the JSON pointer of the value:
/// `values: /zero/bucket: error: a float must be finite, got nan`.
nlohmann::ordered_json from_python(pybind11::handle value, const std::string& what);

/// The `values=` argument of render, explain and generate (a list the Python side made, each
/// item a file path, read as `--values FILE` reads it and named by its path, or a
/// `(label, mapping)` pair) as layers of (label, JSON object), in order.
std::vector<std::pair<std::string, nlohmann::ordered_json>> values_layers(pybind11::list values);

}  // namespace zf::python
