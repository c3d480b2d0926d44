// SPDX-License-Identifier: MIT
// Python <-> JSON conversion (json_convert.hpp).
#include "json_convert.hpp"

#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <cstdint>

#include "zeroforge/error.hpp"
#include "zeroforge/values.hpp"

namespace zf::python {
namespace py = pybind11;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

py::str text(std::string_view text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::object to_python(const Json& json) {
  switch (json.type()) {
    case Json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : json.items()) out[text(key)] = to_python(value);
      return out;
    }
    case Json::value_t::array: {
      py::list out(json.size());
      for (std::size_t i = 0; i < json.size(); ++i) out[i] = to_python(json[i]);
      return out;
    }
    case Json::value_t::string:
      return text(json.get_ref<const std::string&>());
    case Json::value_t::boolean:
      return py::bool_(json.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(json.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(json.get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(json.get<double>());
    default:
      return py::none();
  }
}

namespace {

std::string type_name(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

// A str as UTF-8; one that has none (a lone surrogate) is refused as JSON has no such text.
template <typename Fail>
std::string utf8(py::handle value, const Fail& fail) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    throw fail("a str must be valid Unicode (JSON text cannot hold the lone surrogate in " +
               py::module_::import("builtins").attr("ascii")(value).cast<std::string>() + ")");
  }
  return std::string(data, static_cast<std::size_t>(size));
}

// Deeper than any config; a dict or list that contains itself reaches it instead of
// overflowing the stack.
constexpr int kMaxDepth = 512;

Json convert(py::handle value, const std::string& pointer, const std::string& what, int depth) {
  auto fail = [&](const std::string& message) -> Error {
    return Error(ErrorKind::Values, message, what, pointer.empty() ? "/" : pointer);
  };
  // bool before int: Python's bool is an int.
  if (depth > kMaxDepth)
    throw fail("nested more than " + std::to_string(kMaxDepth) +
               " levels deep (a dict or list that contains itself?)");
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    // Python ints are unbounded; values are 64-bit, as in values files and --set.
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0)
      throw fail("integers are 64-bit, got " + std::string(py::str(value)) +
                 " (write it as a float to mean an approximate number)");
    return static_cast<std::int64_t>(n);
  }
  if (py::isinstance<py::float_>(value)) {
    const double d = value.cast<double>();
    if (!std::isfinite(d))
      throw fail("a float must be finite (JSON has no " + std::string(py::str(value)) + ")");
    return d;
  }
  if (py::isinstance<py::str>(value)) return utf8(value, fail);
  if (py::isinstance<py::dict>(value)) {
    Json out = Json::object();
    for (auto [key, item] : py::reinterpret_borrow<py::dict>(value)) {
      if (!py::isinstance<py::str>(key))
        throw fail("keys must be str, got " + type_name(key) + " " + std::string(py::repr(key)));
      const std::string name = utf8(key, fail);
      out[name] = convert(item, pointer + "/" + escape_pointer_segment(name), what, depth + 1);
    }
    return out;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    Json out = Json::array();
    std::size_t i = 0;
    for (auto item : value)
      out.push_back(convert(item, pointer + "/" + std::to_string(i++), what, depth + 1));
    return out;
  }
  throw fail("expected a JSON value (dict, list, str, int, float, bool or None), got " +
             type_name(value));
}

}  // namespace

Json from_python(py::handle value, const std::string& what) { return convert(value, "", what, 0); }

std::vector<std::pair<std::string, nlohmann::ordered_json>> values_layers(py::list values) {
  // In the order given: a file (read as --values reads it, named by its path) or a
  // (label, mapping) pair.
  std::vector<std::pair<std::string, nlohmann::ordered_json>> layers;
  for (auto item : values) {
    if (py::isinstance<py::tuple>(item)) {
      auto pair = item.cast<py::tuple>();
      const std::string label = pair[0].cast<std::string>();
      layers.emplace_back(label, from_python(pair[1], label));
    } else {
      const fs::path path = item.cast<fs::path>();
      layers.emplace_back(path.string(), load_values_file(path));
    }
  }
  return layers;
}

}  // namespace zf::python
